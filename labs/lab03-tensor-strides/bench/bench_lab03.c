/* Lab 03 benchmark: your contiguous() of a transposed matrix and of a channels-last activation
 * as a fraction of memcpy's bandwidth, and your blocked transpose against the naive strided loop
 * of src/baseline.c, all measured in the same run.
 * Prints one JSON object (common/mm_bench.h); the grader scores it with lab.toml's thresholds. */
#include <stdio.h>
#include <string.h>
#include "baseline.h"
#include "copy.h"
#include "mm_aligned.h"
#include "mm_bench.h"
#include "view.h"

/* The workloads: about 64 MB of float32 each, twice the L3 of the machine the thresholds come
 * from. The matrix is 4000 x 4000, not 4096 x 4096: README.md section 2.5 says why. */
#define ROWS 4000
#define COLS 4000
#define NELEMS ((size_t)ROWS * COLS)
/* ResNet-50's first-stage output for a batch of 20: logical shape (N, C, H, W) =
 * (20, 256, 56, 56), stored channels last (N, H, W, C), as torch.channels_last does. */
#define N 20
#define C 256
#define H 56
#define W 56
#define NHWC_ELEMS ((size_t)N * C * H * W)
#define MAX_ELEMS (NELEMS > NHWC_ELEMS ? NELEMS : NHWC_ELEMS)
#define REPS 15
#define WARMUP 1
/* The gate: the provided naive strided transpose must run at no more than this fraction of
 * memcpy's speed on the same bytes, or the run cannot show what all three metrics are about
 * (strided element-by-element access much slower than streaming) and they are skipped. It
 * protects against a cache that swallows the 2 x 64 MB working set and against a run too noisy
 * to time. At 0.2 a blocked copy at half memcpy's speed still makes transpose_speedup's 2.5x.
 * Seen on a 2-vCPU AMD EPYC VM: 0.074-0.086, load average 1.3-1.6. */
#define STRIDED_MAX 0.2
#define GATE_REPS 7

static const char *const METRICS[] = { "contiguous_transposed", "contiguous_channels_last",
                                       "transpose_speedup", NULL };

typedef struct {
    float *src, *dst, *ref; /* the storage, contiguous()'s output, memcpy's output */
} buffers_t;

typedef struct {
    const tv_t *v;
    void *dst;
    size_t bytes;
    int rc;
} contig_arg_t;

typedef struct {
    void *dst;
    const void *src;
    size_t bytes;
} memcpy_arg_t;

static void run_contiguous(void *p)
{
    contig_arg_t *a = p;
    int rc = tv_contiguous(a->v, a->dst, a->bytes);
    if (rc != 0)
        a->rc = rc;
}

static void run_memcpy(void *p)
{
    memcpy_arg_t *a = p;
    memcpy(a->dst, a->src, a->bytes);
}

/* Index of the first element of out (v's elements, in order) that is wrong, or -1: the
 * benchmark's own odometer walk over v. */
static int64_t first_wrong(const tv_t *v, const float *out)
{
    int64_t idx[TV_MAX_DIMS] = { 0 }, n = 1;
    for (unsigned k = 0; k < v->ndim; k++)
        n *= v->shape[k];
    const float *s = (const float *)v->data;
    for (int64_t e = 0; e < n; e++) {
        int64_t off = v->offset;
        for (unsigned k = 0; k < v->ndim; k++)
            off += idx[k] * v->strides[k];
        if (memcmp(&out[e], &s[off], sizeof(float)) != 0)
            return e;
        for (unsigned k = v->ndim; k-- > 0 && ++idx[k] == v->shape[k];)
            idx[k] = 0;
    }
    return -1;
}

/* contiguous() of v vs memcpy of as many bytes: paired rounds, median of t_memcpy / t_yours. */
static void bench_contiguous(mm_json_t *j, const char *name, const tv_t *v, buffers_t *b,
                             const char *what)
{
    size_t bytes = (size_t)v->storage_elems * sizeof(float); /* views of their whole storage */
    contig_arg_t ca = { v, b->dst, bytes, 0 };
    memcpy_arg_t ma = { b->ref, b->src, bytes };
    mm_bench_case_t base = { "memcpy", run_memcpy, &ma }, yours = { "yours", run_contiguous, &ca };
    double ratio, tb, ty;
    memset(b->dst, 0, bytes);
    int rc = mm_bench_paired_ratio(&base, &yours, WARMUP, REPS, &ratio, &tb, &ty);
    int64_t bad = ca.rc == 0 && rc == 0 ? first_wrong(v, b->dst) : -1;
    if (ca.rc != 0 || rc != 0)
        mm_bench_failf(j, name, "tv_contiguous failed: %s", strerror(-(ca.rc ? ca.rc : rc)));
    else if (bad >= 0)
        mm_bench_failf(j, name, "tv_contiguous wrote a wrong element %lld (%s)", (long long)bad,
                       what);
    else
        mm_bench_metricf(j, name, ratio, "x memcpy", "memcpy %.1f ms (%.1f GB/s), yours %.1f ms "
                         "(%.1f GB/s); medians of %d rounds, %s", tb * 1e3,
                         (double)bytes / tb * 1e-9, ty * 1e3, (double)bytes / ty * 1e-9, REPS,
                         what);
}

