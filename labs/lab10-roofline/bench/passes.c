/* Lab 10 benchmark: each scored kernel's passes over memory, counted in the student's process
 * and checked here, shown and worth no points (see passes.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "measure.h"
#include "mm_call.h"
#include "passes.h"
#include "verify.h"
#include "../serve/rl_serve.h"

#define CHECKS 4

typedef struct {
    const char *kernel, *metric, *traced;
    int regions; /* 1: the input alone (GEMV's A); 2: the input and the output */
} spec_t;

static const spec_t SPECS[RL_PASS_KERNELS] = {
    { "gemv", "gemv_passes", "A", 1 },
    { "softmax", "softmax_passes", "x and y", 2 },
    { "layernorm", "layernorm_passes", "x and y", 2 },
};

typedef struct {
    float *x, *y;               /* PS_ROWS x PS_COLS each, page-aligned, shared: the traced
                                   tensors; x holds ms_b_value(0 ..) */
    float *vec, *gamma, *beta;  /* PS_COLS each, shared: untraced, they stay in cache */
    float own[3][PS_COLS];      /* the benchmark's copies of vec, gamma and beta */
    size_t bytes, page;
} tensors_t;

static size_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

/* bytes (a whole number of pages) of shared memory at a page boundary. */
static float *shared_pages(size_t bytes, size_t page)
{
    uintptr_t p = (uintptr_t)mm_shared_alloc(bytes + page);
    return (float *)((p + page - 1) & ~(uintptr_t)(page - 1));
}

static int check(int k, const tensors_t *t, vf_miss_t *miss)
{
    mm_rng_t r = mm_rng_new(10u + (unsigned)k);
    switch (k) {
    case RL_PASS_GEMV: return vf_gemv(0, PS_ROWS, PS_COLS, t->own[0], t->y, &r, CHECKS, miss);
    case RL_PASS_SOFTMAX: return vf_softmax(0, PS_ROWS, PS_COLS, t->y, &r, CHECKS, miss);
    default:
        return vf_layernorm(0, PS_ROWS, PS_COLS, t->own[1], t->own[2], 1e-5f, t->y, &r, CHECKS,
                            miss);
    }
}

/* Why counts `o` cannot come from a run of kernel k over `pages` pages traced with a cap of
 * `cap` faults (the student's process reported them), or NULL. */
static const char *impossible(const rl_passes_out_t *o, size_t page, size_t pages, size_t cap)
{
    if (o->page != page || o->pages != pages)
        return "the trace's pages are not the tensor's";
    if (o->capped)
        return o->faults == cap ? NULL : "the trace stopped counting before its cap";
    if (o->faults >= cap)
        return "the trace passed its cap without stopping";
    if (o->touched > pages || o->faults < o->touched)
        return "fewer page entries than pages touched";
    return NULL;
}

/* Why kernel k's traced run does not count (a failure for the metric), or NULL. */
static const char *judge(int k, const rl_passes_out_t *o, const tensors_t *t, size_t cap,
                         char *why, size_t len)
{
    vf_miss_t miss;
    size_t pages = (size_t)SPECS[k].regions * t->bytes / t->page;
    const char *odd = impossible(o, t->page, pages, cap);
    int bad;
    if (o->rc != 0)
        snprintf(why, len, "rl_%s returned %d (%s)", SPECS[k].kernel, o->rc,
                 strerror(o->rc < 0 ? -o->rc : EINVAL));
    else if ((bad = check(k, t, &miss)) != 0)
        snprintf(why, len, bad < 0 ? "out of memory for the benchmark's output check" :
                 "rl_%s's output is wrong in row %zu under the trace: %.6g, expected %.6g",
                 SPECS[k].kernel, miss.row, miss.got, miss.want);
    else if (odd)
        snprintf(why, len, "the page trace's counts from your process are impossible for rl_%s "
                 "(%s: %llu entries, %llu of %llu pages touched, %zu expected, page %llu B)",
                 SPECS[k].kernel, odd, (unsigned long long)o->faults,
                 (unsigned long long)o->touched, (unsigned long long)o->pages, pages,
                 (unsigned long long)o->page);
    else if (!o->capped && o->touched < pages)
        snprintf(why, len, "rl_%s never touched %zu of the %zu pages of %s: the count covers "
                 "only a kernel that reads (and writes) the whole tensor", SPECS[k].kernel,
                 pages - (size_t)o->touched, pages, SPECS[k].traced);
    else
        return NULL;
    return why;
}

static void one(mm_json_t *j, int k, const tensors_t *t)
{
    size_t pages = (size_t)SPECS[k].regions * t->bytes / t->page, cap = PS_CAP * pages;
    rl_passes_in_t q = { (uint32_t)k, PS_ROWS, PS_COLS, (uintptr_t)t->x, (uintptr_t)t->y,
                         (uintptr_t)t->vec, (uintptr_t)t->gamma, (uintptr_t)t->beta, PS_WINDOW,
                         cap };
    rl_passes_out_t o;
    char why[320];
    memset(t->y, 0, t->bytes);
    int rc = mm_call_work("passes", &q, sizeof q, &o, sizeof o);
    if (rc != 0) {
        mm_bench_failf(j, SPECS[k].metric, "the page trace could not start: %s", strerror(-rc));
        return;
    }
    if (judge(k, &o, t, cap, why, sizeof why)) {
        mm_bench_fail(j, SPECS[k].metric, why);
        return;
    }
    double passes = o.capped ? PS_CAP : (double)o.faults / (double)o.pages;
    mm_bench_metricf(j, SPECS[k].metric, passes, " passes",
                     "%s%.2f passes over %s: %zu pages of %zu KiB (%d rows of %d floats per "
                     "tensor) entered a model cache of %d KiB %llu times; 1.0: each page came "
                     "from memory once (counted in your own process, so shown but worth no points)",
                     o.capped ? "at least " : "", passes, SPECS[k].traced, pages, t->page >> 10,
                     PS_ROWS, PS_COLS, PS_WINDOW >> 10, (unsigned long long)o.faults);
}

static void fill(tensors_t *t)
{
    for (size_t i = 0; i < (size_t)PS_ROWS * PS_COLS; i++)
        t->x[i] = ms_b_value(i);
    for (size_t j = 0; j < PS_COLS; j++) {
        t->own[0][j] = 1.0f / (float)(j + 1);
        t->own[1][j] = 1.0f + (float)j / PS_COLS;
        t->own[2][j] = 0.5f;
    }
    memcpy(t->vec, t->own[0], sizeof t->own[0]);
    memcpy(t->gamma, t->own[1], sizeof t->own[1]);
    memcpy(t->beta, t->own[2], sizeof t->own[2]);
}

void ps_report(mm_json_t *j)
{
    static tensors_t t; /* 48 KiB of copies: not on the stack */
    t.bytes = (size_t)PS_ROWS * PS_COLS * sizeof(float);
    t.page = page_size();
    t.x = shared_pages(t.bytes, t.page);
    t.y = shared_pages(t.bytes, t.page);
    t.vec = mm_shared_alloc(3 * PS_COLS * sizeof(float));
    t.gamma = t.vec + PS_COLS;
    t.beta = t.vec + 2 * PS_COLS;
    fill(&t);
    for (int k = 0; k < RL_PASS_KERNELS; k++)
        one(j, k, &t);
}
