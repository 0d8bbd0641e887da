/* Lab 11 tests: the harness's end of the workloads of serve/ (calls.toml). The interpreter, your
 * module and every object a test makes live in your code's process (a fresh one per test, forked
 * from a zygote that imported NumPy and the provided modules before any code of yours ran); a
 * test sends it Python source and checks the text and numbers that come back. Those are that
 * process's word (its interpreter counts the references); a crash the harness sees for itself
 * (the process dies: the test fails saying how). */
#ifndef TU_SUPPORT_H
#define TU_SUPPORT_H
#include "mm_check.h"
#include "../serve/po_serve.h"

/* Runs `code` (statements) in the test's namespace (pyobj, np, gc, sys, tracemalloc, weakref,
 * minigrad as mg, harness); fails the test with the exception it raised, if any. */
void tu_ok(const char *code);

/* str() of `expr` evaluated in the namespace, in buf; fails the test if it raises. */
const char *tu_eval(const char *expr, char *buf, size_t cap);

/* `expr` evaluated in the namespace as a long (fails the test if it raises or is not an int). */
long tu_long(const char *expr);

/* Fails the test if an object of the iterable `expr` is one whose references this Python does
 * not count (harness.uncounted: immortal, PEP 683): a test that counts references to its inputs
 * would not see one leaked to such an object. */
void tu_assert_counted(const char *expr);

/* The references one call of the callable `expr` leaves behind (serve/counting.c: warm-up, then
 * `reps` calls; the change of sys.gettotalrefcount() divided by reps, rounded toward 0). */
long tu_refs_left(const char *expr, int reps);

/* PyObject_GetBuffer(`name`, flags) from C in your process, as po_getbuffer_out_t says. */
void tu_getbuffer(const char *name, int flags, po_getbuffer_out_t *out);

/* The allocation-failure sweep of `scenario` with the argument `arg_expr` (serve/counting.c):
 * the scenario runs once per allocation it makes, with that allocation failing, twice over. */
void tu_sweep(const char *scenario, const char *arg_expr, po_sweep_out_t *out);

/* Imports your src/train_loop.py as train_loop in the namespace, and checks that it still
 * trains as its docstring says (harness.learns). */
void tu_load_train_loop(void);

#endif
