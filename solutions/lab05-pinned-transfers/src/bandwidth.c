/* Lab 05, part A: host memory kinds and copy bandwidth (contract in include/bandwidth.h).
 * Background and hints: labs/lab05-pinned-transfers/README.md, `make hint LAB=05`. */
#include "bandwidth.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gpu.h"

int pt_gbps(size_t bytes, unsigned iters, double seconds, double *gbps)
{
    if (!gbps || bytes == 0 || iters == 0 || !isfinite(seconds) || seconds <= 0)
        return -EINVAL;
    *gbps = (double)bytes * iters / 1e9 / seconds;
    return 0;
}

int pt_pin_budget(size_t ram_bytes, unsigned percent, size_t *out)
{
    if (!out || ram_bytes == 0 || percent < 1 || percent > 15)
        return -EINVAL;
    size_t b = ram_bytes / 100 * percent + ram_bytes % 100 * percent / 100;
    *out = b - b % 4096;
    return 0;
}

/* Everything below needs the CUDA runtime: it is compiled only where nvcc exists (without it,
 * src/gpu.c supplies versions that return -ENODEV). */
#ifdef MM_HAVE_CUDA
#include <cuda_runtime_api.h>

static int kind_ok(pt_host_kind_t kind)
{
    return (unsigned)kind < PT_HOST_KINDS;
}

/* Ordinary page-aligned memory, then page-locked in place. */
static int alloc_registered(size_t bytes, void **out)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, bytes) != 0)
        return -ENOMEM;
    int rc = pt_cuda_errno(cudaHostRegister(p, bytes, cudaHostRegisterDefault));
    if (rc != 0) {
        free(p);
        return rc;
    }
    *out = p;
    return 0;
}

int pt_host_alloc(pt_host_kind_t kind, size_t bytes, void **out)
{
    if (!out || bytes == 0 || !kind_ok(kind))
        return -EINVAL;
    void *p = NULL;
    switch (kind) {
    case PT_HOST_PAGEABLE:
        if (posix_memalign(&p, 4096, bytes) != 0)
            return -ENOMEM;
        break;
    case PT_HOST_PINNED:
    case PT_HOST_PINNED_WC: {
        unsigned flags = kind == PT_HOST_PINNED ? cudaHostAllocDefault : cudaHostAllocWriteCombined;
        int rc = pt_cuda_errno(cudaHostAlloc(&p, bytes, flags));
        if (rc != 0)
            return rc;
        break;
    }
    default:
        return alloc_registered(bytes, out);
    }
    *out = p;
    return 0;
}

int pt_host_free(pt_host_kind_t kind, void *p)
{
    if (!kind_ok(kind))
        return -EINVAL;
    if (!p)
        return 0;
    int rc = 0;
    if (kind == PT_HOST_PINNED || kind == PT_HOST_PINNED_WC)
        return pt_cuda_errno(cudaFreeHost(p));
    if (kind == PT_HOST_REGISTERED)
        rc = pt_cuda_errno(cudaHostUnregister(p));
    free(p);
    return rc;
}

typedef struct {
    pt_host_kind_t kind;
    void *host, *dev;
    cudaStream_t stream;
    cudaEvent_t start, stop;
} copy_job_t;

static int job_setup(copy_job_t *j, size_t bytes)
{
    int rc = pt_host_alloc(j->kind, bytes, &j->host);
    if (rc != 0)
        return rc;
    memset(j->host, 0x5a, bytes); /* touch every page before timing */
    cudaError_t e = cudaMalloc(&j->dev, bytes);
    if (e == cudaSuccess)
        e = cudaStreamCreateWithFlags(&j->stream, cudaStreamNonBlocking);
    if (e == cudaSuccess)
        e = cudaEventCreate(&j->start);
    if (e == cudaSuccess)
        e = cudaEventCreate(&j->stop);
    return pt_cuda_errno(e);
}

static void job_teardown(copy_job_t *j)
{
    if (j->stream)
        cudaStreamSynchronize(j->stream);
    if (j->stop)
        cudaEventDestroy(j->stop);
    if (j->start)
        cudaEventDestroy(j->start);
    if (j->stream)
        cudaStreamDestroy(j->stream);
    cudaFree(j->dev);
    pt_host_free(j->kind, j->host);
    (void)cudaGetLastError();
}

/* One warm-up copy, then `iters` copies between two events. */
static int job_time(copy_job_t *j, pt_dir_t dir, size_t bytes, unsigned iters, double *s)
{
    void *to = dir == PT_TO_DEVICE ? j->dev : j->host;
    const void *from = dir == PT_TO_DEVICE ? j->host : j->dev;
    enum cudaMemcpyKind k = dir == PT_TO_DEVICE ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    cudaError_t e = cudaMemcpyAsync(to, from, bytes, k, j->stream);
    if (e == cudaSuccess)
        e = cudaEventRecord(j->start, j->stream);
    for (unsigned i = 0; i < iters && e == cudaSuccess; i++)
        e = cudaMemcpyAsync(to, from, bytes, k, j->stream);
    if (e == cudaSuccess)
        e = cudaEventRecord(j->stop, j->stream);
    if (e == cudaSuccess)
        e = cudaEventSynchronize(j->stop);
    float ms = 0;
    if (e == cudaSuccess)
        e = cudaEventElapsedTime(&ms, j->start, j->stop);
    *s = ms / 1e3;
    return pt_cuda_errno(e);
}

int pt_measure_copy(pt_host_kind_t kind, pt_dir_t dir, size_t bytes, unsigned iters,
                    double *gbps)
{
    if (!gbps || !kind_ok(kind) || (dir != PT_TO_DEVICE && dir != PT_TO_HOST) || bytes == 0 ||
        iters == 0)
        return -EINVAL;
    copy_job_t j = { .kind = kind };
    double s = 0;
    int rc = job_setup(&j, bytes);
    if (rc == 0)
        rc = job_time(&j, dir, bytes, iters, &s);
    if (rc == 0)
        rc = pt_gbps(bytes, iters, s, gbps);
    job_teardown(&j);
    return rc;
}

#endif /* MM_HAVE_CUDA */
