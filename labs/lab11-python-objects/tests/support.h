/* Lab 11 tests: the harness's end of the workloads of serve/ (calls.toml). The interpreter, your
 * module and every object a test makes live in your code's process (a fresh one per test, forked
 * from a zygote that imported NumPy and the provided modules before any code of yours ran); a
 * test sends it Python source and gets back values (reprs, numbers, exception type names), which
 * the harness compares with what it computed itself from the test's random inputs: no verdict is
 * that process's "it passed". Reference counts are that process's word (its interpreter counts
 * them); a crash the harness sees for itself (the process dies: the test fails saying how). */
#ifndef TU_SUPPORT_H
#define TU_SUPPORT_H
#include "mm_check.h"
#include "../serve/po_serve.h"

#include <stdarg.h>
#include "mm_rng.h"

/* Runs the statements printf(fmt, ...) in the test's namespace (pyobj, np, gc, sys, tracemalloc,
 * weakref, minigrad as mg, harness) to set up objects; fails the test with the exception they
 * raised, if any. Its success proves nothing: only what later queries return is checked. */
void tu_run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Fails the test unless ascii() of the expression printf(fmt, ...) is `want` (computed by the
 * test); the message says what was asked, what came back and what was expected. */
void tu_expect(const char *want, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Fails the test unless calling the callable printf(fmt, ...) raises `exc` (a class name or
 * several joined by '|', any of which will do; a built-in subclass of one counts) or, for exc
 * "", returns. What comes back is the built-in exception class of what it raised, read in C
 * against the interpreter's own classes (serve/interp.h); the harness compares it. `what`
 * starts the message (NULL: the callable's text). */
void tu_expect_raises(const char *what, const char *exc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Text the tests build expected answers in: Python reprs, by hand. */
typedef struct {
    char s[PO_TEXT_MAX];
    size_t n;
} tu_text_t;
/* Appends printf(fmt, ...) to t (fails the test when it does not fit). */
void tu_cat(tu_text_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends Python's repr of the tuple of ints v[0..n): "()", "(4,)", "(2, 3)". */
void tu_cat_tuple(tu_text_t *t, const long *v, int n);
/* Appends the bytes p[0..n) as bytes.hex() writes them. */
void tu_cat_hex(tu_text_t *t, const void *p, size_t n);

/* The buffer formats TensorBuf takes (struct module codes) and their item sizes. */
typedef struct {
    char code;
    int itemsize;
    const char *np_str; /* numpy's dtype.str of it */
    int is_float;
} tu_format_t;
/* A format drawn from r: any of them, or (ints_only) one of the integer ones. */
const tu_format_t *tu_pick_format(mm_rng_t *r, int ints_only);
/* v stored as format f's item (native byte order) at out[0..f->itemsize). */
void tu_encode(const tu_format_t *f, double v, unsigned char *out);
/* C-contiguous strides of shape[0..ndim) with items of `itemsize` (a dimension of 0 counts as
 * 1 in the strides before it); returns the bytes, itemsize * the product of the shape. */
long tu_c_strides(const long *shape, int ndim, long itemsize, long *strides);

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

/* What the kernel sees of a leak, read by the harness from /proc (your process cannot change
 * it without freeing the memory). 1 when this process's memory shows it: 32 big() held must grow
 * its resident memory by 3/4 of their size, else 0 and the test is marked skipped with the
 * reason (a skip mark wins over what the test does next; checked once per test). 0 in an
 * AddressSanitizer build (test_native's check of the reference, never graded): its quarantine
 * keeps freed memory, so the checks below are not made there. */
int tu_memory_shows(void);

/* The callable `expr`, of one argument `big` (po_serve.h's repeat: big(tag) maps 64 KiB of its
 * own), is called reps / 4 times to settle, then `reps` times, every result dropped; the answer
 * is the growth of your process's resident anonymous memory (RssAnon) over those reps, in KiB.
 * A case whose objects each hold a big(), or hold 256 KiB or more of their own, keeps at least
 * 64 KiB a call for any reference leaked to one of them or to what holds one. */
long tu_kept_kib(const char *expr, int reps);

/* Fails the test when the case `expr` (as tu_kept_kib's) keeps memory: `what` names it. Does
 * nothing where tu_memory_shows() is 0. */
void tu_assert_nothing_kept(const char *what, const char *expr);

/* KiB by which your process's resident anonymous memory grew while the callable `expr` of one
 * argument (big) ran `reps` times, each result kept (hold) or dropped. */
long tu_rss_delta_kib(const char *expr, int reps, int hold);

/* Imports your src/train_loop.py as train_loop in the namespace, and checks that it still
 * trains as its docstring says: one run of train(150), checked in your process as harness.learns
 * does (its word: it can only fail the test), then replayed by the harness (replay.h). */
void tu_load_train_loop(void);

#endif
