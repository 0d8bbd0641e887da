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
    /* ===== YOUR CODE HERE ===== */
    (void)bytes, (void)iters, (void)seconds, (void)gbps;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int pt_pin_budget(size_t ram_bytes, unsigned percent, size_t *out)
{
    /* ===== YOUR CODE HERE =====
     * ram_bytes * percent overflows for large ram_bytes: split ram_bytes into ram / 100 and
     * ram % 100 first. */
    (void)ram_bytes, (void)percent, (void)out;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

/* Everything below needs the CUDA runtime: it is compiled only where nvcc exists (without it,
 * src/gpu.c supplies versions that return -ENODEV). Turn CUDA errors into errnos with
 * pt_cuda_errno(e) (gpu.h). */
#ifdef MM_HAVE_CUDA
#include <cuda_runtime_api.h>

int pt_host_alloc(pt_host_kind_t kind, size_t bytes, void **out)
{
    /* ===== YOUR CODE HERE =====
     * Check the arguments before any CUDA call; then posix_memalign (pageable), cudaHostAlloc
     * with cudaHostAllocDefault or cudaHostAllocWriteCombined, or posix_memalign followed by
     * cudaHostRegister. */
    (void)kind, (void)bytes, (void)out;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int pt_host_free(pt_host_kind_t kind, void *p)
{
    /* ===== YOUR CODE HERE ===== */
    (void)kind, (void)p;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int pt_measure_copy(pt_host_kind_t kind, pt_dir_t dir, size_t bytes, unsigned iters,
                    double *gbps)
{
    /* ===== YOUR CODE HERE =====
     * bandwidthTest's method: host memory of `kind` (touch it), cudaMalloc, a stream, two events;
     * one warm-up cudaMemcpyAsync; cudaEventRecord(start, stream); `iters` copies;
     * cudaEventRecord(stop, stream); cudaEventSynchronize(stop); cudaEventElapsedTime (in ms).
     * Free everything on every path. */
    (void)kind, (void)dir, (void)bytes, (void)iters, (void)gbps;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

#endif /* MM_HAVE_CUDA */
