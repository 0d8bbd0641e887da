/* Lab 01 benchmark: your padded counters and parallel statistics against the packed baselines,
 * measured in the same run with two threads on two cores, and your line-size experiment.
 * Prints one JSON object (common/mm_bench.h); the grader scores it with lab.toml's thresholds. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "baseline.h"
#include "counters.h"
#include "linesize.h"
#include "mm_aligned.h"
#include "mm_bench.h"
#include "mm_hw.h"
#include "mm_rng.h"
#include "stats.h"

#define INCREMENTS 2000000ull /* atomic increments per thread, per repetition */
#define SAMPLES (8u << 20)     /* floats in the statistics stream */
#define REPS 25
#define WARMUP 1
/* Below this packed-vs-ideal speed-up the run cannot show false sharing (seen on a 2-vCPU VM:
 * for whole runs the host, or other work on the machine, takes the contrast away), so the three
 * metrics are skipped, not scored. */
#define OBSERVABLE 2.8
#define WORKERS 2

typedef struct {
    uint64_t *slot[WORKERS];
} counters_case_t;

typedef struct {
    uint64_t *slot;
    unsigned core;
} bump_arg_t;

/* A worker bumping its own counter, atomically, as a counter that a monitoring thread may read
 * at any time must be: every increment needs the line in this core's cache, exclusively. */
static void *bump(void *p)
{
    bump_arg_t *a = p;
    mm_hw_pin_to_core(a->core);
    for (uint64_t i = 0; i < INCREMENTS; i++)
        __atomic_fetch_add(a->slot, 1, __ATOMIC_RELAXED);
    return NULL;
}

/* One repetition: each worker hammers its own slot. */
static void run_counters(void *p)
{
    counters_case_t *c = p;
    pthread_t t[WORKERS];
    bump_arg_t a[WORKERS];
    for (unsigned w = 0; w < WORKERS; w++) {
        a[w] = (bump_arg_t){ c->slot[w], w };
        if (pthread_create(&t[w], NULL, bump, &a[w]) != 0)
            abort();
    }
    for (unsigned w = 0; w < WORKERS; w++)
        pthread_join(t[w], NULL);
}

/* The packed-vs-ideal speed-up this run can show: the bench's own atomic counters 8 B apart
 * (one line) against 256 B apart, on one page. 0 if it could not be measured. */
static double observable_speedup(void)
{
    uint64_t *page = mm_aligned_alloc(4096, 4096);
    if (!page)
        return 0;
    memset(page, 0, 4096);
    counters_case_t near = { { &page[0], &page[1] } }, far = { { &page[0], &page[32] } };
    mm_bench_case_t cn = { "packed", run_counters, &near }, cf = { "ideal", run_counters, &far };
    double ratio = 0;
    if (mm_bench_paired_ratio(&cn, &cf, WARMUP, REPS, &ratio, NULL, NULL) != 0)
        ratio = 0;
    mm_aligned_free(page);
    return ratio;
}

/* `closed`: why this run cannot show false sharing (the metric is skipped), or NULL. */
static void bench_counters(mm_json_t *j, const char *closed)
{
    cl_counters_t *mine = NULL;
    int rc = cl_counters_create(&mine, WORKERS, cl_line_size());
    uint64_t *packed = cl_packed_counters_create(WORKERS);
    if (rc != 0 || !packed) {
        char why[128];
        snprintf(why, sizeof why, "cl_counters_create failed: %s", strerror(rc < 0 ? -rc : ENOMEM));
        mm_bench_fail(j, "counters_speedup", why);
        cl_packed_counters_destroy(packed);
        return;
    }
    counters_case_t base = { { &packed[0], &packed[1] } };
    counters_case_t yours = { { cl_counters_slot(mine, 0), cl_counters_slot(mine, 1) } };
    mm_bench_case_t cb = { "packed", run_counters, &base }, cy = { "yours", run_counters, &yours };
    double ratio, tb, ty;
    uint64_t expect = (uint64_t)WORKERS * INCREMENTS * (REPS + WARMUP);
    if (closed) {
        mm_bench_skip(j, "counters_speedup", closed);
    } else if (!yours.slot[0] || !yours.slot[1]) {
        mm_bench_fail(j, "counters_speedup", "cl_counters_slot returned NULL");
    } else if (mm_bench_paired_ratio(&cb, &cy, WARMUP, REPS, &ratio, &tb, &ty) != 0 ||
               cl_counters_total(mine) != expect) {
        mm_bench_fail(j, "counters_speedup", "cl_counters_total is wrong after the run");
    } else {
        char what[64];
        snprintf(what, sizeof what, "%d x %llu atomic increments", WORKERS, INCREMENTS);
        mm_bench_speedup(j, "counters_speedup", ratio, "packed", tb, ty, REPS, what);
    }
    cl_counters_destroy(mine);
    cl_packed_counters_destroy(packed);
}

