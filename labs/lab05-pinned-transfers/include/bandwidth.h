/* Lab 05, part A: host memory for transfers (pageable, pinned, write-combined, registered) and
 * copy bandwidth measured the way CUDA's bandwidthTest does. pt_gbps and pt_pin_budget are host
 * arithmetic; the other functions need the CUDA runtime (a build without nvcc gets versions
 * that return -ENODEV, from src/gpu.c). */
#ifndef PT_BANDWIDTH_H
#define PT_BANDWIDTH_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    PT_HOST_PAGEABLE,   /* ordinary memory: 4096-byte aligned (posix_memalign); free() frees it */
    PT_HOST_PINNED,     /* cudaHostAlloc(..., cudaHostAllocDefault) */
    PT_HOST_PINNED_WC,  /* cudaHostAlloc(..., cudaHostAllocWriteCombined): fast for the GPU to
                         * read, very slow for the CPU to read */
    PT_HOST_REGISTERED, /* ordinary 4096-byte aligned memory, then cudaHostRegister */
    PT_HOST_KINDS
} pt_host_kind_t;

typedef enum { PT_TO_DEVICE, PT_TO_HOST } pt_dir_t; /* H2D, D2H */

/* Bandwidth in GB/s (1 GB = 1e9 bytes) of `iters` copies of `bytes` bytes taking `seconds` in
 * all: bytes * iters / 1e9 / seconds, as bandwidthTest reports it. Returns 0 and sets *gbps;
 * -EINVAL if gbps is NULL, bytes or iters is 0, or seconds is not finite and > 0. */
int pt_gbps(size_t bytes, unsigned iters, double seconds, double *gbps);

/* The most memory a process should pin: `percent` of `ram_bytes`, rounded down to a multiple of
 * 4096 (a page). Pinned pages cannot be swapped or moved: pin too much and the rest of the
 * system starves. Returns 0 and sets *out; -EINVAL if out is NULL, ram_bytes is 0 or percent is
 * not in 1..15. Exact for any ram_bytes (no overflow). */
int pt_pin_budget(size_t ram_bytes, unsigned percent, size_t *out);

/* Allocates `bytes` of host memory of `kind`. Free with pt_host_free(kind, p).
 * Returns 0 and sets *out;
 *   -EINVAL: out is NULL, bytes is 0 or kind is not a pt_host_kind_t;
 *   -ENOMEM: out of memory;
 *   -ENODEV: there is no usable GPU (pinned kinds);
 *   another negative errno from pt_cuda_errno.
 * *out is untouched on failure. */
int pt_host_alloc(pt_host_kind_t kind, size_t bytes, void **out);

/* Frees memory from pt_host_alloc(kind, ...) (unregistering it first for PT_HOST_REGISTERED).
 * p NULL: nothing to do. Returns 0;
 *   -EINVAL: a bad kind;
 *   a negative errno if CUDA fails. */
int pt_host_free(pt_host_kind_t kind, void *p);

/* Measures copy bandwidth between host memory of `kind` and the device, like bandwidthTest:
 * allocates `bytes` on both sides, copies once to warm up, then times `iters` cudaMemcpyAsync
 * calls in direction `dir` on one stream between two CUDA events, and reports
 * pt_gbps(bytes, iters, elapsed). Frees everything it allocated, on every path.
 * Returns 0 and sets *gbps;
 *   -EINVAL: gbps is NULL, kind or dir is out of range, bytes or iters is 0 (checked before any
 *            CUDA call);
 *   -ENODEV: no usable GPU;
 *   -ENOMEM: out of memory;
 *   another negative errno from pt_cuda_errno. */
int pt_measure_copy(pt_host_kind_t kind, pt_dir_t dir, size_t bytes, unsigned iters,
                    double *gbps);

#ifdef __cplusplus
}
#endif
#endif
