/* Lab 05 benchmark, the GPU half: your bandwidth measurements against each other and against a
 * reference copy timed here in the same run, and your pipeline against its own stages timed
 * here one at a time. Your code runs in a process of its own, with its own CUDA context: each
 * of its calls is timed here, around the call (mm_call_last_ns); what it reports is only checked
 * to be sane. The reference copy and the stages are this process's, timed with CUDA events
 * while yours is idle: after a device sync there (workload "device_sync", since the idle check
 * sees CPU time, not GPU work still queued), and under the idle check (mm_idle_*). On the
 * emulated device (no usable GPU) the timing is a model: the three metrics are skipped, but your
 * pipeline still runs once and its output is checked. */
#include <errno.h>
#include <math.h>
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
#include "../serve/lab05_serve.h"

/* The metrics of this file, and the two of them that the bandwidth rounds measure. */
static const char *const GPU_METRICS[] = { "pinned_vs_pageable", "pinned_vs_reference_copy",
                                           "overlap_efficiency", NULL };
static const char *const BANDWIDTH_METRICS[] = { "pinned_vs_pageable",
                                                 "pinned_vs_reference_copy", NULL };

#ifndef MM_HAVE_CUDA

void bench_gpu(mm_json_t *j, gpu_series_t *s)
{
    (void)s;
    mm_bench_skip_all(j, GPU_METRICS, "%s", PT_NO_CUDA_BUILD);
}

void gpu_series(mm_json_t *j, const gpu_series_t *s)
{
    (void)j, (void)s;
}

#else
#include <cuda_runtime_api.h>

#define BW_BYTES (64 * MIB) /* nvbandwidth's buffer size */
#define BW_ITERS 20 /* copies a round times: the difference of two of your calls */
#define BW_FASTEST 1.5 /* no copy of yours is this much faster than the reference's */
#define BW_ROUNDS 7
#define PIPE_REPS 5
#define PIPE_TOTAL (256 * MIB)

enum { OP_H2D, OP_KERNEL, OP_D2H };

/* The bench's own buffers: pinned host memory (cudaHostAlloc, portable, as nvbandwidth pins),
 * device memory, a stream and two events; and the CUDA error of the last call that failed. */
typedef struct {
    void *host, *dev;
    cudaStream_t stream;
    cudaEvent_t ev[2];
    cudaError_t err;
} ref_t;

/* The errno of `e` (0 for success); a failure is kept in r->err for the report. */
static int ref_errno(ref_t *r, cudaError_t e)
{
    if (e != cudaSuccess)
        r->err = e;
    return pt_cuda_errno(e);
}

/* Error -rc, for people: with the CUDA runtime's message and error name where `e` is one. */
static const char *why_cuda(int rc, cudaError_t e, char *buf, size_t n)
{
    if (e == cudaSuccess)
        snprintf(buf, n, "%s", strerror(-rc));
    else
        snprintf(buf, n, "%s: %s (%s)", strerror(-rc), cudaGetErrorString(e), cudaGetErrorName(e));
    return buf;
}

/* Why the bench's own call failed. */
static const char *ref_why(const ref_t *r, int rc, char *buf, size_t n)
{
    return why_cuda(rc, r->err, buf, n);
}

/* The last CUDA failure pt_cuda_errno saw in your process, forgotten there (workload
 * "cuda_last_error"): its message in msg[0..CUDA_ERROR_MAX). */
static int your_last_error(char *msg)
{
    int e = mm_call_work("cuda_last_error", NULL, 0, msg, CUDA_ERROR_MAX);
    msg[CUDA_ERROR_MAX - 1] = '\0';
    return e;
}

/* Why your function failed: its errno, and the CUDA error it passed to pt_cuda_errno last. */
static const char *your_why(int rc, char *buf, size_t n)
{
    char msg[CUDA_ERROR_MAX];
    if (your_last_error(msg) > 0)
        snprintf(buf, n, "%s: %s", strerror(-rc), msg);
    else
        snprintf(buf, n, "%s", strerror(-rc));
    return buf;
}

