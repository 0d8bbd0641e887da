/* Lab 10 benchmark: each scored kernel's passes over memory, counted (see passes.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "kernels.h"
#include "pagetrace.h"
#include "passes.h"
#include "verify.h"

#define CHECKS 4

enum { P_GEMV, P_SOFTMAX, P_LAYERNORM, NKERNELS };

typedef struct {
    const char *kernel, *metric, *traced;
    int regions; /* 1: the input alone (GEMV's A); 2: the input and the output */
} spec_t;

static const spec_t SPECS[NKERNELS] = {
    { "gemv", "gemv_passes", "A", 1 },
    { "softmax", "softmax_passes", "x and y", 2 },
    { "layernorm", "layernorm_passes", "x and y", 2 },
};

typedef struct {
    float *x, *y;               /* PS_ROWS x PS_COLS each, page-aligned: the traced tensors */
    float *vec, *gamma, *beta;  /* PS_COLS each, not traced: they stay in cache */
    size_t bytes;
} tensors_t;

static int call(int k, const tensors_t *t)
{
    switch (k) {
    case P_GEMV: return rl_gemv(t->x, PS_ROWS, PS_COLS, t->vec, t->y);
    case P_SOFTMAX: return rl_softmax(t->x, PS_ROWS, PS_COLS, t->y);
    default: return rl_layernorm(t->x, PS_ROWS, PS_COLS, t->gamma, t->beta, 1e-5f, t->y);
    }
}

static int check(int k, const tensors_t *t, vf_miss_t *miss)
{
    mm_rng_t r = mm_rng_new(10u + (unsigned)k);
    switch (k) {
    case P_GEMV: return vf_gemv(t->x, PS_ROWS, PS_COLS, t->vec, t->y, &r, CHECKS, miss);
    case P_SOFTMAX: return vf_softmax(t->x, PS_ROWS, PS_COLS, t->y, &r, CHECKS, miss);
    default:
        return vf_layernorm(t->x, PS_ROWS, PS_COLS, t->gamma, t->beta, 1e-5f, t->y, &r, CHECKS,
                            miss);
    }
}

/* Why kernel k's traced run does not count (a failure for the metric), or NULL. */
static const char *judge(int k, int rc, const tensors_t *t, const pt_stats_t *st, char *why,
                         size_t cap)
{
    vf_miss_t miss;
    int bad;
    if (rc != 0)
        snprintf(why, cap, "rl_%s returned %d (%s)", SPECS[k].kernel, rc,
                 strerror(rc < 0 ? -rc : EINVAL));
    else if ((bad = check(k, t, &miss)) != 0)
        snprintf(why, cap, bad < 0 ? "out of memory for the benchmark's output check" :
                 "rl_%s's output is wrong in row %zu under the trace: %.6g, expected %.6g",
                 SPECS[k].kernel, miss.row, miss.got, miss.want);
    else if (!st->capped && st->touched < st->pages)
        snprintf(why, cap, "rl_%s never touched %zu of the %zu pages of %s: the count covers "
                 "only a kernel that reads (and writes) the whole tensor", SPECS[k].kernel,
                 st->pages - st->touched, st->pages, SPECS[k].traced);
    else
        return NULL;
    return why;
}

static void one(mm_json_t *j, int k, const tensors_t *t)
{
    pt_region_t reg[2] = { { (char *)t->x, t->bytes }, { (char *)t->y, t->bytes } };
    size_t pages = (size_t)SPECS[k].regions * t->bytes / pt_page();
    pt_stats_t st = { 0 };
    char why[256];
    int rc = pt_begin(reg, SPECS[k].regions, PS_WINDOW, PS_CAP * pages);
    if (rc != 0) {
        mm_bench_failf(j, SPECS[k].metric, "the page trace could not start: %s", strerror(-rc));
        return;
    }
    rc = call(k, t);
    pt_end(&st);
    if (judge(k, rc, t, &st, why, sizeof why)) {
        mm_bench_fail(j, SPECS[k].metric, why);
        return;
    }
    double passes = st.capped ? PS_CAP : (double)st.faults / (double)st.pages;
    mm_bench_metricf(j, SPECS[k].metric, passes, " passes",
                     "%s%.2f passes over %s: %zu pages of %zu KiB (%d rows of %d floats per "
                     "tensor) entered a model cache of %d KiB %zu times; 1.0: each page came "
                     "from memory once", st.capped ? "at least " : "", passes, SPECS[k].traced,
                     st.pages, pt_page() >> 10, PS_ROWS, PS_COLS, PS_WINDOW >> 10, st.faults);
}

static void fill(tensors_t *t)
{
    for (size_t i = 0; i < (size_t)PS_ROWS * PS_COLS; i++)
        t->x[i] = 1.0f + (float)(i % 1021) / 1021.0f;
    for (size_t j = 0; j < PS_COLS; j++) {
        t->vec[j] = 1.0f / (float)(j + 1);
        t->gamma[j] = 1.0f + (float)j / PS_COLS;
        t->beta[j] = 0.5f;
    }
}

void ps_report(mm_json_t *j)
{
    tensors_t t = { .bytes = (size_t)PS_ROWS * PS_COLS * sizeof(float) };
    static const char *const names[] = { "gemv_passes", "softmax_passes", "layernorm_passes",
                                         NULL };
    t.x = pt_alloc(t.bytes);
    t.y = pt_alloc(t.bytes);
    t.vec = malloc(3 * PS_COLS * sizeof(float));
    if (!t.x || !t.y || !t.vec) {
        mm_bench_fail_all(j, names, "out of memory for the traced tensors (2 x %zu MiB)",
                          t.bytes >> 20);
    } else {
        t.gamma = t.vec + PS_COLS;
        t.beta = t.vec + 2 * PS_COLS;
        fill(&t);
        for (int k = 0; k < NKERNELS; k++)
            one(j, k, &t);
    }
    pt_free(t.x, t.bytes);
    pt_free(t.y, t.bytes);
    free(t.vec);
}
