/* Lab 10 benchmark: your kernels against the memory roof of the same run. Every round times the
 * benchmark's own STREAM triad on one pinned core and, right after it, one of your kernels on
 * the same core over arrays 4 x the caches of that core (STREAM's rule); a kernel's figure is its
 * compulsory bytes per second (counted by the benchmark, not by your rl_cost_*) as a fraction of
 * the triad's. The median over rounds is scored (lab.toml). Then the deterministic metrics: your
 * compiled code's reductions (lanes.h) and each kernel's passes over memory (passes.h). Also
 * reported, not scored: STREAM's four rates, the FMA peak, and your roofline's prediction for
 * each kernel beside its measured time.
 *
 * Your code runs in a process of its own (calls.toml): the arrays are in memory shared with it,
 * its serving thread is pinned to the triad's core (the workload "pin"), and every call is timed
 * here, around the call (mm_call_last_ns). The triad, the gate's sum and the FMA peak run here,
 * while your process must be idle: if it used CPU then, the metrics those figures score are
 * skipped. A call's output is checked here from the benchmark's own copy of the inputs. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernels.h"
#include "lanes.h"
#include "measure.h"
#include "mm_bench.h"
#include "mm_call.h"
#include "mm_call_abi.h"
#include "mm_hw.h"
#include "mm_rng.h"
#include "mm_timer.h"
#include "passes.h"
#include "roofline.h"
#include "verify.h"
#include "../serve/rl_serve.h"

#define ROUNDS 7
/* A kernel whose timed calls have taken ROUND_BUDGET_S in all stops after MIN_ROUNDS rounds: one
 * that slow (a tenth of the triad or less) is far below every ramp, and four more rounds would
 * only add seconds per call. The reference's kernels take about 0.1 s a call. */
#define MIN_ROUNDS 3
#define ROUND_BUDGET_S 4.0
#define COLS 4096 /* a softmax / LayerNorm row, and a GEMV row: a hidden size (16 KiB) */
#define DIM 64    /* an embedding row: 256 B */
#define BAG 32    /* indices per bag */
#define GATE_MIN 0.5
#define SLACK 16  /* each call starts a random 0..SLACK rows (bags) in: no two calls see the same
                     input at the same address, so an output kept from an earlier call is wrong */
#define CHECKS 4  /* rows (bags) of each call's output checked by the benchmark */
#define MAX_CPU_OVER_WALL 1.1
/* Each of STREAM's three arrays is in the memory shared with your process, at most this much:
 * the three and the rest of the benchmark's shared buffers fit its arena. */
#define SHARED_MAX_ARRAY ((size_t)640 << 20)
_Static_assert(3 * SHARED_MAX_ARRAY + ((size_t)96 << 20) <= MM_ARENA_SIZE,
               "STREAM's arrays fit the shared memory");

enum { K_GEMV, K_SOFTMAX, K_LAYERNORM, K_GATHER, NKERNELS };

/* Everything your kernels read or write is in shared memory (mm_shared_alloc); the checks read
 * the benchmark's own copies (own_*) and b's values as ms_fill wrote them (verify.h). */
typedef struct {
    float *a, *b, *c;  /* STREAM's arrays; the kernels read b and write a */
    size_t n;          /* floats per array */
    float *x, *gamma, *beta; /* COLS floats each */
    int32_t *idx;      /* the gather's indices, (bags + SLACK) x BAG */
    float *own_x;      /* x, gamma and beta: the benchmark's copies, 3 x COLS */
    int32_t *own_idx;  /* idx: the benchmark's copy */
    size_t rows, bags; /* rows (bags) one call takes, from its random offset */
    ms_size_t size;    /* the arrays against the caches of core 0 (measure.h) */
} bufs_t;

typedef struct {
    const char *name, *metric; /* metric NULL: reported, not scored */
    double flops, bytes;       /* the benchmark's own count (roofline.h's rules) */
    double frac[ROUNDS], secs[ROUNDS];
    int rounds;                /* rounds timed (MIN_ROUNDS .. ROUNDS, see ROUND_BUDGET_S) */
    mm_idle_t triads;          /* your process during this kernel's rounds' triads */
    int rc;
    char why[200];             /* a failure that is not an error code: wrong output, threads */
} kernel_t;