typedef struct {
    void (*fn)(const float *, size_t, size_t, size_t, float *, size_t);
    const float *src;
    float *dst;
} transpose_arg_t;

static void run_transpose(void *p)
{
    transpose_arg_t *a = p;
    a->fn(a->src, ROWS, COLS, COLS, a->dst, ROWS);
}

static void yours_transpose(const float *src, size_t rows, size_t cols, size_t ls, float *dst,
                            size_t ld)
{
    if (tv_transpose2d_f32(src, rows, cols, ls, dst, ld) != 0)
        memset(dst, 0xFF, rows * cols * sizeof *dst); /* caught by the check after timing */
}

/* Index of the first wrong element of dst = src^T (ROWS x COLS), or -1. */
static int64_t transpose_wrong(const float *src, const float *dst)
{
    for (size_t j = 0; j < COLS; j++)
        for (size_t i = 0; i < ROWS; i++)
            if (memcmp(&dst[j * ROWS + i], &src[i * COLS + j], sizeof(float)) != 0)
                return (int64_t)(j * ROWS + i);
    return -1;
}

static void bench_transpose(mm_json_t *j, buffers_t *b)
{
    transpose_arg_t na = { tv_naive_transpose2d_f32, b->src, b->ref };
    transpose_arg_t ya = { yours_transpose, b->src, b->dst };
    mm_bench_case_t base = { "naive", run_transpose, &na }, yours = { "yours", run_transpose, &ya };
    double ratio, tb, ty;
    memset(b->dst, 0, NELEMS * sizeof(float));
    int rc = mm_bench_paired_ratio(&base, &yours, WARMUP, REPS, &ratio, &tb, &ty);
    if (rc != 0 || transpose_wrong(b->src, b->dst) >= 0) {
        mm_bench_fail(j, "transpose_speedup", rc != 0 ? "timing failed"
                      : "tv_transpose2d_f32 failed or wrote a wrong element");
        return;
    }
    mm_bench_speedup(j, "transpose_speedup", ratio, "naive strided loop", tb, ty, REPS,
                     "%d x %d float32", ROWS, COLS);
}

#define NTILES 11 /* 1, 2, 4, ..., 1024 */

typedef struct {
    const float *src;
    float *dst;
    size_t tile;
    int rc;
} tiled_arg_t;

static void run_tiled(void *p)
{
    tiled_arg_t *a = p;
    int rc = tv_transpose2d_f32_tiled(a->src, ROWS, COLS, COLS, a->dst, ROWS, a->tile);
    if (rc != 0)
        a->rc = rc;
}

/* The channels-last case as contiguous() does it: per image, the (H*W) x C matrix (rows
 * 1 KiB apart) transposed into C x (H*W). */
static void run_tiled_cl(void *p)
{
    tiled_arg_t *a = p;
    for (size_t n = 0; n < N; n++) {
        int rc = tv_transpose2d_f32_tiled(a->src + n * H * W * C, H * W, C, C,
                                          a->dst + n * C * H * W, H * W, a->tile);
        if (rc != 0)
            a->rc = rc;
    }
}

/* The `blocking` series (about half of the benchmark's time: measured only on the runs whose
 * series is drawn): each tile size's time, as a fraction of memcpy's in the same round,
 * on both graded shapes: the 4000 x 4000 matrix (frac) and the channels-last one (frac_cl). */
static int blocking_series(buffers_t *b, size_t *tile, double *frac, double *frac_cl)
{
    memcpy_arg_t ma = { b->ref, b->src, NELEMS * sizeof(float) };
    memcpy_arg_t mc = { b->ref, b->src, NHWC_ELEMS * sizeof(float) };
    mm_bench_case_t base = { "memcpy", run_memcpy, &ma }, base_cl = { "memcpy", run_memcpy, &mc };
    for (int t = 0; t < NTILES; t++) {
        tiled_arg_t ta = { b->src, b->dst, (size_t)1 << t, 0 };
        mm_bench_case_t yours = { "tiled", run_tiled, &ta }, cl = { "tiled", run_tiled_cl, &ta };
        tile[t] = ta.tile;
        if (mm_bench_paired_ratio(&base, &yours, 0, 5, &frac[t], NULL, NULL) != 0 ||
            mm_bench_paired_ratio(&base_cl, &cl, 0, 5, &frac_cl[t], NULL, NULL) != 0 ||
            ta.rc != 0)
            return -1;
    }
    return 0;
}

