/* Lab 05, part C: the timeline simulator and the overlap efficiency (contract in
 * include/sim.h). Background and hints: labs/lab05-pinned-transfers/README.md. */
#include "sim.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>

int pt_sim_run(const pt_plan_t *plan, const pt_cost_t *cost, pt_span_t *spans, pt_sim_t *out)
{
    /* ===== YOUR CODE HERE =====
     * Validate everything first (isfinite() for the costs). Then walk the chunks in order,
     * keeping when each engine and each stream is next free; an operation starts at the latest
     * of: its engine free, the previous operation of its stream (or its own previous stage)
     * ended, and, for a copy in, its wait chunk's copy out ended. You need the end of every
     * chunk's copy out: spans, or a temporary array when spans is NULL. */
    (void)plan, (void)cost, (void)spans, (void)out;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int pt_overlap_efficiency(double t_pipe, double serial, double bound, double *eff)
{
    /* ===== YOUR CODE HERE ===== */
    (void)t_pipe, (void)serial, (void)bound, (void)eff;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}
