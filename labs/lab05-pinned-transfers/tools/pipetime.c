/* Lab 05: `pipetime [MIB]` times your pipeline on this machine's CUDA device (a GPU, or the
 * emulated device) and sets it beside your own simulator's timeline of the same plan: each stage
 * alone (events), your pt_pipe_run (timed on a GPU only), your pt_sim_run fed with those stage
 * times (fill, drain and a text timeline), and how long an async copy call takes to return from
 * pageable and from pinned memory. For the questions of the handout; not graded. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "gpu.h"
#include "mm_aligned.h"
#include "mm_bench.h"
#include "mm_timer.h"
#include "pipeline.h"
#include "plan.h"
#include "sim.h"

#define MIB ((size_t)1 << 20)
#define BUDGET (64 * MIB) /* slot memory, as in the benchmark */
#define COLS 72
#define REPS 3

typedef struct {
    void *host, *dev;
    cudaStream_t s;
    cudaEvent_t ev[2];
} bufs_t;

/* Milliseconds of one operation `op` (0 H2D, 1 kernel, 2 D2H) on b, between two events. */
static double stage_ms(bufs_t *b, int op, size_t bytes, unsigned rounds)
{
    float ms = -1;
    cudaEventRecord(b->ev[0], b->s);
    if (op == PT_H2D)
        cudaMemcpyAsync(b->dev, b->host, bytes, cudaMemcpyHostToDevice, b->s);
    else if (op == PT_D2H)
        cudaMemcpyAsync(b->host, b->dev, bytes, cudaMemcpyDeviceToHost, b->s);
    else
        pt_launch_transform(b->dev, b->dev, bytes / 4, rounds, b->s);
    cudaEventRecord(b->ev[1], b->s);
    if (cudaEventSynchronize(b->ev[1]) != cudaSuccess ||
        cudaEventElapsedTime(&ms, b->ev[0], b->ev[1]) != cudaSuccess)
        return -1;
    return ms;
}

/* How long the call itself takes to return, then how long until the copy is done (CPU clock). */
static void call_vs_copy(bufs_t *b, void *host, const char *what, size_t bytes, int to_dev)
{
    uint64_t t0 = mm_now_ns();
    if (to_dev)
        cudaMemcpyAsync(b->dev, host, bytes, cudaMemcpyHostToDevice, b->s);
    else
        cudaMemcpyAsync(host, b->dev, bytes, cudaMemcpyDeviceToHost, b->s);
    double call = mm_elapsed_s(t0);
    cudaStreamSynchronize(b->s);
    printf("  %s %-9s the call returned after %7.2f ms, the copy was done after %7.2f ms\n",
           to_dev ? "H2D from" : "D2H to  ", what, call * 1e3, mm_elapsed_s(t0) * 1e3);
}

/* One text line per engine: at each column's middle, the last digit of the chunk it runs. */
static void draw(const pt_plan_t *p, const pt_span_t *sp, double makespan)
{
    static const char *name[PT_STAGES] = { "copy in ", "compute ", "copy out" };
    printf("  one column = %.3f ms; a digit = the chunk's number mod 10, '.' = idle\n",
           makespan / COLS * 1e3);
    for (int s = 0; s < PT_STAGES; s++) {
        char line[COLS + 1];
        size_t i = 0;
        for (int c = 0; c < COLS; c++) {
            double t = (c + 0.5) * makespan / COLS;
            while (i + 1 < p->n && sp[i].end[s] <= t)
                i++;
            line[c] = sp[i].start[s] <= t && t < sp[i].end[s] ? (char)('0' + i % 10) : '.';
        }
        line[COLS] = '\0';
        printf("  %s %s\n", name[s], line);
    }
}

/* Your simulator on your plan, each chunk's stage taking its share of the stage's time alone. */
static void simulate(const pt_plan_t *p, const double alone_s[PT_STAGES])
{
    pt_cost_t *cost = calloc(p->n, sizeof *cost);
    pt_span_t *sp = calloc(p->n, sizeof *sp);
    pt_sim_t sim;
    if (!cost || !sp) {
        free(cost), free(sp);
        return;
    }
    for (size_t i = 0; i < p->n; i++)
        for (int s = 0; s < PT_STAGES; s++)
            cost[i].t[s] = alone_s[s] * (double)p->chunks[i].len / (double)p->total;
    int rc = pt_sim_run(p, cost, sp, &sim);
    if (rc != 0) {
        printf("your pt_sim_run: %s\n", strerror(-rc));
    } else {
        static const char *eng[PT_STAGES] = { "copy in", "compute", "copy out" };
        int b = 0;
        for (int s = 1; s < PT_STAGES; s++)
            b = sim.busy[s] > sim.busy[b] ? s : b;
        double fill = sp[0].start[b], drain = sim.makespan - sp[p->n - 1].end[b];
        double gaps = sim.makespan - sim.busy[b] - fill - drain;
        gaps = gaps < 0 ? 0 : gaps; /* rounding */
        printf("your pt_sim_run with those times: makespan %.2f ms (serial %.2f, bound %.2f)\n"
               "  busiest engine %s, busy %.2f ms; fill %.2f ms (before its first operation), "
               "drain %.2f ms (after its last), gaps %.2f ms: fill + drain = %.1f %% of the "
               "makespan\n", sim.makespan * 1e3, sim.serial * 1e3, sim.bound * 1e3, eng[b],
               sim.busy[b] * 1e3, fill * 1e3, drain * 1e3, gaps * 1e3,
               100 * (fill + drain) / sim.makespan);
        draw(p, sp, sim.makespan);
    }
    free(cost);
    free(sp);
}

