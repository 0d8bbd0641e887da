/* Lab 03 benchmark: your contiguous() of a transposed matrix and of a channels-last activation
 * as a fraction of memcpy's bandwidth, and your blocked transpose against the naive strided loop
 * of src/baseline.c, all measured in the same run.
 * Your code runs in its own process (calls.toml): each of its timed runs is one call, timed here
 * around the call (mm_call_last_ns), on buffers in memory shared with it. memcpy and the naive
 * loop run here, on the same buffers, while your process must be idle (its CPU time is read
 * before and after each of their runs). Every output is checked against the values the source
 * was filled with (element k is k), never against the shared source itself; and each timed call
 * is given new values at random places first, which it must copy (probes_t).
 * Prints one JSON object (common/mm_bench.h); the grader scores it with lab.toml's thresholds. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "../serve/batch.h"
#include "baseline.h"
#include "copy.h"
#include "mm_bench.h"
#include "mm_call.h"
#include "mm_rng.h"
#include "mm_timer.h"
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

/* CPU time your process may use while a baseline runs here: 2 ms and 1% of the baseline's time
 * (reading /proc and waking up cost a little; a thread of yours that runs alongside costs all). */
#define IDLE_NS 2000000.0
#define IDLE_FRACTION 0.01

typedef struct {
    float *src, *dst, *ref; /* shared: the storage, your output, the baselines' output */
} buffers_t;

/* Fresh values for every timed call of yours, so that none can answer from an earlier one:
 * before it, PROBES elements of the output drawn at random get a value no copy gives (POISON)
 * and their source elements new ones (negative: never a storage element's own); after it, each
 * must hold its new value, and the source and the output are put back as they were. */
#define PROBES 1024
#define POISON (-0.5f)
typedef struct {
    const tv_t *v;      /* the output is v's elements in order, the source its storage */
    float *src, *dst;   /* shared */
    int64_t n;          /* v's elements */
    int64_t at[PROBES], off[PROBES]; /* each probe's output index and storage element */
    mm_rng_t rng;
    uint64_t calls;
    int64_t bad;        /* the first output element a timed call left wrong, or -1 */
} probes_t;

/* One side of a paired round: baseline code run here, or one call into your process. */
typedef struct {
    void (*here)(void *arg);
    int (*yours)(void *arg); /* returns the call's result (0: success) */
    void *arg;
    probes_t *probe;         /* a call of yours with probes, or NULL */
} side_t;

/* v's elements: the product of its shape. */
static int64_t elements(const tv_t *v)
{
    int64_t n = 1;
    for (unsigned k = 0; k < v->ndim; k++)
        n *= v->shape[k];
    return n;
}

/* The storage element of v's element e (row-major order of its shape). */
static int64_t storage_of(const tv_t *v, int64_t e)
{
    int64_t off = v->offset;
    for (unsigned k = v->ndim; k-- > 0;) {
        off += e % v->shape[k] * v->strides[k];
        e /= v->shape[k];
    }
    return off;
}

static float probe_value(const probes_t *p, int k)
{
    return -1.0f - (float)((p->calls * PROBES + (uint64_t)k) % (1u << 23));
}

static void probes_set(probes_t *p)
{
    for (int k = 0; k < PROBES; k++) {
        int64_t e = (int64_t)mm_rng_range(&p->rng, 0, (uint64_t)p->n - 1);
        while (p->dst[e] == POISON) /* drawn already in this call */
            e = (e + 1) % p->n;
        p->at[k] = e, p->off[k] = storage_of(p->v, e);
        p->dst[e] = POISON;
        p->src[p->off[k]] = probe_value(p, k);
    }
}

static void probes_check(probes_t *p)
{
    for (int k = 0; k < PROBES; k++) {
        if (p->bad < 0 && p->dst[p->at[k]] != probe_value(p, k))
            p->bad = p->at[k];
        p->src[p->off[k]] = (float)p->off[k];
        p->dst[p->at[k]] = (float)p->off[k];
    }
    p->calls++;
}

/* What paired() measured. */
typedef struct {
    double ratio;         /* median over rounds of t_base / t_yours */
    double t_base, t_yours; /* medians, seconds */
    int rc;               /* the first failing result of a call of yours, else 0 */
    double busy_ms;       /* the most CPU time your process used during one baseline run */
    int busy;             /* it used more than IDLE_NS + IDLE_FRACTION of that run */
} paired_t;

