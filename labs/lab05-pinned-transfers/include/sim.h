/* Lab 05, part C: a timeline simulator for a plan (pure host code). Predicts when every copy and
 * kernel of a plan runs on a GPU with one copy engine per direction and one compute engine, so
 * that a plan's overlap can be judged before any GPU is involved. */
#ifndef PT_SIM_H
#define PT_SIM_H
#include "plan.h"

enum { PT_H2D, PT_KERNEL, PT_D2H, PT_STAGES }; /* a chunk's three operations, in order */

/* How long one chunk's operations take, in seconds (>= 0, finite). */
typedef struct {
    double t[PT_STAGES];
} pt_cost_t;

/* When one chunk's operations start and end. */
typedef struct {
    double start[PT_STAGES], end[PT_STAGES];
} pt_span_t;

typedef struct {
    double makespan;         /* the end of the last operation (time starts at 0) */
    double busy[PT_STAGES];  /* total time each engine is busy: the sum of its operations */
    double serial;           /* busy[0] + busy[1] + busy[2]: the time with no overlap at all */
    double bound;            /* the largest busy[]: no schedule can finish sooner */
} pt_sim_t;

/* Simulates `plan` with chunk i's operations taking cost[i].t[...] seconds. The model:
 *  - three engines (H2D copy, compute, D2H copy), each running one operation at a time, in
 *    the order the plan issues them: chunk 0's operations, then chunk 1's, and so on;
 *  - stream order: an operation starts only after the previous operation issued to the same
 *    stream has ended (for chunk i's H2D that is the D2H of the previous chunk on its stream;
 *    for its kernel and D2H, its own previous operation);
 *  - slots: chunk i's H2D starts only after the D2H of chunk `wait` has ended (wait >= 0);
 *  - every operation starts as soon as all of these allow.
 * Writes the totals to *out and, if spans is not NULL, chunk i's times to spans[i] (plan->n
 * entries). Returns 0;
 *   -EINVAL: plan, cost or out is NULL, the plan has no chunks, its streams or slots are not in
 *            1..PT_MAX_STREAMS / 1..PT_MAX_SLOTS, a chunk's stream or slot is out of range, a
 *            chunk's wait is neither -1 nor an earlier chunk, or a cost is negative or not
 *            finite;
 *   -ENOMEM: out of memory. */
int pt_sim_run(const pt_plan_t *plan, const pt_cost_t *cost, pt_span_t *spans, pt_sim_t *out);

/* Overlap efficiency of a pipeline that took t_pipe seconds, given the time its operations take
 * back to back (serial) and the busiest engine's time (bound):
 *     (serial - t_pipe) / (serial - bound)
 * 0 when nothing overlapped, 1 when the pipeline is as fast as its busiest engine. Not clamped:
 * measured times can give a little below 0 or above 1. Returns 0 and sets *eff;
 *   -EINVAL: eff is NULL, a time is not finite or <= 0, or bound > serial;
 *   -EDOM:   bound == serial (only one engine has work: there is nothing to overlap). */
int pt_overlap_efficiency(double t_pipe, double serial, double bound, double *eff);

#endif