/* Waits until your process's device has no work queued (workload "device_sync"): before the
 * benchmark times its own copies, which your GPU work would slow down. */
static void your_device_idle(void)
{
    (void)mm_call_work("device_sync", NULL, 0, NULL, 0);
}

static void ref_close(ref_t *r)
{
    if (r->stream)
        cudaStreamSynchronize(r->stream);
    for (int i = 0; i < 2; i++)
        if (r->ev[i])
            cudaEventDestroy(r->ev[i]);
    if (r->stream)
        cudaStreamDestroy(r->stream);
    cudaFree(r->dev);
    cudaFreeHost(r->host);
    (void)cudaGetLastError();
    memset(r, 0, sizeof *r);
}

static int ref_open(ref_t *r, size_t bytes)
{
    memset(r, 0, sizeof *r);
    cudaError_t e = cudaHostAlloc(&r->host, bytes, cudaHostAllocPortable);
    if (e == cudaSuccess)
        memset(r->host, 0x5a, bytes);
    if (e == cudaSuccess)
        e = cudaMalloc(&r->dev, bytes);
    if (e == cudaSuccess)
        e = cudaStreamCreateWithFlags(&r->stream, cudaStreamNonBlocking);
    for (int i = 0; i < 2 && e == cudaSuccess; i++)
        e = cudaEventCreate(&r->ev[i]);
    if (e != cudaSuccess) {
        ref_close(r);
        r->err = e;
    }
    return pt_cuda_errno(e);
}

static cudaError_t issue(ref_t *r, int op, size_t bytes, unsigned rounds)
{
    if (op == OP_H2D)
        return cudaMemcpyAsync(r->dev, r->host, bytes, cudaMemcpyHostToDevice, r->stream);
    if (op == OP_D2H)
        return cudaMemcpyAsync(r->host, r->dev, bytes, cudaMemcpyDeviceToHost, r->stream);
    uint32_t *d = r->dev;
    if (pt_launch_transform(d, d, bytes / WORD, rounds, r->stream) == 0)
        return cudaSuccess;
    /* The launch's own error (e.g. no kernel image for this GPU), which the errno loses. */
    cudaError_t e = (cudaError_t)pt_cuda_last_error();
    return e != cudaSuccess ? e : cudaErrorLaunchFailure;
}

/* Seconds for `iters` back-to-back operations `op` between two events (after one warm-up). */
static int timed(ref_t *r, int op, size_t bytes, unsigned iters, unsigned rounds, double *s)
{
    cudaError_t e = issue(r, op, bytes, rounds);
    if (e == cudaSuccess)
        e = cudaEventRecord(r->ev[0], r->stream);
    for (unsigned i = 0; i < iters && e == cudaSuccess; i++)
        e = issue(r, op, bytes, rounds);
    if (e == cudaSuccess)
        e = cudaEventRecord(r->ev[1], r->stream);
    if (e == cudaSuccess)
        e = cudaEventSynchronize(r->ev[1]);
    float ms = 0;
    if (e == cudaSuccess)
        e = cudaEventElapsedTime(&ms, r->ev[0], r->ev[1]);
    *s = ms / 1e3;
    return e == cudaSuccess && ms > 0 ? 0 : e == cudaSuccess ? -EIO : ref_errno(r, e);
}

static int sane(double gbps)
{
    return isfinite(gbps) && gbps > 0.01 && gbps < 10000;
}

/* Your H2D bandwidth from host memory of `kind`, timed here: pt_measure_copy of 1 copy, then of
 * 1 + iters copies, each call timed around it; the difference is `iters` copies, whatever the
 * call's set-up and tear-down cost (the same in both). What the calls report is only checked to
 * be a bandwidth. Returns 0, or -errno with why[0..n). */