/* Runs s once: its time in seconds (a call of yours: the harness's time around the call). */
static double time_side(const side_t *s, paired_t *p)
{
    if (s->yours) {
        if (s->probe)
            probes_set(s->probe);
        int rc = s->yours(s->arg);
        double t = (double)mm_call_last_ns() * 1e-9;
        if (rc != 0 && p->rc == 0)
            p->rc = rc;
        if (s->probe)
            probes_check(s->probe);
        return t;
    }
    uint64_t c0 = mm_student_cpu_ns(), t0 = mm_now_ns();
    s->here(s->arg);
    double t = mm_elapsed_s(t0);
    uint64_t used = mm_student_cpu_ns() - c0; /* a thread that ended wraps: counted as busy */
    if ((double)used > IDLE_NS + IDLE_FRACTION * t * 1e9)
        p->busy = 1;
    if ((double)used * 1e-6 > p->busy_ms)
        p->busy_ms = (double)used * 1e-6;
    return t;
}

/* base then yours in each of `reps` rounds (after `warmup`), as mm_bench_paired_ratio does:
 * both sides of each ratio see the same machine load. Returns 0, or -EINVAL / -ENOMEM. */
static int paired(const side_t *base, const side_t *yours, unsigned warmup, unsigned reps,
                  paired_t *p)
{
    double t[3 * MM_BENCH_MAX_REPS];
    memset(p, 0, sizeof *p);
    if (reps == 0 || reps > MM_BENCH_MAX_REPS)
        return -EINVAL;
    for (unsigned w = 0; w < warmup; w++) {
        time_side(base, p);
        time_side(yours, p);
    }
    for (unsigned r = 0; r < reps; r++) {
        t[r] = time_side(base, p);
        t[reps + r] = time_side(yours, p);
        t[2 * reps + r] = t[reps + r] > 0 ? t[r] / t[reps + r] : 0;
    }
    p->ratio = mm_median(&t[2 * reps], reps);
    p->t_base = mm_median(t, reps);
    p->t_yours = mm_median(&t[reps], reps);
    return 0;
}

typedef struct {
    void *dst;
    const void *src;
    size_t bytes;
} memcpy_arg_t;

static void run_memcpy(void *p)
{
    memcpy_arg_t *a = p;
    memcpy(a->dst, a->src, a->bytes);
}

typedef struct {
    const tv_t *v;
    void *dst;
    size_t bytes;
} contig_arg_t;

static int call_contiguous(void *p)
{
    contig_arg_t *a = p;
    return tv_contiguous(a->v, a->dst, a->bytes);
}

/* Index of the first element of out (v's elements, in order) that is wrong, or -1: the
 * benchmark's own odometer walk over v, whose storage element k is k. */
static int64_t first_wrong(const tv_t *v, const float *out)
{
    int64_t idx[TV_MAX_DIMS] = { 0 }, n = elements(v);
    for (int64_t e = 0; e < n; e++) {
        int64_t off = v->offset;
        for (unsigned k = 0; k < v->ndim; k++)
            off += idx[k] * v->strides[k];
        if (out[e] != (float)off)
            return e;
        for (unsigned k = v->ndim; k-- > 0 && ++idx[k] == v->shape[k];)
            idx[k] = 0;
    }
    return -1;
}

/* Fails or skips `name` if p says so (a call of yours failed, your process ran during a
 * baseline); returns 1 then. */
static int refused(mm_json_t *j, const char *name, const char *fn, const paired_t *p)
{
    if (p->rc != 0)
        mm_bench_failf(j, name, "%s failed: %s", fn, strerror(p->rc < 0 ? -p->rc : p->rc));
    else if (p->busy)
        mm_bench_skipf(j, name, "your process ran while the baseline was measured (%.1f ms of "
                       "CPU time during one run): not scored", p->busy_ms);
    return p->rc != 0 || p->busy;
}