static const char *const METRICS[] = { "gemv_vs_triad", "softmax_vs_triad",
                                       "layernorm_vs_triad", NULL };

/* Kernel k over the rows (bags) off .. off + used - 1 of the inputs; the output always at a. */
static int run_kernel(int k, const bufs_t *s, size_t off)
{
    const float *x = s->b + off * COLS;
    switch (k) {
    case K_GEMV: return rl_gemv(x, s->rows, COLS, s->x, s->a);
    case K_SOFTMAX: return rl_softmax(x, s->rows, COLS, s->a);
    case K_LAYERNORM: return rl_layernorm(x, s->rows, COLS, s->gamma, s->beta, 1e-5f, s->a);
    default:
        return rl_embedding_bag(s->b, s->n / DIM, DIM, s->idx + off * BAG, s->bags, BAG, s->a);
    }
}

/* The benchmark's spot check of kernel k's last output (verify.h), from its own copies of the
 * inputs: 0, 1 with *miss, or -ENOMEM. */
static int verify(int k, const bufs_t *s, size_t off, mm_rng_t *r, vf_miss_t *miss)
{
    const float *x = s->own_x, *gamma = s->own_x + COLS, *beta = s->own_x + 2 * COLS;
    switch (k) {
    case K_GEMV: return vf_gemv(off * COLS, s->rows, COLS, x, s->a, r, CHECKS, miss);
    case K_SOFTMAX: return vf_softmax(off * COLS, s->rows, COLS, s->a, r, CHECKS, miss);
    case K_LAYERNORM:
        return vf_layernorm(off * COLS, s->rows, COLS, gamma, beta, 1e-5f, s->a, r, CHECKS,
                            miss);
    default:
        return vf_embedding_bag(DIM, s->own_idx + off * BAG, s->bags, BAG, s->a, r, CHECKS,
                                miss);
    }
}

/* The four kernels with the benchmark's own counts (the contract's rules). */
static void describe(kernel_t *k, const bufs_t *s)
{
    double rows = (double)s->rows, rc = rows * COLS;
    double bags = (double)s->bags, look = bags * BAG;
    k[K_GEMV] = (kernel_t){ .name = "gemv", .metric = "gemv_vs_triad", .flops = 2 * rc,
                            .bytes = 4 * (rc + COLS + rows) };
    k[K_SOFTMAX] = (kernel_t){ .name = "softmax", .metric = "softmax_vs_triad",
                               .flops = 5 * rc + rows, .bytes = 8 * rc };
    k[K_LAYERNORM] = (kernel_t){ .name = "layernorm", .metric = "layernorm_vs_triad",
                                 .flops = 7 * rc + 7 * rows, .bytes = 4 * (2 * rc + 2 * COLS) };
    k[K_GATHER] = (kernel_t){ .name = "embedding_bag", .flops = look * DIM,
                              .bytes = 4 * (look + look * DIM + bags * DIM) };
}

/* Floats per STREAM array: ms_array_floats, held at SHARED_MAX_ARRAY (then under STREAM's rule
 * where the caches are larger than a quarter of it: s->size.below_rule says so). */
static size_t array_floats(ms_size_t *size)
{
    size_t n = ms_array_floats(1, size);
    if (n > SHARED_MAX_ARRAY / sizeof(float)) {
        n = SHARED_MAX_ARRAY / sizeof(float);
        size->bytes = SHARED_MAX_ARRAY;
    }
    size->below_rule = size->caches && 4 * size->caches > size->bytes;
    return n / COLS * COLS;
}

/* The arrays and inputs, in shared memory (the triad's too: it runs on memory of the same kind
 * as the kernels), with the benchmark's own copies of x, gamma, beta and idx. 0 or -ENOMEM. */