static int run(size_t total, bufs_t *b)
{
    pt_plan_req_t req;
    pt_plan_t plan;
    int rc = pt_plan_choose(total, 4, BUDGET, &req);
    if (rc == 0)
        rc = pt_plan_make(&req, &plan);
    if (rc != 0) {
        printf("your pt_plan_choose / pt_plan_make: %s\n", strerror(-rc));
        return 1;
    }
    printf("your plan: %zu chunks of %.2f MiB, %u streams, %u slots\n", plan.n,
           (double)plan.chunk / MIB, plan.streams, plan.slots);
    double h = stage_ms(b, PT_H2D, total, 0), k64 = stage_ms(b, PT_KERNEL, total, 64);
    unsigned rounds = k64 > 0 ? (unsigned)(64 * h / k64) : 64;
    rounds = rounds < 1 ? 1 : rounds > 65536 ? 65536 : rounds;
    double ms[PT_STAGES], alone_s[PT_STAGES];
    for (int s = 0; s < PT_STAGES; s++) {
        ms[s] = stage_ms(b, s, total, rounds);
        alone_s[s] = ms[s] / 1e3;
    }
    printf("each stage alone (events): H2D %.2f ms, kernel %.2f ms (%u rounds), D2H %.2f ms\n",
           ms[0], ms[1], rounds, ms[2]);
    uint32_t *src = mm_aligned_alloc(4096, total), *dst = mm_aligned_alloc(4096, total);
    pt_pipe_t *p = NULL;
    rc = src && dst ? 0 : -ENOMEM;
    if (rc == 0) {
        memset(src, 1, total);
        rc = pt_pipe_create(&p, &plan, src, dst);
    }
    double t[REPS];
    for (int r = 0; r < REPS && rc == 0; r++)
        rc = pt_pipe_run(p, rounds, &t[r]);
    pt_pipe_destroy(p);
    if (rc != 0) {
        printf("your pipeline: %s\n", strerror(-rc));
    } else if (pt_gpu_backend(NULL, 0)) {
        printf("your pt_pipe_run ran %d times; not timed: on the emulated device its wall clock "
               "is the host's CPUs doing the device's work, not overlap on a GPU\n", REPS);
    } else {
        double serial = ms[0] + ms[1] + ms[2], bound = 0, eff = 0;
        for (int s = 0; s < PT_STAGES; s++)
            bound = ms[s] > bound ? ms[s] : bound;
        double med = mm_median(t, REPS) * 1e3;
        pt_overlap_efficiency(med, serial, bound, &eff);
        printf("your pt_pipe_run (wall clock, median of %d): %.2f ms; serial %.2f, bound %.2f: "
               "overlap efficiency %.2f\n", REPS, med, serial, bound, eff);
    }
    simulate(&plan, alone_s);
    mm_aligned_free(src);
    mm_aligned_free(dst);
    pt_plan_free(&plan);
    return rc != 0;
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
    if (argc > 2 || mib < 1 || mib > 1024) {
        fprintf(stderr, "usage: %s [MIB]  (1..1024, default 64)\n", argv[0]);
        return 2;
    }
    size_t total = mib * MIB;
    char why[300];
    if (!pt_gpu_usable(why, sizeof why)) {
        fprintf(stderr, "pipetime: no usable CUDA device: %s\n", why);
        return 1;
    }
    pt_gpu_backend(why, sizeof why);
    printf("device: %s; %zu MiB\n", why, mib);
    bufs_t b = { 0 };
    void *pageable = mm_aligned_alloc(4096, total);
    if (!pageable || cudaHostAlloc(&b.host, total, cudaHostAllocDefault) != cudaSuccess ||
        cudaMalloc(&b.dev, total) != cudaSuccess ||
        cudaStreamCreateWithFlags(&b.s, cudaStreamNonBlocking) != cudaSuccess ||
        cudaEventCreate(&b.ev[0]) != cudaSuccess || cudaEventCreate(&b.ev[1]) != cudaSuccess) {
        fprintf(stderr, "pipetime: could not set up %zu MiB on the device\n", mib);
        return 1;
    }
    memset(b.host, 1, total);
    memset(pageable, 1, total);
    stage_ms(&b, PT_H2D, total, 0); /* warm-up */
    int rc = run(total, &b);
    printf("async copy calls, %zu MiB each:\n", mib);
    call_vs_copy(&b, b.host, "pinned", total, 1);
    call_vs_copy(&b, pageable, "pageable", total, 1);
    call_vs_copy(&b, b.host, "pinned", total, 0);
    call_vs_copy(&b, pageable, "pageable", total, 0);
    cudaEventDestroy(b.ev[0]);
    cudaEventDestroy(b.ev[1]);
    cudaStreamDestroy(b.s);
    cudaFree(b.dev);
    cudaFreeHost(b.host);
    mm_aligned_free(pageable);
    return rc;
}