static int your_gbps(pt_host_kind_t kind, size_t bytes, unsigned iters, double *gbps, char *why,
                     size_t n)
{
    const unsigned it[2] = { 1, 1 + iters };
    uint64_t ns[2];
    char e[250];
    for (int k = 0; k < 2; k++) {
        double said = 0;
        int rc = pt_measure_copy(kind, PT_TO_DEVICE, bytes, it[k], &said);
        ns[k] = mm_call_last_ns();
        if (rc != 0) {
            snprintf(why, n, "pt_measure_copy failed: %s", your_why(rc, e, sizeof e));
            return rc;
        }
        if (!sane(said)) {
            snprintf(why, n, "pt_measure_copy reported %g GB/s", said);
            return -ERANGE;
        }
    }
    if (ns[1] <= ns[0]) {
        snprintf(why, n, "pt_measure_copy of %u copies took %.3f ms, of 1 copy %.3f ms: are the "
                 "copies made?", it[1], (double)ns[1] / 1e6, (double)ns[0] / 1e6);
        return -ERANGE;
    }
    *gbps = (double)bytes * iters / (double)(ns[1] - ns[0]); /* bytes per ns = GB/s */
    return 0;
}

/* One round: your pinned and pageable H2D and the reference's, at `bytes`; the reference timed
 * with your process idle (watched by *idle). */
static int bw_round(ref_t *r, size_t bytes, unsigned iters, double g[3], mm_idle_t *idle,
                    char *why, size_t n)
{
    double s = 0;
    char e[200];
    (void)your_last_error(e);
    int rc = your_gbps(PT_HOST_PINNED, bytes, iters, &g[0], why, n);
    if (rc == 0)
        rc = your_gbps(PT_HOST_PAGEABLE, bytes, iters, &g[1], why, n);
    if (rc != 0)
        return rc;
    your_device_idle();
    mm_idle_start(idle);
    rc = timed(r, OP_H2D, bytes, iters, 0, &s);
    mm_idle_stop(idle);
    g[2] = rc == 0 ? (double)bytes * iters / 1e9 / s : 0;
    if (rc != 0)
        snprintf(why, n, "the reference copy failed: %s", ref_why(r, rc, e, sizeof e));
    return rc;
}

/* NULL if your medians are bandwidths the link can give: neither faster than the reference
 * pinned copy by more than BW_FASTEST; else why not, in why[0..n). */
static const char *implausible(double pin, double page, double ref, char *why, size_t n)
{
    if (pin <= BW_FASTEST * ref && page <= BW_FASTEST * ref)
        return NULL;
    snprintf(why, n, "your copies went %.1f GB/s (pinned) and %.1f GB/s (pageable), more than "
             "%.1fx the reference pinned copy's %.1f GB/s over the same link: does "
             "pt_measure_copy make `iters` copies of `bytes` bytes?", pin, page, BW_FASTEST, ref);
    return why;
}

static void bench_bandwidth(mm_json_t *j, ref_t *r)
{
    double g[3], v[3][BW_ROUNDS], pp[BW_ROUNDS], pr[BW_ROUNDS];
    char why[400];
    mm_idle_t idle = { 0 };
    for (int k = 0; k < BW_ROUNDS; k++) {
        if (bw_round(r, BW_BYTES, BW_ITERS, g, &idle, why, sizeof why) != 0) {
            mm_bench_fail_all(j, BANDWIDTH_METRICS, "%s", why);
            return;
        }
        for (int i = 0; i < 3; i++)
            v[i][k] = g[i];
        pp[k] = g[0] / g[1];
        pr[k] = g[0] / g[2];
    }
    double pin = mm_median(v[0], BW_ROUNDS), page = mm_median(v[1], BW_ROUNDS);
    double ref = mm_median(v[2], BW_ROUNDS);
    if (implausible(pin, page, ref, why, sizeof why)) {
        mm_bench_fail_all(j, BANDWIDTH_METRICS, "%s", why);
        return;
    }
    mm_bench_metricf(j, "pinned_vs_pageable", mm_median(pp, BW_ROUNDS), "x", "H2D: your pinned "
                     "%.1f GB/s, your pageable %.1f GB/s (medians of %d rounds, %zu MiB x %d "
                     "copies, each timed around your pt_measure_copy: %d copies minus 1)", pin,
                     page, BW_ROUNDS, BW_BYTES / MIB, BW_ITERS, BW_ITERS + 1);
    if (!mm_idle_ok(&idle, why, sizeof why))
        mm_bench_skip(j, "pinned_vs_reference_copy", why);
    else
        mm_bench_metricf(j, "pinned_vs_reference_copy", mm_median(pr, BW_ROUNDS), "x", "H2D: "
                         "your pinned %.1f GB/s, reference cudaHostAlloc + cudaMemcpyAsync %.1f "
                         "GB/s (medians of %d rounds, same run)", pin, ref, BW_ROUNDS);
}

