/* Lab 12 benchmark, the GPU half: your three kernels as nvcc compiled them (device code only,
 * embedded as data: gpu_image.c), loaded through the CUDA driver and timed with CUDA events
 * against a device-to-device copy in the same rounds. Each round: poison the output, time the
 * copy, time your kernel, check the output against the oracle on the host. The metric is your
 * kernel's effective bandwidth (bytes it must read and write, over its time) as a fraction of
 * the copy's (2 x the bytes copied, over its time), the median over rounds. Where no GPU is
 * usable (no GPU, no nvcc, the emulated CUDA device) every metric is skipped with the reason. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_gpu.h"
#include "cases.h"
#include "gpu_driver.h"
#include "gpu_memory.h"
#include "mm_bench.h"
#include "mm_emu.h"

#define WARMUP 3
#define ROUNDS 15
#define COPY_BYTES ((size_t)128 << 20)
#define MAX_SPREAD 1.25 /* the gate: the copy's upper-quartile time / its lower-quartile time */
#define GATHER_BLOCKS_PER_SM 4

static const char *const GPU_METRICS[] = {"gpu_transpose_vs_copy", "gpu_row_sum_vs_copy",
                                          "gpu_gather_vs_copy", NULL};

/* The GPU session: the driver's calls, your module, the copy's buffers, three events. */
typedef struct {
    gd_api_t cu;
    CUmodule mod;
    CUdeviceptr copy_src, copy_dst;
    CUevent ev[3];
    int sms;
    const char *lost; /* the kernel after whose failed launch the GPU is unusable, or NULL */
} gpu_t;

/* One kernel's case: host input, oracle and result, device buffers, launch shape, arguments. */
typedef struct {
    const char *metric, *kernel;
    char shape[96];
    float *in, *want, *got;
    int *ids;
    size_t in_n, ids_n, out_n; /* elements */
    CUdeviceptr d_in, d_ids, d_out;
    int arg[2];                /* the kernel's int arguments, in order */
    void *params[5];
    unsigned grid[3], block[3];
    double bytes;              /* what the kernel must read and write */
} gcase_t;

/* A failed driver call: its name and error, in why; returns -EIO. */
static int cu_fail(const gpu_t *g, CUresult e, const char *call, char *why, size_t n)
{
    char name[64];
    snprintf(why, n, "%s: %s", call, gd_error(&g->cu, e, name, sizeof name));
    return -EIO;
}