static void write_series(mm_json_t *j, const size_t *tile, const double *frac,
                         const double *frac_cl)
{
    mm_json_object(j, "series");
    mm_json_object(j, "blocking");
    mm_json_array(j, "tile");
    for (int t = 0; t < NTILES; t++)
        mm_json_int(j, NULL, (long long)tile[t]);
    mm_json_close(j, ']');
    mm_json_nums(j, "fraction_of_memcpy", frac, NTILES);
    mm_json_nums(j, "channels_last", frac_cl, NTILES);
    mm_json_close(j, '}');
    mm_json_close(j, '}');
}

/* The gate's figure: the provided naive transpose's speed as a fraction of memcpy of the same
 * bytes (median of GATE_REPS paired rounds; no code of yours runs). -1 if it could not be timed. */
static double strided_fraction(buffers_t *b)
{
    transpose_arg_t na = { tv_naive_transpose2d_f32, b->src, b->dst };
    memcpy_arg_t ma = { b->ref, b->src, NELEMS * sizeof(float) };
    mm_bench_case_t base = { "memcpy", run_memcpy, &ma }, naive = { "naive", run_transpose, &na };
    double frac;
    if (mm_bench_paired_ratio(&base, &naive, WARMUP, GATE_REPS, &frac, NULL, NULL) != 0)
        return -1;
    return frac;
}

/* Skips the three metrics, saying why, if this run cannot show the effect; returns 1 then. */
static int gate_fired(mm_json_t *j, double frac)
{
    if (frac < 0)
        mm_bench_skip_all(j, METRICS, "could not time the naive strided transpose against "
                          "memcpy");
    else if (frac > STRIDED_MAX)
        mm_bench_skip_all(j, METRICS, "this run could not show the cost of strided access: the "
                          "naive strided transpose ran at %.2fx memcpy's speed (needs at most "
                          "%.2fx; a cache that holds the 128 MB, or a busy machine)", frac,
                          STRIDED_MAX);
    return frac < 0 || frac > STRIDED_MAX;
}

/* The two views, made here rather than with your part A, so that the benchmark times exactly
 * these layouts. *strided: the gate's figure. */
static void run_all(mm_json_t *j, buffers_t *b, double *strided)
{
    tv_t t = { .data = b->src, .storage_elems = (int64_t)NELEMS, .elem_size = sizeof(float),
               .ndim = 2, .shape = { COLS, ROWS }, .strides = { 1, COLS } };
    tv_t cl = { .data = b->src, .storage_elems = (int64_t)NHWC_ELEMS, .elem_size = sizeof(float),
                .ndim = 4, .shape = { N, C, H, W }, .strides = { H * W * C, 1, W * C, C } };
    size_t tile[NTILES];
    double frac[NTILES], frac_cl[NTILES];
    *strided = strided_fraction(b);
    if (!gate_fired(j, *strided)) {
        bench_contiguous(j, "contiguous_transposed", &t, b, "x.t().contiguous() of a 4000 x 4000");
        bench_contiguous(j, "contiguous_channels_last", &cl, b,
                         "(20, 256, 56, 56) stored channels last");
        bench_transpose(j, b);
    }
    int have_series = mm_bench_series_wanted() && blocking_series(b, tile, frac, frac_cl) == 0;
    mm_bench_end_metrics(j);
    if (have_series)
        write_series(j, tile, frac, frac_cl);
}

int main(void)
{
    mm_json_t j;
    mm_bench_open(&j, "03");
    double strided = -1;
    buffers_t b = { mm_aligned_alloc(4096, MAX_ELEMS * sizeof(float)),
                    mm_aligned_alloc(4096, MAX_ELEMS * sizeof(float)),
                    mm_aligned_alloc(4096, MAX_ELEMS * sizeof(float)) };
    if (!b.src || !b.dst || !b.ref) {
        mm_bench_fail_all(&j, METRICS, "out of memory (the benchmark needs 3 x 64 MB)");
        mm_bench_end_metrics(&j);
    } else {
        for (size_t i = 0; i < MAX_ELEMS; i++)
            b.src[i] = (float)i;
        memset(b.ref, 0, MAX_ELEMS * sizeof(float));
        run_all(&j, &b, &strided);
    }
    mm_json_object(&j, "info");
    mm_json_int(&j, "matrix_rows", ROWS);
    mm_json_int(&j, "matrix_cols", COLS);
    mm_json_int(&j, "bytes_per_workload", (long long)(NELEMS * sizeof(float)));
    if (strided >= 0)
        mm_json_num(&j, "strided_fraction_of_memcpy", strided);
    mm_json_end(&j);
    mm_aligned_free(b.src);
    mm_aligned_free(b.dst);
    mm_aligned_free(b.ref);
    return 0;
}
