/* Lab 01: naive packed versions used as the benchmark's baseline (see baseline.h). Not yours to
 * edit: the grader always builds this file from its own copy. */
#include "baseline.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>

uint64_t *cl_packed_counters_create(unsigned nthreads)
{
    return nthreads ? calloc(nthreads, sizeof(uint64_t)) : NULL;
}

void cl_packed_counters_destroy(uint64_t *c)
{
    free(c);
}

/* Viewed through cl_accum_t * by the benchmark; only this file looks inside. */
typedef struct {
    unsigned n;
    cl_stats_t *part; /* packed from a 64-byte boundary: two 32-byte partials per line */
} packed_accum_t;

static const cl_stats_t empty = { 0, 0.0, 0.0, INFINITY, -INFINITY };

int cl_packed_accum_create(cl_accum_t **out, unsigned nworkers, size_t line)
{
    if (!out || nworkers == 0 || nworkers > CL_MAX_WORKERS || line < 8 || (line & (line - 1)))
        return -EINVAL;
    packed_accum_t *a = malloc(sizeof *a);
    void *part = NULL;
    if (!a || posix_memalign(&part, 64, nworkers * sizeof(cl_stats_t)) != 0) {
        free(a);
        return -ENOMEM;
    }
    a->n = nworkers;
    a->part = part;
    for (unsigned w = 0; w < nworkers; w++)
        a->part[w] = empty;
    *out = (cl_accum_t *)a;
    return 0;
}

void cl_packed_accum_add(cl_accum_t *acc, unsigned w, float x)
{
    packed_accum_t *a = (packed_accum_t *)acc;
    if (!a || w >= a->n)
        return;
    cl_stats_t *p = &a->part[w];
    p->count++;
    p->sum += x;
    p->sumsq += (double)x * x;
    if (x < p->min)
        p->min = x;
    if (x > p->max)
        p->max = x;
}

int cl_packed_accum_result(const cl_accum_t *acc, cl_stats_t *out)
{
    const packed_accum_t *a = (const packed_accum_t *)acc;
    if (!a || !out)
        return -EINVAL;
    *out = empty;
    for (unsigned w = 0; w < a->n; w++) {
        const cl_stats_t *p = &a->part[w];
        out->count += p->count;
        out->sum += p->sum;
        out->sumsq += p->sumsq;
        out->min = fminf(out->min, p->min);
        out->max = fmaxf(out->max, p->max);
    }
    return 0;
}

void cl_packed_accum_destroy(cl_accum_t *acc)
{
    packed_accum_t *a = (packed_accum_t *)acc;
    if (!a)
        return;
    free(a->part);
    free(a);
}
