/* Lab 10 tests: what the test files share: the counting oracle (the header's rules, in 128-bit
 * arithmetic), double-precision oracles of the four kernels, random inputs, and buffers that show
 * a write where none was allowed. Nothing here calls the code under test. */
#ifndef TU_SUPPORT_H
#define TU_SUPPORT_H
#include <stddef.h>
#include <stdint.h>
#include "kernels.h"
#include "mm_call.h"
#include "mm_check.h"
#include "oracle.h"
#include "roofline.h"

_Static_assert(SIZE_MAX == UINT64_MAX, "the overflow tests assume a 64-bit size_t");

/* ---- Part A: counting -------------------------------------------------------------------- */

typedef enum { TU_EMB, TU_GEMV, TU_SOFTMAX, TU_LAYERNORM } tu_kind_t;

/* The name of a kind's cost function, and its number of dimensions (3 for the embedding bag:
 * bags, bag_size, dim; else 2: m, n or rows, cols). */
const char *tu_cost_name(tu_kind_t k);
int tu_cost_dims(tu_kind_t k);

/* The header's counting rules, worked out in 128-bit arithmetic (saturating far above 2^64):
 * 0 and the cost in *c, or -EOVERFLOW when a count passes UINT64_MAX (*c then untouched). */
int tu_cost_oracle(tu_kind_t k, const size_t d[3], rl_cost_t *c);

/* The kind's rl_cost_* on d[] (d[2] unused by the 2-dimensional ones). */
int tu_call_cost(tu_kind_t k, const size_t d[3], rl_cost_t *c);

/* Calls the kind's rl_cost_* on d[] into a sentinel-filled cost and checks it against the
 * oracle: the same return code, the exact counts on success, the sentinel kept on failure.
 * Returns the oracle's code (0 or -EOVERFLOW). */
int tu_expect_cost(tu_kind_t k, const size_t d[3]);

/* STREAM's bytes by the header's rule, or -EOVERFLOW (then *bytes untouched). */
int tu_stream_oracle(rl_stream_op_t op, size_t n, size_t elem, uint64_t *bytes);

/* Calls rl_stream_bytes and checks it against the oracle as tu_expect_cost does. */
void tu_expect_stream_bytes(rl_stream_op_t op, size_t n, size_t elem);

/* A random dimension: uniform in [1, 2^b] for b uniform in [0, maxbits]. */
size_t tu_dim(mm_rng_t *r, unsigned maxbits);

/* ---- Part B: doubles --------------------------------------------------------------------- */

/* a and b equal to a relative 1e-12 (a few rounding steps apart; exact when both are 0). */
int tu_near(double a, double b);

/* ---- Part C: buffers and oracles --------------------------------------------------------- */

/* The kernels' tensors live in memory shared with the student's process (mm_shared_alloc,
 * calls.toml's `shared`): n elements of `size` bytes (at least one), zeroed; tu_free. Never NULL
 * (a full shared memory fails the test). */
void *tu_shared(size_t n, size_t size);
void tu_free(void *p);
/* tu_shared floats, each uniform in [lo, hi); or a copy of src[0..n). */
float *tu_floats(mm_rng_t *r, size_t n, double lo, double hi);
float *tu_copy(const float *src, size_t n);
/* An input whose oracle is worked out before the student's process can see it: n floats
 * uniform in [lo, hi) in the test's own memory (free()), then shared with tu_share (a copy of
 * `bytes` bytes, tu_free). Shared memory is that process's to change at any time, so an oracle
 * never reads it. */
float *tu_own_floats(mm_rng_t *r, size_t n, double lo, double hi);
void *tu_share(const void *own, size_t bytes);
/* tu_shared int32s, zeroed. */
int32_t *tu_ints(size_t n);
/* n doubles (at least one slot), zeroed, in the test's own memory; free(). Fails the test on no
 * memory. */
double *tu_doubles(size_t n);

/* Every float of p[0..n) set to / checked against a recognisable bit pattern (a NaN whose payload
 * is the index), so that any write shows. tu_expect_pattern names `what` and the first change. */
void tu_fill_pattern(float *p, size_t n);
void tu_expect_pattern(const float *p, size_t n, const char *what);

/* n floats with TU_GUARD pattern floats before and after them (tu_fill_pattern), in shared
 * memory, for a kernel's output; tu_guarded_check fails the test if a guard changed;
 * tu_guarded_free frees it. */
enum { TU_GUARD = 16 };
float *tu_guarded(size_t n);
void tu_guarded_check(const float *p, size_t n, const char *what);
void tu_guarded_free(float *p);

/* Fails the test unless every got[i] is finite and |got[i] - want[i]| <= rel * scale[i] + abs
 * (scale NULL: |want[i]|), naming `what` (row-major rows x cols, for the message) and the first
 * element out of tolerance. */
void tu_expect_close(const float *got, const double *want, const double *scale, size_t rows,
                     size_t cols, double rel, double abs, const char *what);

/* Fails the test unless each row of y (rows x cols) sums to 1 within tol. */
void tu_expect_rows_sum_to_1(const float *y, size_t rows, size_t cols, double tol,
                             const char *what);

#endif
