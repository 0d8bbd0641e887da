/* Lab 10, Parts A and B: what a kernel costs (bytes and FLOPs), the roofline model that turns a
 * cost into a time, and STREAM's way of reporting a bandwidth. Pure arithmetic: no clock, no
 * memory touched. Your code: src/roofline.c.
 *
 * The counting rules (every rl_cost_* function follows them exactly; the tests check to the unit):
 *   - Bytes are the COMPULSORY traffic of one call: every input element read once, every output
 *     element written once, 4 bytes per float and per int32 index. A row gathered twice is read
 *     twice (embedding tables are far larger than caches); what a cache might save, or a
 *     write-allocate might add, is not counted.
 *   - FLOPs: each add, subtract, multiply, divide, comparison (max), exp and sqrt counts 1. A
 *     fused multiply-add counts 2.
 * A cost whose bytes or FLOPs do not fit in uint64_t is refused with -EOVERFLOW.
 *
 * Contracts follow the project's style: the effect, then one "-EXXX: condition" per line; where
 * several apply, -EINVAL is the one returned. A call that fails leaves its outputs as they were. */
#ifndef RL_ROOFLINE_H
#define RL_ROOFLINE_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t flops; /* floating-point operations, by the rules above */
    uint64_t bytes; /* compulsory bytes moved to and from memory */
} rl_cost_t;

/* ---- Part A: counting ---------------------------------------------------------------------- */

/* An embedding bag in sum mode (rl_embedding_bag): `bags` bags of `bag_size` int32 indices, each
 * index a row of `dim` floats; out[b] = sum of the bag's rows (bag_size adds per output float).
 * Bytes: the indices, every row looked up, and the bags x dim outputs.
 *   -EINVAL: c is NULL, or bags, bag_size or dim is 0.
 *   -EOVERFLOW: a count does not fit in uint64_t. */
int rl_cost_embedding_bag(size_t bags, size_t bag_size, size_t dim, rl_cost_t *c);

/* y = A x (rl_gemv), A m x n: one multiply and one add per element of A (2 m n FLOPs).
 * Bytes: A, x and y, once each.
 *   -EINVAL: c is NULL, or m or n is 0.
 *   -EOVERFLOW: a count does not fit. */
int rl_cost_gemv(size_t m, size_t n, rl_cost_t *c);

/* Row softmax (rl_softmax) of a rows x cols matrix: per element a max, a subtract, an exp, an add
 * (the sum) and a multiply (by 1 / sum): 5; per row one divide (1 / sum). Bytes: x and y.
 *   -EINVAL: c is NULL, or rows or cols is 0.
 *   -EOVERFLOW: a count does not fit. */
int rl_cost_softmax(size_t rows, size_t cols, rl_cost_t *c);

/* LayerNorm over each row (rl_layernorm) of a rows x cols matrix, with gamma and beta of cols
 * floats: per element an add (the sum), a multiply and an add (the sum of squares), a subtract
 * (the mean), a multiply (by 1 / std), a multiply (gamma) and an add (beta): 7; per row 7 (mean
 * = sum / cols; var = sumsq / cols - mean * mean: a divide, a multiply, a subtract; + eps; sqrt;
 * 1 / std). Bytes: x, y, gamma and beta. (The count is nominal, for the one-pass formula: how
 * rl_layernorm computes the variance does not change it.)
 *   -EINVAL: c is NULL, or rows or cols is 0.
 *   -EOVERFLOW: a count does not fit. */
int rl_cost_layernorm(size_t rows, size_t cols, rl_cost_t *c);

/* ---- Part B: the roofline ------------------------------------------------------------------ */

/* A machine's two ceilings, as measured (bench) or from a data sheet. */
typedef struct {
    double peak_gflops; /* FLOP/s / 1e9 */
    double peak_gbs;    /* bytes/s / 1e9 */
} rl_roof_t;

/* Arithmetic intensity, FLOPs per byte: c.flops / c.bytes, into *fpb.
 *   -EINVAL: fpb is NULL, or c.bytes is 0. */
int rl_intensity(rl_cost_t c, double *fpb);

/* The ridge point, peak_gflops / peak_gbs FLOP per byte: below it a kernel is memory-bound.
 *   -EINVAL: roof or ridge is NULL, or a ceiling is not a finite number > 0. */
int rl_ridge(const rl_roof_t *roof, double *ridge);

/* The roofline: attainable GFLOP/s at `fpb` FLOP per byte, min(peak_gflops, peak_gbs * fpb).
 *   -EINVAL: roof or gflops is NULL, a ceiling is not a finite number > 0, or fpb is not a
 *            finite number >= 0. */
int rl_attainable(const rl_roof_t *roof, double fpb, double *gflops);

/* The roofline's time for a kernel of cost c, in nanoseconds: the longer of its FLOPs at
 * peak_gflops and its bytes at peak_gbs (GFLOP/s is FLOP per ns; GB/s is bytes per ns).
 *   -EINVAL: roof or ns is NULL, or a ceiling is not a finite number > 0. */
int rl_predict_ns(const rl_roof_t *roof, rl_cost_t c, double *ns);

/* ---- STREAM's report ----------------------------------------------------------------------- */

typedef enum { RL_COPY, RL_SCALE, RL_ADD, RL_TRIAD } rl_stream_op_t;

/* The bytes STREAM counts for one pass of `op` over n elements of elem_size bytes: copy
 * (a = b) and scale (a = q b) move 2 arrays, add (a = b + c) and triad (a = b + q c) move 3.
 *   -EINVAL: bytes is NULL, op is not an rl_stream_op_t, or n or elem_size is 0.
 *   -EOVERFLOW: the count does not fit in uint64_t. */
int rl_stream_bytes(rl_stream_op_t op, size_t n, size_t elem_size, uint64_t *bytes);

/* One line of STREAM's table. */
typedef struct {
    double best_mbs;           /* bytes / min_s / 1e6 (STREAM's "Best Rate MB/s") */
    double avg_s, min_s, max_s; /* over the timed passes */
} rl_stream_row_t;

/* STREAM's summary of `ntimes` passes that each moved `bytes`: the first pass is not counted
 * (STREAM leaves it out, without saying why) nor checked; avg, min and max are over
 * secs[1 .. ntimes-1], and the best rate comes from the minimum time.
 *   -EINVAL: secs or row is NULL, ntimes < 2, bytes is 0, or a counted time is not a finite
 *            number > 0. */
int rl_stream_summary(const double *secs, int ntimes, uint64_t bytes, rl_stream_row_t *row);

#endif
