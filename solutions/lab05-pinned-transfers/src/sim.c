/* Lab 05, part C: the timeline simulator and the overlap efficiency (contract in
 * include/sim.h). Background and hints: labs/lab05-pinned-transfers/README.md. */
#include "sim.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>

static int plan_valid(const pt_plan_t *p, const pt_cost_t *cost)
{
    if (p->n == 0 || !p->chunks || p->streams == 0 || p->streams > PT_MAX_STREAMS ||
        p->slots == 0 || p->slots > PT_MAX_SLOTS)
        return 0;
    for (size_t i = 0; i < p->n; i++) {
        const pt_chunk_t *c = &p->chunks[i];
        if (c->stream >= p->streams || c->slot >= p->slots || c->wait < -1 ||
            (c->wait >= 0 && (size_t)c->wait >= i))
            return 0;
        for (int s = 0; s < PT_STAGES; s++)
            if (!isfinite(cost[i].t[s]) || cost[i].t[s] < 0)
                return 0;
    }
    return 1;
}

static double later(double a, double b)
{
    return a > b ? a : b;
}

/* Schedules chunk i given what ran before it: engine_free per engine, stream_free per stream. */
static void place(const pt_plan_t *p, size_t i, const pt_cost_t *cost, pt_span_t *spans,
                  double *engine_free, double *stream_free)
{
    const pt_chunk_t *c = &p->chunks[i];
    double ready = stream_free[c->stream];
    if (c->wait >= 0)
        ready = later(ready, spans[c->wait].end[PT_D2H]);
    for (int s = 0; s < PT_STAGES; s++) {
        double start = later(ready, engine_free[s]);
        spans[i].start[s] = start;
        spans[i].end[s] = ready = engine_free[s] = start + cost[i].t[s];
    }
    stream_free[c->stream] = ready;
}

int pt_sim_run(const pt_plan_t *plan, const pt_cost_t *cost, pt_span_t *spans, pt_sim_t *out)
{
    if (!plan || !cost || !out || !plan_valid(plan, cost))
        return -EINVAL;
    pt_span_t *sp = spans ? spans : malloc(plan->n * sizeof *sp);
    if (!sp)
        return -ENOMEM;
    double engine_free[PT_STAGES] = { 0 }, stream_free[PT_MAX_STREAMS] = { 0 };
    pt_sim_t r = { 0 };
    for (size_t i = 0; i < plan->n; i++) {
        place(plan, i, cost, sp, engine_free, stream_free);
        for (int s = 0; s < PT_STAGES; s++)
            r.busy[s] += cost[i].t[s];
        r.makespan = later(r.makespan, sp[i].end[PT_D2H]);
    }
    for (int s = 0; s < PT_STAGES; s++) {
        r.serial += r.busy[s];
        r.bound = later(r.bound, r.busy[s]);
    }
    if (!spans)
        free(sp);
    *out = r;
    return 0;
}

int pt_overlap_efficiency(double t_pipe, double serial, double bound, double *eff)
{
    if (!eff || !isfinite(t_pipe) || !isfinite(serial) || !isfinite(bound) || t_pipe <= 0 ||
        serial <= 0 || bound <= 0 || bound > serial)
        return -EINVAL;
    if (bound == serial)
        return -EDOM;
    *eff = (serial - t_pipe) / (serial - bound);
    return 0;
}