static int setup(bufs_t *s)
{
    s->n = array_floats(&s->size);
    s->rows = s->n / COLS - SLACK;
    size_t bytes = s->n * sizeof(float);
    /* A quarter of the table's bytes gathered per call: rows picked at random, repeats allowed. */
    s->bags = s->n / DIM / 4 / BAG - SLACK;
    size_t nidx = (s->bags + SLACK) * BAG;
    s->a = mm_shared_alloc(bytes);
    s->b = mm_shared_alloc(bytes);
    s->c = mm_shared_alloc(bytes);
    s->x = mm_shared_alloc(3 * COLS * sizeof(float));
    s->idx = mm_shared_alloc(nidx * sizeof *s->idx);
    s->own_x = malloc(3 * COLS * sizeof(float));
    s->own_idx = malloc(nidx * sizeof *s->own_idx);
    if (!s->own_x || !s->own_idx || ms_fill(s->a, s->b, s->c, s->n, 1) != 0)
        return -ENOMEM;
    s->gamma = s->x + COLS;
    s->beta = s->x + 2 * COLS;
    for (size_t j = 0; j < COLS; j++) {
        s->own_x[j] = 1.0f / (float)(j + 1);
        s->own_x[COLS + j] = 1.0f + (float)j / COLS;
        s->own_x[2 * COLS + j] = 0.5f;
    }
    mm_rng_t r = mm_rng_new(10);
    for (size_t k = 0; k < nidx; k++)
        s->own_idx[k] = (int32_t)mm_rng_range(&r, 0, s->n / DIM - 1);
    memcpy(s->x, s->own_x, 3 * COLS * sizeof(float));
    memcpy(s->idx, s->own_idx, nidx * sizeof *s->idx);
    return 0;
}

/* The benchmark's own memory (the shared arrays go with the student process). */
static void release(bufs_t *s)
{
    free(s->own_x);
    free(s->own_idx);
}


/* The triad's bytes per second, STREAM's count (12 per float index), your process watched
 * meanwhile (the idle check, into *w; NULL: the caller watches). */
static double triad_bps(const bufs_t *s, mm_idle_t *w)
{
    if (w)
        mm_idle_start(w);
    double secs = ms_stream_pass(RL_TRIAD, s->a, s->b, s->c, s->n, 1);
    if (w)
        mm_idle_stop(w);
    return secs > 0 ? 12.0 * (double)s->n / secs : 0.0;
}

/* The gate: the benchmark's own vectorized sum over b, as a fraction of the triad's bandwidth
 * (median of 3). Below GATE_MIN one core cannot outrun memory here (an emulator, a CPU starved
 * by its neighbours): no kernel can show the memory roof. */
static double gate_probe(const bufs_t *s)
{
    double f[3];
    volatile float sink = 0.0f;
    for (int r = 0; r < 3; r++) {
        double tri = triad_bps(s, NULL);
        uint64_t t0 = mm_now_ns();
        sink += ms_sum(s->b, s->n);
        double t = mm_elapsed_s(t0);
        f[r] = tri > 0 && t > 0 ? 4.0 * (double)s->n / t / tri : 0.0;
    }
    (void)sink;
    return mm_median(f, 3);
}

/* One timed call of kernel k at a random offset, checked afterwards; *secs its wall time, as
 * the harness measured it around the call. Your process's CPU time counts from the call to the
 * end of the check: a thread of yours that runs on after the call returns shows there.
 * Returns 0, or -1 with k->rc or k->why saying what went wrong. */
static int timed_call(kernel_t *k, int i, const bufs_t *s, mm_rng_t *r, double *secs)
{
    size_t off = (size_t)mm_rng_range(r, 0, SLACK);
    vf_miss_t miss;
    uint64_t cpu0 = mm_student_cpu_ns();
    k->rc = run_kernel(i, s, off);
    *secs = (double)mm_call_last_ns() / 1e9;
    if (k->rc != 0)
        return -1;
    int bad = verify(i, s, off, r, &miss);
    double cpu = (double)(mm_student_cpu_ns() - cpu0) / 1e9;
    if (bad < 0)
        snprintf(k->why, sizeof k->why, "out of memory for the benchmark's output check");
    else if (bad)
        snprintf(k->why, sizeof k->why, "rl_%s's output is wrong in its row (bag) %zu, from the "
                 "input's row %zu: %.6g, expected %.6g (the benchmark checks a few rows of every "
                 "call)", k->name, miss.row, miss.row + off, miss.got, miss.want);
    else if (cpu > MAX_CPU_OVER_WALL * *secs)
        snprintf(k->why, sizeof k->why, "rl_%s used %.1f cores (CPU time over wall time): the "
                 "contract is one thread, measured against one core's triad", k->name,
                 cpu / *secs);
    return k->why[0] ? -1 : 0;
}

