/* Lab 11 tests: the embedded debug interpreter and what the tests measure with it. None of these
 * helpers is code under test; they call your code only through the calls the tests give them. */
#ifndef TU_SUPPORT_H
#define TU_SUPPORT_H
#include "pyobj.h"
#include "mm_check.h"

/* The fixture of every lab 11 test. In the parent (before the test's process is forked, so
 * before it is confined): the debug interpreter is started and NumPy, gc, tracemalloc and the
 * provided minigrad are imported (an import maps code, which confinement refuses). In the test's
 * process: `pyobj` (your module) is imported, and tu_ns() holds pyobj, np, gc, sys, minigrad
 * (as mg) and harness. */
extern const mm_fixture_t tu_py;

/* The namespace the tests' Python code runs in (borrowed). */
PyObject *tu_ns(void);

/* Runs `code` (statements) in tu_ns(); fails the test with the exception it raised, if any. */
void tu_ok(const char *code);

/* Evaluates `expr` in tu_ns(): a new reference; fails the test if it raises. */
PyObject *tu_eval(const char *expr);

/* Evaluates `expr` in tu_ns() as a C long (fails the test if it raises or is not an int). */
long tu_long(const char *expr);

/* Fails the test if an object of the iterable `expr` (evaluated in tu_ns()) is one whose
 * references this Python does not count (harness.uncounted: immortal, PEP 683): a test that counts
 * references to its inputs would not see one leaked to such an object. */
void tu_assert_counted(const char *expr);

/* sys.gettotalrefcount(): every reference the debug interpreter counts, less this call's own. */
Py_ssize_t tu_total_refs(void);

/* A scenario: calls code under test through `arg` (tu_ns()'s objects, or C calls of the
 * functions of pyobj.h) and returns a new reference, or NULL with an exception set. */
typedef PyObject *(*tu_scenario_fn)(void *arg);

/* The references a scenario leaves behind per run: it runs twice (warm-up: caches the
 * interpreter fills once), then `reps` times, each result dropped and any exception cleared;
 * returns the change of tu_total_refs() over the reps divided by reps, rounded toward 0: a
 * leak shows as 1 or more, the interpreter's own few one-off references (its caches) as 0. */
long tu_refs_left(tu_scenario_fn fn, void *arg, int reps);

/* What tu_sweep found. */
typedef struct {
    int runs;             /* runs made: one per allocation failed, plus the one that completed */
    int failed_runs;      /* runs that returned NULL */
    long refs_left;       /* tu_total_refs() after the second sweep minus before it */
    char bad[256];        /* "" or the first broken rule: NULL without an exception, a result
                           * with an exception set, or a failure of the run that completed */
} tu_sweep_t;

/* Allocation-failure injection: wraps CPython's object and memory allocators (PyMem_SetAllocator)
 * so that the k-th allocation of a run fails, for k = 1, 2, ... until a run makes fewer than k
 * allocations (it completed with nothing failed, and must have succeeded). Every run's result is dropped and its exception
 * cleared. The sweep runs twice, refs_left measured over the second. Fails the test if a run
 * crashes (the test's process dies: a crash is reported as such) or after 20000 runs. */
void tu_sweep(tu_scenario_fn fn, void *arg, tu_sweep_t *out);

#endif
