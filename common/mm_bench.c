/* Benchmark harness, timing (see mm_bench.h): medians and the paired and gated ratios. The
 * JSON report is mm_bench_report.c's, the check for interposed C library functions
 * mm_interpose.c's. */
#include "mm_bench.h"
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include "mm_timer.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double mm_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double time_once(const mm_bench_case_t *c)
{
    uint64_t t0 = mm_now_ns();
    c->run(c->arg);
    return mm_elapsed_s(t0);
}

int mm_bench_paired_ratio(const mm_bench_case_t *base, const mm_bench_case_t *yours,
                          unsigned warmup, unsigned reps, double *ratio, double *t_base,
                          double *t_yours)
{
    if (!base || !yours || !ratio || reps == 0 || reps > MM_BENCH_MAX_REPS)
        return -EINVAL;
    double *t = calloc(3 * (size_t)reps, sizeof *t);
    if (!t)
        return -ENOMEM;
    for (unsigned w = 0; w < warmup; w++) {
        base->run(base->arg);
        yours->run(yours->arg);
    }
    for (unsigned r = 0; r < reps; r++) {
        t[r] = time_once(base);
        t[reps + r] = time_once(yours);
        t[2 * reps + r] = t[r] / t[reps + r];
    }
    *ratio = mm_median(&t[2 * reps], reps);
    if (t_base)
        *t_base = mm_median(t, reps);
    if (t_yours)
        *t_yours = mm_median(&t[reps], reps);
    free(t);
    return 0;
}

/* Medians over the counted rounds: t[0..reps) base, t[reps..) ideal, t[2 reps..) yours. */
static void gated_medians(const double *t, unsigned reps, double min_contrast, double *scratch,
                          mm_bench_gated_t *g)
{
    double *sp = scratch, *vi = scratch + reps, *tb = scratch + 2 * reps, *ty = scratch + 3 * reps;
    unsigned n = 0;
    for (unsigned r = 0; r < reps; r++) {
        if (t[r] / t[reps + r] < min_contrast)
            continue;
        sp[n] = t[r] / t[2 * reps + r];
        vi[n] = t[reps + r] / t[2 * reps + r];
        tb[n] = t[r];
        ty[n++] = t[2 * reps + r];
    }
    g->counted = n;
    if (n > 0) {
        g->speedup = mm_median(sp, n), g->vs_ideal = mm_median(vi, n);
        g->t_base = mm_median(tb, n), g->t_yours = mm_median(ty, n);
    }
    for (unsigned r = 0; r < reps; r++)
        sp[r] = t[r] / t[reps + r];
    g->contrast = mm_median(sp, reps);
}

int mm_bench_gated_ratio(const mm_bench_case_t *base, const mm_bench_case_t *ideal,
                         const mm_bench_case_t *yours, unsigned warmup, unsigned reps,
                         double min_contrast, mm_bench_gated_t *g)
{
    if (!base || !ideal || !yours || !g || reps == 0 || reps > MM_BENCH_MAX_REPS)
        return -EINVAL;
    double *t = calloc(7 * (size_t)reps, sizeof *t);
    if (!t)
        return -ENOMEM;
    *g = (mm_bench_gated_t){ 0 };
    for (unsigned w = 0; w < warmup; w++) {
        base->run(base->arg);
        ideal->run(ideal->arg);
        yours->run(yours->arg);
    }
    for (unsigned r = 0; r < reps; r++) {
        t[r] = time_once(base);
        t[reps + r] = time_once(ideal);
        t[2 * reps + r] = time_once(yours);
    }
    gated_medians(t, reps, min_contrast, t + 3 * reps, g);
    free(t);
    return 0;
}