typedef struct {
    void (*add)(cl_accum_t *, unsigned, float);
    cl_accum_t *acc;
    const float *x;
} stats_case_t;

typedef struct {
    const stats_case_t *c;
    unsigned w;
} feed_arg_t;

/* A worker: every sample it decodes goes into its partial, one call per sample. */
static void *feed(void *p)
{
    feed_arg_t *f = p;
    mm_hw_pin_to_core(f->w);
    size_t lo = (size_t)SAMPLES * f->w / WORKERS, hi = (size_t)SAMPLES * (f->w + 1) / WORKERS;
    for (size_t i = lo; i < hi; i++)
        f->c->add(f->c->acc, f->w, f->c->x[i]);
    return NULL;
}

static void run_stats(void *p)
{
    pthread_t t[WORKERS];
    feed_arg_t f[WORKERS];
    for (unsigned w = 0; w < WORKERS; w++) {
        f[w] = (feed_arg_t){ p, w };
        if (pthread_create(&t[w], NULL, feed, &f[w]) != 0)
            abort();
    }
    for (unsigned w = 0; w < WORKERS; w++)
        pthread_join(t[w], NULL);
}

static void bench_stats(mm_json_t *j, const char *closed)
{
    if (closed) {
        mm_bench_skip(j, "stats_speedup", closed);
        return;
    }
    float *x = malloc(SAMPLES * sizeof *x);
    cl_accum_t *mine = NULL, *packed = NULL;
    int rc = cl_accum_create(&mine, WORKERS, mm_hw_line_size());
    if (!x || cl_packed_accum_create(&packed, WORKERS, 64) != 0 || rc != 0) {
        char why[128];
        snprintf(why, sizeof why, "cl_accum_create failed: %s", strerror(rc ? -rc : ENOMEM));
        mm_bench_fail(j, "stats_speedup", why);
    } else {
        mm_rng_t r = mm_rng_new(1);
        for (size_t i = 0; i < SAMPLES; i++)
            x[i] = (float)mm_rng_unit(&r);
        stats_case_t base = { cl_packed_accum_add, packed, x }, yours = { cl_accum_add, mine, x };
        mm_bench_case_t cb = { "packed", run_stats, &base }, cy = { "yours", run_stats, &yours };
        double ratio, tb, ty;
        cl_stats_t want, got;
        int timed = mm_bench_paired_ratio(&cb, &cy, WARMUP, REPS, &ratio, &tb, &ty);
        cl_packed_accum_result(packed, &want);
        if (timed != 0 || cl_accum_result(mine, &got) != 0 || got.count != want.count ||
            got.min != want.min || got.max != want.max) {
            mm_bench_fail(j, "stats_speedup", "your accumulator's result differs from the baseline's");
        } else {
            char what[64];
            snprintf(what, sizeof what, "%u samples over %d workers", SAMPLES, WORKERS);
            mm_bench_speedup(j, "stats_speedup", ratio, "packed partials", tb, ty, REPS, what);
        }
    }
    cl_accum_destroy(mine);
    cl_packed_accum_destroy(packed);
    free(x);
}

#define NDIST 8  /* 8 .. 1024 bytes */
#define SWEEPS 5 /* each distance: median of this many sweeps */

typedef struct {
    size_t dist[NDIST];
    double ns[NDIST]; /* each distance's median over SWEEPS sweeps */
} sweep_t;

/* Runs your cl_sweep SWEEPS times. Returns 0, or the error of the first sweep that failed. */
static int run_sweeps(sweep_t *s)
{
    double runs[SWEEPS][NDIST], col[SWEEPS];
    for (int i = 0; i < NDIST; i++)
        s->dist[i] = (size_t)8 << i;
    for (int k = 0; k < SWEEPS; k++) {
        int rc = cl_sweep(s->dist, NDIST, 4000000, runs[k]);
        if (rc != 0)
            return rc < 0 ? rc : -EIO;
    }
    for (int i = 0; i < NDIST; i++) {
        for (int k = 0; k < SWEEPS; k++)
            col[k] = runs[k][i];
        s->ns[i] = mm_median(col, SWEEPS);
    }
    return 0;
}

/* "slowdowns vs 1024 B: 8 B 3.10, 16 B 3.05, ..., 512 B 1.00" into buf. */
static void describe_sweep(const sweep_t *s, char *buf, size_t n)
{
    size_t used = (size_t)snprintf(buf, n, "slowdowns vs %zu B:", s->dist[NDIST - 1]);
    for (int i = 0; i < NDIST - 1 && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s %zu B %.2f", i ? "," : "", s->dist[i],
                                 s->ns[i] / s->ns[NDIST - 1]);
}