static void bandwidth_sweep(ref_t *r, gpu_series_t *s)
{
    char why[400];
    double g[3];
    for (int i = 0; i < BW_SIZES; i++) {
        size_t bytes = (64u << 10) << i;
        unsigned iters = (unsigned)(256 * MIB / bytes);
        iters = iters < 10 ? 10 : iters > 1000 ? 1000 : iters;
        mm_idle_t idle = { 0 };
        if (bw_round(r, bytes, iters, g, &idle, why, sizeof why) != 0)
            return;
        s->bytes[s->n] = bytes;
        s->ratio[s->n++] = g[0] / g[1];
    }
}

typedef struct {
    double h2d, kernel, d2h, pipe, eff;
} pipe_times_t;

/* Each stage alone on the bench's own buffers, your process idle (watched by *idle), then your
 * pipeline once, timed around the call. */
static int pipe_rep(ref_t *r, pt_pipe_t *p, size_t total, unsigned rounds, pipe_times_t *t,
                    mm_idle_t *idle)
{
    your_device_idle();
    mm_idle_start(idle);
    int rc = timed(r, OP_H2D, total, 1, 0, &t->h2d);
    if (rc == 0)
        rc = timed(r, OP_KERNEL, total, 1, rounds, &t->kernel);
    if (rc == 0)
        rc = timed(r, OP_D2H, total, 1, 0, &t->d2h);
    mm_idle_stop(idle);
    if (rc != 0)
        return rc;
    rc = pt_pipe_run(p, rounds, NULL);
    t->pipe = (double)mm_call_last_ns() / 1e9;
    double sum = t->h2d + t->kernel + t->d2h;
    double max = fmax(t->h2d, fmax(t->kernel, t->d2h));
    t->eff = (sum - t->pipe) / (sum - max);
    return rc;
}

/* Kernel rounds that make the transform take about as long as copying `total` in. */
static unsigned balance_rounds(ref_t *r, size_t total)
{
    double h = 0, k = 0;
    your_device_idle();
    if (timed(r, OP_H2D, total, 1, 0, &h) != 0 || timed(r, OP_KERNEL, total, 1, 64, &k) != 0)
        return 64;
    double rounds = 64 * h / k;
    return rounds < 1 ? 1 : rounds > 65536 ? 65536 : (unsigned)rounds;
}

#define PIPE_SEED 5 /* the input: words of mm_rng_new(PIPE_SEED) */

/* 1 if dst holds the transform of the input, word for word (recomputed from its seed: src is
 * shared memory your process could have changed); what was found in d[0..dn). */
static int verify(const uint32_t *dst, size_t n, unsigned rounds, char *d, size_t dn)
{
    uint32_t a, b;
    pt_transform_coeffs(rounds, &a, &b);
    mm_rng_t g = mm_rng_new(PIPE_SEED);
    size_t wrong = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t want = (uint32_t)mm_rng_next(&g) * a + b;
        if (dst[i] != want && wrong++ == 0)
            first = i;
    }
    if (wrong)
        snprintf(d, dn, "%zu of %zu words wrong, the first at %zu", wrong, n, first);
    else
        snprintf(d, dn, "all %zu words right", n);
    return wrong == 0;
}

