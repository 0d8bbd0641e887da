/* Lab 05 benchmark. Everywhere: your planner's plan for a reference transfer, run through this
 * file's own timeline model (planned_overlap). With a GPU: your pinned vs pageable bandwidth,
 * your pinned bandwidth vs a reference copy measured in the same run, and your pipeline's
 * overlap efficiency. Your code runs in a process of its own (calls.toml): your plans' chunks are
 * read from it with mm_peek, and every time of yours is taken here, around the call (bench_gpu.c).
 * Prints one JSON object (common/mm_bench.h); lab.toml has the thresholds. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bandwidth.h"
#include "bench_gpu.h"
#include "gpu.h"
#include "mm_aligned.h"
#include "mm_bench.h"
#include "mm_call.h"
#include "mm_rng.h"
#include "pipeline.h"
#include "plan.h"
#include "sim.h"

#define TOTAL (256 * MIB) /* the reference transfer: 64 Mi 32-bit words */

/* The model for planned_overlap: a PCIe 5.0 x16 GPU (H2D 40 GB/s, D2H 45 GB/s), a kernel that
 * streams 40 GB/s, and a fixed cost per operation (launch, DMA set-up). */
static const double model_gbps[PT_STAGES] = { 40.0, 40.0, 45.0 };
static const double model_fixed_s[PT_STAGES] = { 8e-6, 5e-6, 8e-6 };

static double model_time(int stage, size_t bytes)
{
    return model_fixed_s[stage] + (double)bytes / (model_gbps[stage] * 1e9);
}

/* The same engine model as sim.h, written out here so that the grade does not depend on your
 * simulator: FIFO engines, stream order, slot waits. Returns the makespan, or -1 (no memory). */
static double model_makespan(const pt_plan_t *p)
{
    double *out_end = malloc(p->n * sizeof *out_end);
    double engine[PT_STAGES] = { 0 }, stream[PT_MAX_STREAMS] = { 0 }, end = 0;
    if (!out_end)
        return -1;
    for (size_t i = 0; i < p->n; i++) {
        const pt_chunk_t *c = &p->chunks[i];
        double t = stream[c->stream];
        if (c->wait >= 0 && out_end[c->wait] > t)
            t = out_end[c->wait];
        for (int s = 0; s < PT_STAGES; s++) {
            t = (t > engine[s] ? t : engine[s]) + model_time(s, c->len);
            engine[s] = t;
        }
        stream[c->stream] = out_end[i] = t;
        end = t > end ? t : end;
    }
    free(out_end);
    return end;
}

const char *plan_problem(const pt_plan_t *p, size_t total, size_t budget)
{
    if (p->n == 0 || !p->chunks || p->streams < 1 || p->streams > PT_MAX_STREAMS ||
        p->slots < 1 || p->slots > PT_MAX_SLOTS)
        return "the plan has no chunks, or its stream/slot counts are out of range";
    if ((double)p->slots * (double)p->slot_bytes > (double)budget)
        return "the plan's slots need more memory than the budget";
    size_t next = 0;
    long last[PT_MAX_SLOTS];
    for (unsigned k = 0; k < PT_MAX_SLOTS; k++)
        last[k] = -1;
    for (size_t i = 0; i < p->n; i++) {
        const pt_chunk_t *c = &p->chunks[i];
        if (c->offset != next || c->len == 0 || c->len > p->slot_bytes || c->len % WORD)
            return "the chunks do not cover the transfer exactly once, in order";
        if (c->stream >= p->streams || c->slot >= p->slots || c->wait != last[c->slot])
            return "a chunk's stream, slot or wait is wrong";
        next += c->len;
        last[c->slot] = (long)i;
    }
    return next == total ? NULL : "the chunks do not add up to the transfer";
}

/* *mine: *theirs with its chunks read from your process into memory of this one (free
 * mine->chunks). Returns NULL, or why they cannot be read (then mine->chunks is NULL). */
static const char *peek_plan(const pt_plan_t *theirs, pt_plan_t *mine)
{
    *mine = *theirs;
    mine->chunks = NULL;
    if (theirs->n == 0 || theirs->n > PT_MAX_CHUNKS)
        return "the plan has no chunks, or more than PT_MAX_CHUNKS";
    mine->chunks = malloc(theirs->n * sizeof *mine->chunks);
    if (!mine->chunks)
        return "out of memory";
    if (mm_peek(theirs->chunks, mine->chunks, theirs->n * sizeof *mine->chunks) == 0)
        return NULL;
    free(mine->chunks);
    mine->chunks = NULL;
    return "the plan's chunks cannot be read: not memory of your process";
}