/* Whether kernel k needs no more rounds: it failed, or its timed calls spent the budget
 * (ROUND_BUDGET_S) in at least MIN_ROUNDS rounds. */
static int done(const kernel_t *k)
{
    if (k->rc != 0 || k->why[0])
        return 1;
    double spent = 0;
    for (int r = 0; r < k->rounds; r++)
        spent += k->secs[r];
    return k->rounds >= MIN_ROUNDS && spent >= ROUND_BUDGET_S;
}

/* Up to ROUNDS rounds; in each, a triad then each kernel, triad again before the next. */
static void measure(kernel_t *k, const bufs_t *s, mm_rng_t *r)
{
    double secs;
    for (int i = 0; i < NKERNELS; i++)
        (void)timed_call(&k[i], i, s, r, &secs); /* the warm-up */
    for (int round = 0; round < ROUNDS; round++)
        for (int i = 0; i < NKERNELS; i++) {
            if (done(&k[i]))
                continue;
            double tri = triad_bps(s, &k[i].triads);
            if (timed_call(&k[i], i, s, r, &k[i].secs[round]) == 0) {
                k[i].frac[round] = k[i].bytes / k[i].secs[round] / tri;
                k[i].rounds = round + 1;
            }
        }
}

/* Whether kernel k has a figure to report: it ran (the gate let it), returned 0 and passed
 * its checks. */
static int measured(const kernel_t *k)
{
    return k->rc == 0 && !k->why[0] && k->rounds > 0;
}

/* The median of the first n (1 .. ROUNDS) of v. */
static double median_of(const double *v, int n)
{
    double tmp[ROUNDS];
    memcpy(tmp, v, sizeof tmp);
    return mm_median(tmp, (size_t)n);
}

static void report_metrics(mm_json_t *j, kernel_t *k, double gate, double tri_gbs,
                           const mm_idle_t *pre)
{
    char why[300];
    if (!mm_idle_ok(pre, why, sizeof why)) {
        mm_bench_skip_all(j, METRICS, "%s (STREAM's rates, the FMA peak and the gate)", why);
        return;
    }
    if (gate < GATE_MIN) {
        mm_bench_skip_all(j, METRICS,
                          "one core cannot outrun memory here: the benchmark's own vectorized sum "
                          "reached %.2f of the triad's bandwidth (needs %.1f)", gate, GATE_MIN);
        return;
    }
    for (int i = 0; i < NKERNELS; i++) {
        if (!k[i].metric)
            continue;
        if (k[i].rc != 0) {
            mm_bench_failf(j, k[i].metric, "rl_%s returned %d (%s)", k[i].name, k[i].rc,
                           strerror(k[i].rc < 0 ? -k[i].rc : EINVAL));
            continue;
        }
        if (k[i].why[0]) {
            mm_bench_fail(j, k[i].metric, k[i].why);
            continue;
        }
        if (!mm_idle_ok(&k[i].triads, why, sizeof why)) {
            mm_bench_skipf(j, k[i].metric, "%s (the triads of rl_%s's rounds)", why, k[i].name);
            continue;
        }
        double f = median_of(k[i].frac, k[i].rounds), t = median_of(k[i].secs, k[i].rounds);
        mm_bench_metricf(j, k[i].metric, f, "x triad",
                         "%.1f GB/s of compulsory traffic in %.1f ms, the triad %.1f GB/s on the "
                         "same core (medians of %d rounds, %.0f MiB counted)", f * tri_gbs, t * 1e3,
                         tri_gbs, k[i].rounds, k[i].bytes / (1 << 20));
    }
}