/* contiguous() of v vs memcpy of as many bytes: paired rounds, median of t_memcpy / t_yours. */
static void bench_contiguous(mm_json_t *j, const char *name, const tv_t *v, buffers_t *b,
                             const char *what)
{
    size_t bytes = (size_t)v->storage_elems * sizeof(float); /* views of their whole storage */
    contig_arg_t ca = { v, b->dst, bytes };
    memcpy_arg_t ma = { b->ref, b->src, bytes };
    probes_t probe = { v, b->src, b->dst, elements(v), { 0 }, { 0 }, mm_rng_new(3), 0, -1 };
    side_t base = { run_memcpy, NULL, &ma, NULL };
    side_t yours = { NULL, call_contiguous, &ca, &probe };
    paired_t p;
    memset(b->dst, 0, bytes);
    if (paired(&base, &yours, WARMUP, REPS, &p) != 0) {
        mm_bench_fail(j, name, "timing failed");
        return;
    }
    if (refused(j, name, "tv_contiguous", &p))
        return;
    int64_t bad = first_wrong(v, b->dst);
    if (probe.bad >= 0)
        mm_bench_failf(j, name, "a timed call of tv_contiguous left element %lld, given a new "
                       "value just before it, unwritten: every call must copy its whole view "
                       "(%s)", (long long)probe.bad, what);
    else if (bad >= 0)
        mm_bench_failf(j, name, "tv_contiguous wrote a wrong element %lld (%s)", (long long)bad,
                       what);
    else
        mm_bench_metricf(j, name, p.ratio, "x memcpy", "memcpy %.1f ms (%.1f GB/s), yours %.1f "
                         "ms (%.1f GB/s); medians of %d rounds, %s", p.t_base * 1e3,
                         (double)bytes / p.t_base * 1e-9, p.t_yours * 1e3,
                         (double)bytes / p.t_yours * 1e-9, REPS, what);
}

typedef struct {
    const float *src;
    float *dst;
    size_t tile; /* 0: tv_transpose2d_f32 */
} transpose_arg_t;

static void run_naive(void *p)
{
    transpose_arg_t *a = p;
    tv_naive_transpose2d_f32(a->src, ROWS, COLS, COLS, a->dst, ROWS);
}

static int call_transpose(void *p)
{
    transpose_arg_t *a = p;
    return a->tile ? tv_transpose2d_f32_tiled(a->src, ROWS, COLS, COLS, a->dst, ROWS, a->tile)
                   : tv_transpose2d_f32(a->src, ROWS, COLS, COLS, a->dst, ROWS);
}

/* Index of the first wrong element of dst = src^T (ROWS x COLS, source element k is k), or -1. */
static int64_t transpose_wrong(const float *dst)
{
    for (size_t j = 0; j < COLS; j++)
        for (size_t i = 0; i < ROWS; i++)
            if (dst[j * ROWS + i] != (float)(i * COLS + j))
                return (int64_t)(j * ROWS + i);
    return -1;
}

/* t: the transposed matrix as a view (dst is its elements in order). */
static void bench_transpose(mm_json_t *j, buffers_t *b, const tv_t *t)
{
    transpose_arg_t na = { b->src, b->ref, 0 }, ya = { b->src, b->dst, 0 };
    probes_t probe = { t, b->src, b->dst, elements(t), { 0 }, { 0 }, mm_rng_new(4), 0, -1 };
    side_t base = { run_naive, NULL, &na, NULL }, yours = { NULL, call_transpose, &ya, &probe };
    paired_t p;
    memset(b->dst, 0, NELEMS * sizeof(float));
    if (paired(&base, &yours, WARMUP, REPS, &p) != 0)
        mm_bench_fail(j, "transpose_speedup", "timing failed");
    else if (refused(j, "transpose_speedup", "tv_transpose2d_f32", &p))
        return;
    else if (probe.bad >= 0)
        mm_bench_failf(j, "transpose_speedup", "a timed call of tv_transpose2d_f32 left element "
                       "%lld, given a new value just before it, unwritten: every call must "
                       "transpose the whole matrix", (long long)probe.bad);
    else if (transpose_wrong(b->dst) >= 0)
        mm_bench_fail(j, "transpose_speedup", "tv_transpose2d_f32 wrote a wrong element");
    else
        mm_bench_speedup(j, "transpose_speedup", p.ratio, "naive strided loop", p.t_base,
                         p.t_yours, REPS, "%d x %d float32", ROWS, COLS);
}

