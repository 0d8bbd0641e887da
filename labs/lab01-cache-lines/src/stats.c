/* Lab 01, part B: per-worker partials merged once (contract in include/stats.h). The benchmark
 * races this against the packed accumulator in src/baseline.c: read it first. */
#include "stats.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>

struct cl_accum {
    /* ===== YOUR CODE HERE: how will cl_accum_add find worker w's partial? ===== */
    unsigned n;
    /* ===== END YOUR CODE ===== */
};

/* ===== YOUR CODE HERE (optional): extra #includes, your own types and static helpers ===== */

/* ===== END YOUR CODE ===== */

void cl_stats_init(cl_stats_t *s)
{
    *s = (cl_stats_t){ 0, 0.0, 0.0, INFINITY, -INFINITY };
}

void cl_stats_merge(cl_stats_t *into, const cl_stats_t *from)
{
    /* ===== YOUR CODE HERE: combine counts, sums, min and max ===== */
    (void)into, (void)from;
    /* ===== END YOUR CODE ===== */
}

const cl_stats_t *cl_accum_partial(const cl_accum_t *a, unsigned w)
{
    /* ===== YOUR CODE HERE: where cl_accum_add writes worker w's samples ===== */
    (void)a, (void)w;
    return NULL;
    /* ===== END YOUR CODE ===== */
}

int cl_accum_create(cl_accum_t **out, unsigned nworkers, size_t line)
{
    /* ===== YOUR CODE HERE: one empty partial per worker; no line holds bytes of two ===== */
    (void)out, (void)nworkers, (void)line;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

void cl_accum_add(cl_accum_t *a, unsigned w, float x)
{
    /* ===== YOUR CODE HERE ===== */
    (void)a, (void)w, (void)x;
    /* ===== END YOUR CODE ===== */
}

int cl_accum_result(const cl_accum_t *a, cl_stats_t *out)
{
    /* ===== YOUR CODE HERE ===== */
    (void)a, (void)out;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

void cl_accum_destroy(cl_accum_t *a)
{
    /* ===== YOUR CODE HERE ===== */
    free(a);
    /* ===== END YOUR CODE ===== */
}