int student_plan(mm_json_t *j, const char *name, size_t total, pt_plan_req_t *req,
                 pt_plan_t *plan, pt_plan_t *mine)
{
    int rc = pt_plan_choose(total, WORD, BUDGET, req);
    if (rc == 0)
        rc = pt_plan_make(req, plan);
    if (rc != 0) {
        mm_bench_failf(j, name, "pt_plan_choose / pt_plan_make failed: %s", strerror(-rc));
        return rc;
    }
    const char *bad = peek_plan(plan, mine);
    if (!bad)
        bad = plan_problem(mine, total, BUDGET);
    if (bad) {
        mm_bench_fail(j, name, bad);
        free(mine->chunks);
        pt_plan_free(plan);
        return -EINVAL;
    }
    return 0;
}

/* planned_overlap = (serial - yours) / (serial - ideal) under the model: serial is the whole
 * transfer as one chunk, copy in, kernel, copy out back to back; ideal is the busiest engine
 * with no fixed costs at all. A plan that overlaps nothing scores 0 or less. */
static void bench_plan(mm_json_t *j, pt_plan_req_t *req_out)
{
    pt_plan_req_t req;
    pt_plan_t theirs, plan;
    if (student_plan(j, "planned_overlap", TOTAL, &req, &theirs, &plan) != 0)
        return;
    double serial = 0, ideal = 0, t = model_makespan(&plan);
    for (int s = 0; s < PT_STAGES; s++) {
        serial += model_time(s, TOTAL);
        double busy = (double)TOTAL / (model_gbps[s] * 1e9);
        ideal = busy > ideal ? busy : ideal;
    }
    if (t < 0)
        mm_bench_fail(j, "planned_overlap", "out of memory");
    else
        mm_bench_metricf(j, "planned_overlap", (serial - t) / (serial - ideal), "", "your plan: "
                         "%zu chunks of %.2f MiB on %u streams, %u slots: %.2f ms in the model; "
                         "serial %.2f ms, ideal %.2f ms", plan.n, (double)plan.chunk / MIB,
                         plan.streams, plan.slots, t * 1e3, serial * 1e3, ideal * 1e3);
    *req_out = req;
    free(plan.chunks);
    pt_plan_free(&theirs);
}

#define SWEEP 11 /* chunk sizes 64 KiB .. 64 MiB */

/* Your streams and slots with other chunk sizes: the model's time over the ideal. */
static void sweep_series(mm_json_t *j, const pt_plan_req_t *req)
{
    size_t x[SWEEP];
    double y[SWEEP], ideal = (double)TOTAL / (model_gbps[0] * 1e9);
    int n = 0;
    for (int i = 0; i < SWEEP; i++) {
        pt_plan_req_t r = *req;
        pt_plan_t theirs, p;
        r.max_chunk = (64u << 10) << i;
        r.min_chunk = r.min_chunk < r.max_chunk ? r.min_chunk : r.max_chunk;
        if (pt_plan_make(&r, &theirs) != 0)
            continue;
        double t = peek_plan(&theirs, &p) || plan_problem(&p, TOTAL, r.budget) ? -1
                                                                            : model_makespan(&p);
        if (t > 0 && (n == 0 || p.chunk != x[n - 1])) {
            x[n] = p.chunk;
            y[n++] = t / ideal;
        }
        free(p.chunks);
        pt_plan_free(&theirs);
    }
    mm_json_object(j, "chunk_sweep");
    mm_json_array(j, "chunk_bytes");
    for (int i = 0; i < n; i++)
        mm_json_int(j, NULL, (long long)x[i]);
    mm_json_close(j, ']');
    mm_json_nums(j, "time_over_ideal", y, (size_t)n);
    mm_json_close(j, '}');
}

int main(void)
{
    int rc = mm_call_setup(); /* before mm_bench_open, which may confine this process */
    if (rc != 0) {
        fprintf(stderr, "mlmem: cannot start the program that runs your code: %s\n",
                strerror(-rc));
        return 2;
    }
    mm_json_t j;
    mm_bench_open(&j, "05");
    pt_plan_req_t req = { 0 };
    gpu_series_t gs = { 0 };
    bench_plan(&j, &req);
    bench_gpu(&j, &gs);
    mm_bench_end_metrics(&j);
    mm_json_object(&j, "series");
    if (req.total)
        sweep_series(&j, &req);
    gpu_series(&j, &gs);
    mm_json_close(&j, '}');
    char why[300] = "usable";
    pt_gpu_usable(why, sizeof why);
    mm_json_object(&j, "info");
    mm_json_int(&j, "ram_bytes", (long long)pt_ram_bytes());
    mm_json_str(&j, "gpu", why);
    mm_json_end(&j);
    return 0;
}