/* Full credit for hwloc's line, and for twice it: the aligned pair of lines that an adjacent-line
 * prefetcher makes interfere (why folly pads to 128 B on x86-64). */
static void score_line(mm_json_t *j, size_t line, const char *sweep)
{
    size_t hw = mm_hw_line_size();
    char d[512];
    if (line == 2 * hw)
        snprintf(d, sizeof d, "%zu B: twice hwloc's %zu B line, the pair-of-lines interference "
                 "size an adjacent-line prefetcher gives; %s", line, hw, sweep);
    else
        snprintf(d, sizeof d, "your sweep says %zu B; hwloc says %zu B; %s", line, hw, sweep);
    mm_bench_metric(j, "line_size_found", line == hw || line == 2 * hw ? 1.0 : 0.0, "match", d);
}

/* Runs your sweep (into *s, for the plot, even when the metric is skipped or fails) and scores
 * your inference on it. Returns 1 if *s holds a sweep. */
static int bench_linesize(mm_json_t *j, const char *closed, sweep_t *s)
{
    char sweep[200], d[512];
    int rc = run_sweeps(s);
    if (rc != 0) {
        snprintf(d, sizeof d, "cl_sweep failed: %s", strerror(-rc));
        mm_bench_fail(j, "line_size_found", d);
        return 0;
    }
    describe_sweep(s, sweep, sizeof sweep);
    size_t line = 0;
    if (closed) {
        snprintf(d, sizeof d, "%s; your sweep's %s", closed, sweep);
        mm_bench_skip(j, "line_size_found", d);
    } else if ((rc = cl_infer_line_size(s->dist, s->ns, NDIST, &line)) != 0) {
        /* the question first: the score table shows the first 200 characters */
        snprintf(d, sizeof d, "cl_infer_line_size failed: %s%s; your sweep's %s", strerror(-rc),
                 rc == -ENODATA ? " (is each add an atomic read-modify-write?)" : "", sweep);
        mm_bench_fail(j, "line_size_found", d);
    } else {
        score_line(j, line, sweep);
    }
    return 1;
}

static void write_series(mm_json_t *j, const sweep_t *s)
{
    double dist[NDIST], slowdown[NDIST];
    for (int i = 0; i < NDIST; i++) {
        dist[i] = (double)s->dist[i];
        slowdown[i] = s->ns[i] / s->ns[NDIST - 1];
    }
    mm_json_object(j, "series");
    mm_json_object(j, "linesize_sweep");
    mm_json_nums(j, "distance_bytes", dist, NDIST);
    mm_json_nums(j, "slowdown", slowdown, NDIST);
    mm_json_close(j, '}');
    mm_json_close(j, '}');
}

/* The three metrics, on a machine with two cores, scored only where the bench's own counters show
 * false sharing (*ideal: their speed-up); the sweep runs either way. The shortest measurements
 * come first, nearest the check. Returns 1 if *s has a sweep. */
static int bench_two_cores(mm_json_t *j, sweep_t *s, double *ideal)
{
    char why[200];
    *ideal = observable_speedup();
    snprintf(why, sizeof why, "this run could not show false sharing: counters 256 B apart ran "
             "only %.2fx faster than packed ones (needs %.1fx); rerun on an idle machine", *ideal,
             OBSERVABLE);
    const char *closed = *ideal < OBSERVABLE ? why : NULL;
    bench_counters(j, closed);
    int have = bench_linesize(j, closed, s);
    bench_stats(j, closed);
    return have;
}

int main(void)
{
    mm_json_t j;
    mm_json_begin(&j, mm_bench_output());
    mm_bench_begin(&j, "01");
    sweep_t sweep;
    int have_sweep = 0;
    double ideal = -1;
    if (mm_hw_cores() < WORKERS) {
        const char *why = "needs 2 cores: false sharing needs two writers running at once";
        mm_bench_skip(&j, "counters_speedup", why);
        mm_bench_skip(&j, "stats_speedup", why);
        mm_bench_skip(&j, "line_size_found", why);
    } else {
        have_sweep = bench_two_cores(&j, &sweep, &ideal);
    }
    mm_bench_end_metrics(&j);
    if (have_sweep)
        write_series(&j, &sweep);
    mm_json_object(&j, "info");
    mm_json_int(&j, "cores", mm_hw_cores());
    if (ideal >= 0)
        mm_json_num(&j, "observable_speedup", ideal);
    mm_json_int(&j, "line_size_hwloc", (long long)mm_hw_line_size());
    mm_json_end(&j);
    return 0;
}