static size_t pipe_total(void)
{
    size_t budget = 0, total = PIPE_TOTAL;
    pt_pin_budget(pt_ram_bytes(), PT_PIN_PERCENT, &budget);
    while (total > MIB && 3 * total > budget) /* yours pins src + dst, the bench one more */
        total /= 2;
    return total;
}

static void report_pipe(mm_json_t *j, pipe_times_t *t, const pt_plan_t *plan, unsigned rounds,
                        const char *sum)
{
    double eff[PIPE_REPS], pipe[PIPE_REPS];
    for (int k = 0; k < PIPE_REPS; k++)
        eff[k] = t[k].eff, pipe[k] = t[k].pipe;
    mm_bench_metricf(j, "overlap_efficiency", mm_median(eff, PIPE_REPS), "", "your pipeline "
                     "%.2f ms (timed around pt_pipe_run); alone: H2D %.2f, kernel %.2f (%u "
                     "rounds), D2H %.2f ms (medians of %d runs; %zu chunks, %u streams, %u "
                     "slots); %s", mm_median(pipe, PIPE_REPS) * 1e3, t[PIPE_REPS - 1].h2d * 1e3,
                     t[PIPE_REPS - 1].kernel * 1e3, rounds, t[PIPE_REPS - 1].d2h * 1e3, PIPE_REPS,
                     plan->n, plan->streams, plan->slots, sum);
}

/* Your pipeline over `plan` (shared memory, your process keeps it) from src to dst: runs it;
 * returns 0 or its error (reported as failed, with the reason); times it PIPE_REPS times into t
 * unless `emulated`, against this program's stages over `total` bytes (this program's copy of
 * the plan's: never read back from the shared one). */
static int time_pipe(mm_json_t *j, ref_t *r, const pt_plan_t *plan, size_t total,
                     const uint32_t *src, uint32_t *dst, unsigned rounds, const char *emulated,
                     pipe_times_t *t, mm_idle_t *idle)
{
    char e[300];
    pt_pipe_t *p = NULL;
    r->err = cudaSuccess; /* from here on, set only by a failure of the bench's own stages */
    (void)your_last_error(e);
    int rc = pt_pipe_create(&p, plan, src, dst);
    if (rc == 0)
        rc = pt_pipe_run(p, rounds, NULL); /* warm-up */
    for (int k = 0; k < PIPE_REPS && rc == 0 && !emulated; k++)
        rc = pipe_rep(r, p, total, rounds, &t[k], idle);
    if (rc != 0 && r->err != cudaSuccess)
        mm_bench_failf(j, "overlap_efficiency", "the benchmark's own copy or kernel failed: %s",
                       ref_why(r, rc, e, sizeof e));
    else if (rc != 0)
        mm_bench_failf(j, "overlap_efficiency", "your pipeline failed: %s",
                       your_why(rc, e, sizeof e));
    pt_pipe_destroy(p);
    return rc;
}

/* Runs your pipeline on `total` bytes; fails the metric with the reason, or reports it (on the
 * emulated device, `emulated` says why it is skipped: one run, its output checked, no timing). */
static void run_pipe(mm_json_t *j, ref_t *r, const pt_plan_t *plan, const pt_plan_t *mine,
                     uint32_t *src, uint32_t *dst, const char *emulated)
{
    pipe_times_t t[PIPE_REPS];
    mm_idle_t idle = { 0 };
    char sum[200], why[300];
    unsigned rounds = balance_rounds(r, mine->total);
    if (time_pipe(j, r, plan, mine->total, src, dst, rounds, emulated, t, &idle) != 0)
        return;
    if (!verify(dst, mine->total / WORD, rounds, sum, sizeof sum))
        mm_bench_failf(j, "overlap_efficiency", "your pipeline's output is wrong (%s)", sum);
    else if (emulated)
        mm_bench_skip(j, "overlap_efficiency", emulated); /* its output is right */
    else if (!mm_idle_ok(&idle, why, sizeof why))
        mm_bench_skip(j, "overlap_efficiency", why);
    else
        report_pipe(j, t, mine, rounds, sum);
}