/* STREAM's four rates on this core, the best of 5 passes each (GB/s), into gbs[4]. */
static void stream_rates(const bufs_t *s, double *gbs)
{
    static const double arrays[4] = { 2, 2, 3, 3 };
    for (int op = RL_COPY; op <= RL_TRIAD; op++) {
        double best = INFINITY;
        for (int r = 0; r < 5; r++) {
            double t = ms_stream_pass((rl_stream_op_t)op, s->a, s->b, s->c, s->n, 1);
            best = t > 0 && t < best ? t : best;
        }
        gbs[op] = arrays[op] * 4.0 * (double)s->n / best / 1e9;
    }
}

/* The figures measured before the rounds: STREAM's rates, the FMA peak and the gate. */
typedef struct {
    double gbs[4], fma, gate;
} prelude_t;

/* The prelude's figures, your process watched meanwhile (into *w). */
static prelude_t prelude(const bufs_t *s, mm_idle_t *w)
{
    prelude_t q;
    mm_idle_start(w);
    stream_rates(s, q.gbs);
    q.fma = ms_fma_gflops(5);
    q.gate = gate_probe(s);
    mm_idle_stop(w);
    return q;
}

/* Your roofline (rl_predict_ns, with your rl_cost_*) against each kernel's measured time. */
static void report_predictions(mm_json_t *j, const kernel_t *k, const bufs_t *s,
                               const rl_roof_t *roof)
{
    rl_cost_t c[NKERNELS] = { { 0, 0 } };
    int rc[NKERNELS] = { rl_cost_gemv(s->rows, COLS, &c[K_GEMV]),
                         rl_cost_softmax(s->rows, COLS, &c[K_SOFTMAX]),
                         rl_cost_layernorm(s->rows, COLS, &c[K_LAYERNORM]),
                         rl_cost_embedding_bag(s->bags, BAG, DIM, &c[K_GATHER]) };
    for (int i = 0; i < NKERNELS; i++) {
        double ns = 0, fpb = 0;
        mm_json_object(j, k[i].name);
        mm_json_num(j, "intensity_flop_per_byte", k[i].flops / k[i].bytes);
        if (k[i].why[0])
            mm_json_str(j, "failed", k[i].why);
        if (measured(&k[i])) {
            double t = median_of(k[i].secs, k[i].rounds);
            mm_json_num(j, "measured_ms", t * 1e3);
            mm_json_num(j, "gflops", k[i].flops / t / 1e9);
            mm_json_num(j, "vs_triad", median_of(k[i].frac, k[i].rounds));
            if (rc[i] == 0 && rl_predict_ns(roof, c[i], &ns) == 0 &&
                rl_intensity(c[i], &fpb) == 0) {
                mm_json_num(j, "your_intensity", fpb);
                mm_json_num(j, "your_predicted_ms", ns / 1e6);
                mm_json_num(j, "measured_over_predicted", t * 1e9 / ns);
            } else {
                mm_json_str(j, "your_prediction", "not available: your rl_cost_* or "
                                                  "rl_predict_ns returned an error");
            }
        }
        mm_json_close(j, '}');
    }
}

/* `make plots LAB=10`: the roofline of this run and the kernels on it (GFLOP/s by FLOP/byte). */
static void report_series(mm_json_t *j, const kernel_t *k, const rl_roof_t *roof)
{
    enum { NPTS = 26 };
    double x[NPTS], y[NPTS], kx[NKERNELS], ky[NKERNELS], which[NKERNELS];
    double ridge = roof->peak_gflops / roof->peak_gbs;
    int p = 0;
    for (int q = 0; q < NPTS - 1; q++) { /* 1/64 .. 64 FLOP per byte, and the ridge, in order */
        double v = pow(2.0, -6.0 + 0.5 * q);
        if (ridge < v && p == q)
            x[p++] = ridge;
        x[p++] = v;
    }
    if (p < NPTS)
        x[p++] = ridge;
    for (p = 0; p < NPTS; p++)
        y[p] = fmin(roof->peak_gflops, roof->peak_gbs * x[p]);
    size_t nk = 0;
    for (int i = 0; i < NKERNELS; i++)
        if (measured(&k[i])) {
            which[nk] = i;
            kx[nk] = k[i].flops / k[i].bytes;
            ky[nk++] = k[i].flops / median_of(k[i].secs, k[i].rounds) / 1e9;
        }
    mm_json_object(j, "series");
    mm_json_object(j, "roofline");
    mm_json_nums(j, "flop_per_byte", x, NPTS);
    mm_json_nums(j, "gflops", y, NPTS);
    mm_json_close(j, '}');
    mm_json_object(j, "kernels");
    mm_json_nums(j, "flop_per_byte", kx, nk);
    mm_json_nums(j, "gflops", ky, nk);
    mm_json_nums(j, "which", which, nk); /* lab.toml's point_labels: gemv, softmax, ... */
    mm_json_close(j, '}');
    mm_json_close(j, '}');
}

