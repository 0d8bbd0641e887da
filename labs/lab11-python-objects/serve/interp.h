/* Lab 11 (the student's process): the interpreter the workloads share (serve/interp.c). */
#ifndef PO_INTERP_H
#define PO_INTERP_H
#include "pyobj.h"
#include <stddef.h>

/* The test's namespace (borrowed), made at this process's first request: pyobj imported (which
 * runs your module's types' PyType_Ready, nothing of yours), sweep (po_sweep_function), np, gc,
 * sys, tracemalloc, weakref, minigrad as mg and harness. NULL, with why in text, when the
 * interpreter did not start or the namespace could not be made. */
PyObject *po_ns(char *text, size_t cap);

/* The pending exception as "Type: message" in text (cleared); "no exception" when none. */
const char *po_exception_text(char *text, size_t cap);

/* `code` evaluated in po_ns() as an expression: a new reference, or NULL with the exception (or
 * why there is no namespace) in text and *rc set to the workload's answer (1 or -ENOEXEC). */
PyObject *po_eval(const char *code, char *text, size_t cap, int *rc);

/* The name of the most derived of Python's built-in exception classes (TypeError, ValueError,
 * BufferError, ...; "BaseException" when none) that `type` derives from. Read from the class's
 * MRO against the interpreter's own class objects, so a class of any name counts as the
 * built-in one it derives from. */
const char *po_builtin_exception(PyObject *type);

/* sweep(scenario, arg) as a Python function (serve/counting.c): a new reference, or NULL. */
PyObject *po_sweep_function(void);

#endif