static void bench_pipeline(mm_json_t *j, const char *emulated)
{
    size_t total = pipe_total();
    pt_plan_req_t req;
    pt_plan_t theirs, mine;
    if (student_plan(j, "overlap_efficiency", total, &req, &theirs, &mine) != 0)
        return;
    /* In shared memory: the plan (your pipeline keeps it) and both arrays. */
    pt_plan_t *plan = mm_shared_alloc(sizeof *plan);
    *plan = theirs;
    uint32_t *src = mm_shared_alloc(total), *dst = mm_shared_alloc(total);
    ref_t r;
    int rc = ref_open(&r, total);
    if (rc != 0) {
        char e[250];
        mm_bench_failf(j, "overlap_efficiency", "the benchmark could not set up: %s",
                       ref_why(&r, rc, e, sizeof e));
    } else {
        mm_rng_t g = mm_rng_new(PIPE_SEED);
        for (size_t i = 0; i < total / WORD; i++)
            src[i] = (uint32_t)mm_rng_next(&g);
        memset(dst, 0, total);
        run_pipe(j, &r, plan, &mine, src, dst, emulated);
        ref_close(&r);
    }
    free(mine.chunks);
    pt_plan_free(&theirs);
}

/* Why the GPU metrics cannot be measured in your process (its CUDA device), or NULL. */
static const char *your_gpu_missing(char *why, size_t n)
{
    gpu_state_t s;
    memset(&s, 0, sizeof s);
    if (mm_call_work("gpu_state", NULL, 0, &s, sizeof s) != 0 || !s.usable) {
        s.why[sizeof s.why - 1] = '\0';
        snprintf(why, n, "no usable CUDA device in the process that runs your code: %s", s.why);
        return why;
    }
    return NULL;
}

void bench_gpu(mm_json_t *j, gpu_series_t *s)
{
    char why[400], reason[440];
    if (!pt_gpu_usable(why, sizeof why)) {
        mm_bench_skip_all(j, GPU_METRICS, "no usable CUDA device: %s", why);
        return;
    }
    if (your_gpu_missing(why, sizeof why)) {
        mm_bench_skip_all(j, GPU_METRICS, "%s", why);
        return;
    }
    if (pt_gpu_backend(why, sizeof why)) { /* "emulated device (no usable GPU: ...)" */
        const char *r = strchr(why, '(');
        /* the pipeline is still run and checked: it needs the reason for its skip */
        snprintf(reason, sizeof reason, "emulated CUDA device: timing is a model %s",
                 r ? r : "");
        mm_bench_skip_all(j, BANDWIDTH_METRICS, "%s", reason);
        bench_pipeline(j, reason);
        return;
    }
    ref_t r;
    int rc = ref_open(&r, BW_BYTES);
    if (rc != 0) {
        char e[250];
        mm_bench_fail_all(j, BANDWIDTH_METRICS, "the reference copy could not set up: %s",
                          ref_why(&r, rc, e, sizeof e));
    } else {
        bench_bandwidth(j, &r);
        bandwidth_sweep(&r, s);
        ref_close(&r);
    }
    bench_pipeline(j, NULL);
}

void gpu_series(mm_json_t *j, const gpu_series_t *s)
{
    if (s->n == 0)
        return;
    mm_json_object(j, "bandwidth");
    mm_json_array(j, "bytes");
    for (int i = 0; i < s->n; i++)
        mm_json_int(j, NULL, (long long)s->bytes[i]);
    mm_json_close(j, ']');
    mm_json_nums(j, "pinned_over_pageable", s->ratio, (size_t)s->n);
    mm_json_close(j, '}');
}

#endif /* MM_HAVE_CUDA */
