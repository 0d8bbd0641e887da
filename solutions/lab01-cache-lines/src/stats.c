/* Lab 01, part B (reference): per-worker partials, one cache line each, merged once (stats.h). */
#include "stats.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>

struct cl_accum {
    unsigned n;
    size_t stride;       /* bytes between partials: the line size rounded up to fit one */
    unsigned char *base; /* stride-aligned, n * stride bytes */
};

void cl_stats_init(cl_stats_t *s)
{
    *s = (cl_stats_t){ 0, 0.0, 0.0, INFINITY, -INFINITY };
}

void cl_stats_merge(cl_stats_t *into, const cl_stats_t *from)
{
    into->count += from->count;
    into->sum += from->sum;
    into->sumsq += from->sumsq;
    into->min = fminf(into->min, from->min);
    into->max = fmaxf(into->max, from->max);
}

static cl_stats_t *partial(const cl_accum_t *a, unsigned w)
{
    return (cl_stats_t *)(void *)(a->base + (size_t)w * a->stride);
}

const cl_stats_t *cl_accum_partial(const cl_accum_t *a, unsigned w)
{
    return a && w < a->n ? partial(a, w) : NULL;
}

int cl_accum_create(cl_accum_t **out, unsigned nworkers, size_t line)
{
    if (!out || nworkers == 0 || nworkers > CL_MAX_WORKERS || line < 8 || (line & (line - 1)))
        return -EINVAL;
    cl_accum_t *a = malloc(sizeof *a);
    if (!a)
        return -ENOMEM;
    a->n = nworkers;
    a->stride = (sizeof(cl_stats_t) + line - 1) / line * line;
    void *base = NULL;
    if (posix_memalign(&base, line < sizeof(void *) ? sizeof(void *) : line,
                       nworkers * a->stride) != 0) {
        free(a);
        return -ENOMEM;
    }
    a->base = base;
    for (unsigned w = 0; w < nworkers; w++)
        cl_stats_init(partial(a, w));
    *out = a;
    return 0;
}

void cl_accum_add(cl_accum_t *a, unsigned w, float x)
{
    if (!a || w >= a->n)
        return;
    cl_stats_t *p = partial(a, w);
    p->count++;
    p->sum += x;
    p->sumsq += (double)x * x;
    if (x < p->min)
        p->min = x;
    if (x > p->max)
        p->max = x;
}

int cl_accum_result(const cl_accum_t *a, cl_stats_t *out)
{
    if (!a || !out)
        return -EINVAL;
    cl_stats_init(out);
    for (unsigned w = 0; w < a->n; w++)
        cl_stats_merge(out, partial(a, w));
    return 0;
}

void cl_accum_destroy(cl_accum_t *a)
{
    if (!a)
        return;
    free(a->base);
    free(a);
}
