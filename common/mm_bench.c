/* Benchmark harness (see mm_bench.h). */
#include "mm_bench.h"
#include <errno.h>
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

FILE *mm_bench_output(void)
{
    const char *path = getenv("MLMEM_BENCH_JSON");
    FILE *f = path && *path ? fopen(path, "w") : NULL;
    return f ? f : stdout;
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

void mm_bench_begin(mm_json_t *j, const char *lab)
{
    mm_json_str(j, "lab", lab);
    mm_json_object(j, "metrics");
}

void mm_bench_metric(mm_json_t *j, const char *name, double value, const char *unit,
                     const char *detail)
{
    mm_json_object(j, name);
    mm_json_num(j, "value", value);
    mm_json_str(j, "unit", unit);
    mm_json_str(j, "detail", detail);
    mm_json_close(j, '}');
}

void mm_bench_speedup(mm_json_t *j, const char *name, double ratio, const char *base_name,
                      double t_base, double t_yours, unsigned reps, const char *workload)
{
    char detail[256];
    snprintf(detail, sizeof detail, "%s %.1f ms, yours %.1f ms (medians of %u rounds, %s)",
             base_name, t_base * 1e3, t_yours * 1e3, reps, workload);
    mm_bench_metric(j, name, ratio, "x", detail);
}

static void metric_note(mm_json_t *j, const char *name, const char *key, const char *text)
{
    mm_json_object(j, name);
    mm_json_str(j, key, text);
    mm_json_close(j, '}');
}

void mm_bench_skip(mm_json_t *j, const char *name, const char *reason)
{
    metric_note(j, name, "skipped", reason);
}

void mm_bench_fail(mm_json_t *j, const char *name, const char *why)
{
    metric_note(j, name, "error", why);
}

void mm_bench_end_metrics(mm_json_t *j)
{
    mm_json_close(j, '}');
}