#define NTILES 11 /* 1, 2, 4, ..., 1024 */

/* The channels-last case as contiguous() does it: per image, the (H*W) x C matrix (rows
 * 1 KiB apart) transposed into C x (H*W), all N in one call (serve/batch.c). */
static int call_tiled_cl(void *p)
{
    transpose_arg_t *a = p;
    tv_batch_t q = { (uintptr_t)a->src, (uintptr_t)a->dst, H * W, C, C, H * W, a->tile, N,
                     H * W * C, C * H * W };
    return mm_call_work("transpose_batch", &q, sizeof q, NULL, 0);
}

/* The `blocking` series (about half of the benchmark's time: measured only on the runs whose
 * series is drawn): each tile size's time, as a fraction of memcpy's in the same round,
 * on both graded shapes: the 4000 x 4000 matrix (frac) and the channels-last one (frac_cl).
 * Returns 0, or -1 (no series) if a call failed or your process ran during memcpy. */
static int blocking_series(buffers_t *b, size_t *tile, double *frac, double *frac_cl)
{
    memcpy_arg_t ma = { b->ref, b->src, NELEMS * sizeof(float) };
    memcpy_arg_t mc = { b->ref, b->src, NHWC_ELEMS * sizeof(float) };
    side_t base = { run_memcpy, NULL, &ma, NULL }, base_cl = { run_memcpy, NULL, &mc, NULL };
    for (int t = 0; t < NTILES; t++) {
        transpose_arg_t ta = { b->src, b->dst, (size_t)1 << t };
        side_t yours = { NULL, call_transpose, &ta, NULL };
        side_t cl = { NULL, call_tiled_cl, &ta, NULL };
        paired_t p, pc;
        tile[t] = ta.tile;
        if (paired(&base, &yours, 0, 5, &p) != 0 || paired(&base_cl, &cl, 0, 5, &pc) != 0 ||
            p.rc || p.busy || pc.rc || pc.busy)
            return -1;
        frac[t] = p.ratio, frac_cl[t] = pc.ratio;
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
 * bytes (median of GATE_REPS paired rounds; no code of yours runs, and your process must be
 * idle). -1 if it could not be timed, -2 if your process ran meanwhile. */
static double strided_fraction(buffers_t *b)
{
    transpose_arg_t na = { b->src, b->dst, 0 };
    memcpy_arg_t ma = { b->ref, b->src, NELEMS * sizeof(float) };
    side_t base = { run_memcpy, NULL, &ma, NULL }, naive = { run_naive, NULL, &na, NULL };
    paired_t p;
    if (paired(&base, &naive, WARMUP, GATE_REPS, &p) != 0)
        return -1;
    return p.busy ? -2 : p.ratio;
}

/* Skips the three metrics, saying why, if this run cannot show the effect; returns 1 then. */
static int gate_fired(mm_json_t *j, double frac)
{
    if (frac == -2)
        mm_bench_skip_all(j, METRICS, "your process ran while the naive strided transpose was "
                          "timed against memcpy: not scored");
    else if (frac < 0)
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
        bench_transpose(j, b, &t);
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
    int rc = mm_call_setup();
    if (rc < 0) {
        mm_bench_fail_all(&j, METRICS, "cannot start the program that runs your code: %s",
                          strerror(-rc));
        mm_bench_end_metrics(&j);
    } else {
        buffers_t b = { mm_shared_alloc(MAX_ELEMS * sizeof(float)),
                        mm_shared_alloc(MAX_ELEMS * sizeof(float)),
                        mm_shared_alloc(MAX_ELEMS * sizeof(float)) };
        for (size_t i = 0; i < MAX_ELEMS; i++)
            b.src[i] = (float)i;
        run_all(&j, &b, &strided);
    }
    mm_json_object(&j, "info");
    mm_json_int(&j, "matrix_rows", ROWS);
    mm_json_int(&j, "matrix_cols", COLS);
    mm_json_int(&j, "bytes_per_workload", (long long)(NELEMS * sizeof(float)));
    if (strided >= 0)
        mm_json_num(&j, "strided_fraction_of_memcpy", strided);
    mm_json_end(&j);
    mm_student_stop();
    return 0;
}
