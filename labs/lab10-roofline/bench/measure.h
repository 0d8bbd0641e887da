/* Lab 10: the machine's own ceilings, measured by code the student does not write: STREAM's four
 * kernels (float arrays, as STREAM built with STREAM_TYPE=float) on one core or on several cores
 * pinned with hwloc, and a peak-FLOP/s kernel of independent fused multiply-adds. Used by the
 * benchmark (bench_lab10.c) and by the `stream` tool (tools/stream.c). */
#ifndef RL_MEASURE_H
#define RL_MEASURE_H
#include <stddef.h>
#include "roofline.h"

/* How big STREAM's arrays are against the caches of the run. */
typedef struct {
    size_t caches;   /* bytes of the caches of the cores used (mm_hw_cache_bytes), 0: unknown */
    size_t bytes;    /* bytes per array */
    int below_rule;  /* 1: under STREAM's rule of 4 x caches, held at the cap of MS_MAX_ARRAY */
} ms_size_t;

#define MS_MIN_ARRAY ((size_t)64 << 20)
#define MS_MAX_ARRAY ((size_t)1 << 30)

/* Floats per STREAM array for a run on the first `cores` cores: 4 x the bytes of every cache
 * those cores use (STREAM's rule: each array at least 4 x the sum of the caches in the run, so
 * that no pass is served from a cache), at least MS_MIN_ARRAY and at most MS_MAX_ARRAY (three
 * arrays of 1 GiB are what a small machine can give). Fills *sz (if not NULL); sz->below_rule
 * says when the cap left the arrays under 4 x the caches: the caller must say so. */
size_t ms_array_floats(unsigned cores, ms_size_t *sz);

/* One pass of op over n floats on `threads` threads, thread k pinned to core k (hwloc), each on
 * its own contiguous slice; threads == 1 runs on the calling thread as it is bound. copy a = b,
 * scale a = q b, add a = b + c, triad a = b + q c (q = 3). Returns the seconds the pass took, or
 * a negative errno (-EINVAL, or the thread library's error). */
double ms_stream_pass(rl_stream_op_t op, float *a, const float *b, const float *c, size_t n,
                      unsigned threads);

/* Element i of b as ms_fill writes it, in [1, 2): the benchmark's kernels read b, and its checks
 * (verify.h) make their own copy of the rows they check from this. */
static inline float ms_b_value(size_t i)
{
    return 1.0f + (float)(i % 1021) / 1021.0f;
}

/* Fills the three arrays on `threads` threads pinned as ms_stream_pass pins them, so that each
 * page is first touched by the thread that will use it (STREAM does the same). b gets
 * ms_b_value(i), c values in [1, 2); a gets 0. Returns 0 or a negative errno. */
int ms_fill(float *a, float *b, float *c, size_t n, unsigned threads);

/* Peak single-core FLOP/s, in GFLOP/s: the best of `rounds` timings of a loop of independent
 * fused multiply-adds (enough accumulators to cover the FMA latency at the widest SIMD the build
 * targets), counted 2 FLOPs each. */
double ms_fma_gflops(unsigned rounds);

/* The benchmark's own vectorized sum of n floats (SIMD accumulators): the gate's probe of
 * whether one core can outrun memory at all. */
float ms_sum(const float *x, size_t n);

#endif