/* Calls g->cu.fn args; on failure returns cu_fail's -EIO from the enclosing function. */
#define CU_TRY(g, fn, args, why, n)                                                          \
    do {                                                                                     \
        CUresult e_ = (g)->cu.fn args;                                                       \
        if (e_ != CUDA_SUCCESS)                                                              \
            return cu_fail(g, e_, #fn, why, n);                                              \
    } while (0)

/* Starts the GPU (device 0, its primary context: the one the CUDA runtime started before the
 * benchmark was confined), loads your device code, makes the copy's buffers and the events.
 * 0, or -ENODEV / -EIO with why: the machine's fault, never yours. */
static int gpu_open(gpu_t *g, const void *image, char *dev_name, size_t name_len, char *why,
                    size_t n)
{
    CUdevice dev;
    CUcontext ctx;
    int rc = gd_load(&g->cu, why, n);
    if (rc)
        return rc;
    CU_TRY(g, cuInit, (0), why, n);
    CU_TRY(g, cuDeviceGet, (&dev, 0), why, n);
    CU_TRY(g, cuDeviceGetName, (dev_name, (int)name_len, dev), why, n);
    CU_TRY(g, cuDeviceGetAttribute, (&g->sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev),
           why, n);
    CU_TRY(g, cuDevicePrimaryCtxRetain, (&ctx, dev), why, n);
    CU_TRY(g, cuCtxSetCurrent, (ctx), why, n);
    CU_TRY(g, cuModuleLoadData, (&g->mod, image), why, n);
    CU_TRY(g, cuMemAlloc_v2, (&g->copy_src, COPY_BYTES), why, n);
    CU_TRY(g, cuMemAlloc_v2, (&g->copy_dst, COPY_BYTES), why, n);
    CU_TRY(g, cuMemsetD8_v2, (g->copy_src, 1, COPY_BYTES), why, n);
    for (int k = 0; k < 3; k++)
        CU_TRY(g, cuEventCreate, (&g->ev[k], 0), why, n);
    return 0;
}

/* The case's host buffers (in_n, ids_n, out_n set): 0 or -ENOMEM. */
static int host_alloc(gcase_t *c)
{
    c->in = malloc(c->in_n * sizeof(float));
    c->want = malloc(c->out_n * sizeof(float));
    c->got = malloc(c->out_n * sizeof(float));
    c->ids = c->ids_n ? malloc(c->ids_n * sizeof(int)) : NULL;
    if (!c->in || !c->want || !c->got || (c->ids_n && !c->ids))
        return -ENOMEM;
    bench_fill(c->in, c->in_n, 7);
    return 0;
}

/* gm_transpose of 8 NCHW images, C = 512, H x W = 64 x 64, to NHWC: 64 MiB each way. */
static int case_transpose(gcase_t *c, int sms)
{
    enum { B = 8, R = 512, C = 4096 };
    (void)sms;
    *c = (gcase_t){.metric = GPU_METRICS[0], .kernel = "gm_transpose", .in_n = (size_t)B * R * C,
                   .out_n = (size_t)B * R * C, .arg = {R, C}, .grid = {C / GM_TILE, R / GM_TILE, B},
                   .block = {GM_TILE, GM_TILE_ROWS, 1}};
    snprintf(c->shape, sizeof c->shape, "%d x %d x %d floats", B, R, C);
    c->bytes = 2.0 * (double)(c->out_n * sizeof(float));
    if (host_alloc(c))
        return -ENOMEM;
    oracle_transpose(c->in, c->want, B, R, C);
    c->params[0] = &c->d_in, c->params[1] = &c->d_out;
    c->params[2] = &c->arg[0], c->params[3] = &c->arg[1];
    return 0;
}

/* gm_row_sum of 16384 rows of 4096 floats: 256 MiB read. */
static int case_row_sum(gcase_t *c, int sms)
{
    enum { R = 16384, C = 4096 };
    (void)sms;
    *c = (gcase_t){.metric = GPU_METRICS[1], .kernel = "gm_row_sum", .in_n = (size_t)R * C,
                   .out_n = R, .arg = {C, 0}, .grid = {R, 1, 1},
                   .block = {GM_REDUCE_THREADS, 1, 1}};
    snprintf(c->shape, sizeof c->shape, "%d rows of %d floats", R, C);
    c->bytes = (double)(c->in_n + c->out_n) * sizeof(float);
    if (host_alloc(c))
        return -ENOMEM;
    oracle_row_sum(c->in, c->want, R, C);
    c->params[0] = &c->d_in, c->params[1] = &c->d_out, c->params[2] = &c->arg[0];
    return 0;
}

/* gm_gather of 16384 ids from a 32768 x 1024 table (128 MiB): 64 MiB gathered, with
 * GATHER_BLOCKS_PER_SM blocks per SM (a grid-stride loop covers the rest). */
static int case_gather(gcase_t *c, int sms)
{
    enum { V = 32768, D = 1024, N = 16384 };
    size_t n = (size_t)N * D, blocks = (size_t)GATHER_BLOCKS_PER_SM * (sms > 0 ? sms : 1);
    *c = (gcase_t){.metric = GPU_METRICS[2], .kernel = "gm_gather", .in_n = (size_t)V * D,
                   .ids_n = N, .out_n = n, .arg = {N, D}, .block = {GM_GATHER_THREADS, 1, 1}};
    c->grid[0] = (unsigned)(blocks < n / GM_GATHER_THREADS ? blocks : n / GM_GATHER_THREADS);
    c->grid[1] = c->grid[2] = 1;
    snprintf(c->shape, sizeof c->shape, "%d ids of a %d x %d table, %u blocks", N, V, D,
             c->grid[0]);
    c->bytes = (double)((2 * n + N) * sizeof(float));
    if (host_alloc(c))
        return -ENOMEM;
    gather_case(c->in, V, D, c->ids, N, c->want);
    c->params[0] = &c->d_in, c->params[1] = &c->d_ids, c->params[2] = &c->d_out;
    c->params[3] = &c->arg[0], c->params[4] = &c->arg[1];
    return 0;
}

/* The case's device buffers, its input uploaded. 0 or -EIO (the machine's: out of memory). */
static int device_alloc(gpu_t *g, gcase_t *c, char *why, size_t n)
{
    CU_TRY(g, cuMemAlloc_v2, (&c->d_in, c->in_n * sizeof(float)), why, n);
    CU_TRY(g, cuMemAlloc_v2, (&c->d_out, c->out_n * sizeof(float)), why, n);
    CU_TRY(g, cuMemcpyHtoD_v2, (c->d_in, c->in, c->in_n * sizeof(float)), why, n);
    if (c->ids_n) {
        CU_TRY(g, cuMemAlloc_v2, (&c->d_ids, c->ids_n * sizeof(int)), why, n);
        CU_TRY(g, cuMemcpyHtoD_v2, (c->d_ids, c->ids, c->ids_n * sizeof(int)), why, n);
    }
    return 0;
}

static void case_free(gpu_t *g, gcase_t *c)
{
    CUdeviceptr d[3] = {c->d_in, c->d_ids, c->d_out};
    for (int k = 0; k < 3; k++)
        if (d[k])
            (void)g->cu.cuMemFree_v2(d[k]);
    free(c->in), free(c->want), free(c->got), free(c->ids);
}

/* One round: the output poisoned (NaN), then between events the copy and your kernel, then
 * its output checked. 0 with both times in seconds, or with why: -EIO, a driver call failed
 * (your kernel faulted: every later use of the GPU in this process fails too); -EDOM, its
 * output is wrong. */
static int one_round(gpu_t *g, gcase_t *c, CUfunction f, double t[2], char *why, size_t n)
{
    float ms[2];
    CU_TRY(g, cuMemsetD8_v2, (c->d_out, 0xff, c->out_n * sizeof(float)), why, n);
    CU_TRY(g, cuEventRecord, (g->ev[0], NULL), why, n);
    CU_TRY(g, cuMemcpyDtoDAsync_v2, (g->copy_dst, g->copy_src, COPY_BYTES, NULL), why, n);
    CU_TRY(g, cuEventRecord, (g->ev[1], NULL), why, n);
    CU_TRY(g, cuLaunchKernel, (f, c->grid[0], c->grid[1], c->grid[2], c->block[0], c->block[1],
                               c->block[2], 0, NULL, c->params, NULL), why, n);
    CU_TRY(g, cuEventRecord, (g->ev[2], NULL), why, n);
    CU_TRY(g, cuEventSynchronize, (g->ev[2]), why, n);
    CU_TRY(g, cuEventElapsedTime_v2, (&ms[0], g->ev[0], g->ev[1]), why, n);
    CU_TRY(g, cuEventElapsedTime_v2, (&ms[1], g->ev[1], g->ev[2]), why, n);
    CU_TRY(g, cuMemcpyDtoH_v2, (c->got, c->d_out, c->out_n * sizeof(float)), why, n);
    for (size_t i = 0; i < c->out_n; i++)
        if (c->got[i] != c->want[i]) {
            snprintf(why, n, "wrong result on the GPU: element %zu is %g, expected %g", i,
                     (double)c->got[i], (double)c->want[i]);
            return -EDOM;
        }
    if (!(ms[0] > 0 && ms[1] > 0)) {
        snprintf(why, n, "CUDA events timed %g ms for the copy and %g ms for the kernel",
                 (double)ms[0], (double)ms[1]);
        return -EIO;
    }
    t[0] = ms[0] * 1e-3, t[1] = ms[1] * 1e-3;
    return 0;
}

/* The rounds of one case and its metric: failed on a fault or a wrong output, skipped when the
 * copy's times spread more than MAX_SPREAD (something else used the GPU), else measured. */
static void time_case(mm_json_t *j, gpu_t *g, gcase_t *c, CUfunction f)
{
    double t[2], copy[ROUNDS], kern[ROUNDS], ratio[ROUNDS], copy_bw = 2.0 * COPY_BYTES;
    char why[300];
    for (int r = 0; r < WARMUP + ROUNDS; r++) {
        int rc = one_round(g, c, f, t, why, sizeof why);
        if (rc) {
            mm_bench_failf(j, c->metric, "%s (round %d): %s", c->kernel, r + 1, why);
            g->lost = rc == -EIO ? c->kernel : NULL;
            return;
        }
        if (r >= WARMUP) {
            copy[r - WARMUP] = t[0], kern[r - WARMUP] = t[1];
            ratio[r - WARMUP] = (c->bytes / t[1]) / (copy_bw / t[0]);
        }
    }
    double tc = mm_median(copy, ROUNDS), tk = mm_median(kern, ROUNDS);   /* both now sorted */
    double spread = copy[3 * ROUNDS / 4] / copy[ROUNDS / 4];
    if (spread > MAX_SPREAD) {
        mm_bench_skipf(j, c->metric, "the device-to-device copy's times varied by %.2fx between "
                       "quartiles (gate: %.2fx): the GPU was busy with other work", spread,
                       MAX_SPREAD);
        return;
    }
    mm_bench_metricf(j, c->metric, mm_median(ratio, ROUNDS), "x copy",
                     "%s %.0f GB/s effective (%.3f ms), device-to-device copy %.0f GB/s "
                     "(%.3f ms for %zu MiB); medians of %d rounds; %s", c->kernel,
                     c->bytes / tk / 1e9, tk * 1e3, copy_bw / tc / 1e9, tc * 1e3,
                     COPY_BYTES >> 20, ROUNDS, c->shape);
}

/* One metric: the case built, its buffers made, your kernel found, then timed. */
static void run_case(mm_json_t *j, gpu_t *g, int (*make)(gcase_t *, int))
{
    gcase_t c = {0};
    CUfunction f;
    CUresult e;
    char why[300], err[64];
    if (make(&c, g->sms))
        mm_bench_skipf(j, c.metric, "no host memory for the %s case", c.kernel);
    else if (g->lost)
        mm_bench_failf(j, c.metric, "%s not run: the GPU is unusable in this process after %s "
                       "failed (see its metric)", c.kernel, g->lost);
    else if (device_alloc(g, &c, why, sizeof why))
        mm_bench_skipf(j, c.metric, "the GPU could not hold the %s case: %s", c.kernel, why);
    else if ((e = g->cu.cuModuleGetFunction(&f, g->mod, c.kernel)) != CUDA_SUCCESS)
        mm_bench_failf(j, c.metric, "%s is not in nvcc's build of src/kernels.cu (%s)", c.kernel,
                       gd_error(&g->cu, e, err, sizeof err));
    else
        time_case(j, g, &c, f);
    case_free(g, &c);
}

/* Why the GPU metrics cannot be measured here (1, in why), or 0. */
static int not_here(const char *log, size_t image_len, char *why, size_t n)
{
    char backend[320];
    if (mm_cuda_backend(backend, sizeof backend)) {
        snprintf(why, n, "not timed: no GPU to run your kernels on here (%s)", backend);
        return 1;
    }
    if (image_len == 0 && strncmp(log, "ok", 2) != 0 && strncmp(log, "nvcc:", 5) != 0) {
        snprintf(why, n, "not timed: %s", log);
        return 1;
    }
    return 0;
}

void bench_gpu(mm_json_t *j, char *name, size_t n)
{
    size_t len;
    const void *image = gpu_image(&len);
    const char *log = gpu_image_log();
    char why[400];
    gpu_t g = {0};
    snprintf(name, n, "not timed");
    if (not_here(log, len, why, sizeof why)) {
        snprintf(name, n, "%s", why);
        mm_bench_skip_all(j, GPU_METRICS, "%s", why);
    } else if (len == 0) {
        mm_bench_fail_all(j, GPU_METRICS, "nvcc did not compile src/kernels.cu for the GPU: %s",
                          log);
    } else if (gpu_open(&g, image, name, n, why, sizeof why)) {
        snprintf(name, n, "not timed: the GPU could not be set up: %s", why);
        mm_bench_skip_all(j, GPU_METRICS, "%s", name);
    } else {
        static int (*const cases[])(gcase_t *, int) = {case_transpose, case_row_sum,
                                                       case_gather};
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
            run_case(j, &g, cases[k]);
    }
}