static void report_info(mm_json_t *j, const kernel_t *k, const bufs_t *s, double gate,
                        const double *gbs, const rl_roof_t *roof, int pinned)
{
    mm_json_object(j, "info");
    if (mm_hw_pin_failed())
        mm_json_str(j, "thread_unpinned", strerror(-mm_hw_pin_failed()));
    if (pinned != 0)
        mm_json_str(j, "your_thread_unpinned", strerror(pinned < 0 ? -pinned : EINVAL));
    mm_json_num(j, "caches_mib", (double)s->size.caches / (1 << 20));
    mm_json_int(j, "array_mib", (long long)(s->n * sizeof(float) >> 20));
    if (s->size.caches)
        mm_json_num(j, "array_over_caches",
                    (double)(s->n * sizeof(float)) / (double)s->size.caches);
    if (s->size.below_rule)
        mm_json_str(j, "arrays_below_stream_rule", "each array is under 4 x the caches of the "
                    "core (STREAM's rule), held at the cap of the memory shared with your "
                    "process: a part of each pass may come from a cache");
    mm_json_num(j, "stream_copy_gbs", gbs[RL_COPY]);
    mm_json_num(j, "stream_scale_gbs", gbs[RL_SCALE]);
    mm_json_num(j, "stream_add_gbs", gbs[RL_ADD]);
    mm_json_num(j, "stream_triad_gbs", gbs[RL_TRIAD]);
    mm_json_num(j, "fma_peak_gflops", roof->peak_gflops);
    mm_json_num(j, "ridge_flop_per_byte", roof->peak_gflops / roof->peak_gbs);
    mm_json_num(j, "gate_sum_vs_triad", gate);
    report_predictions(j, k, s, roof);
    mm_json_close(j, '}');
}

/* Your process's serving thread on core 0, where the triad runs: 0 or -errno. */
static int pin_student(void)
{
    rl_pin_in_t q = { 0 };
    return mm_call_work("pin", &q, sizeof q, NULL, 0);
}

int main(void)
{
    int started = mm_call_setup();
    if (started != 0) {
        fprintf(stderr, "mlmem: cannot start the program that runs your code: %s\n",
                strerror(-started));
        return 2;
    }
    mm_json_t j;
    bufs_t s = { 0 };
    kernel_t k[NKERNELS];
    mm_idle_t pre = { 0, 0, 0, 0 };
    mm_bench_open(&j, "10");
    sl_report(&j); /* before any of your code runs */
    mm_hw_try_pin(0);
    if (setup(&s) != 0) {
        mm_bench_fail_all(&j, METRICS, "out of memory for the arrays (%zu MiB each)",
                          s.n * sizeof(float) >> 20);
        ps_report(&j);
        mm_bench_end_metrics(&j);
        mm_json_end(&j);
        release(&s);
        return 0;
    }
    int pinned = pin_student();
    describe(k, &s);
    mm_rng_t r = mm_rng_new(mm_now_ns()); /* which rows are checked: not known in advance */
    prelude_t q = prelude(&s, &pre);
    rl_roof_t roof = { q.fma, q.gbs[RL_TRIAD] };
    if (q.gate >= GATE_MIN)
        measure(k, &s, &r);
    report_metrics(&j, k, q.gate, q.gbs[RL_TRIAD], &pre);
    ps_report(&j);
    mm_bench_end_metrics(&j);
    if (q.gate >= GATE_MIN)
        report_series(&j, k, &roof);
    report_info(&j, k, &s, q.gate, q.gbs, &roof, pinned);
    mm_json_end(&j);
    release(&s);
    return 0;
}
