/* Lab 07: the CUDA back end (src/cudadev.c, provided: do not edit): cudaMalloc, cudaFree, CUDA
 * streams and a pool of events. Built everywhere (MM_HAVE_CUDA): on a machine without a usable
 * GPU its calls run on the emulated device (common/cudaemu/). */
#ifndef CA_CUDADEV_H
#define CA_CUDADEV_H
#include <stddef.h>
#include "backend.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ca_cudadev ca_cudadev_t;

/* Why a build has no CUDA back end (only a build without MM_HAVE_CUDA, which common/lab-build.mk
 * never makes). */
#define CA_NO_CUDA_BUILD "built without CUDA (no nvcc, or it cannot compile here: see the build)"

/* 1 if this process can run work on CUDA device 0 (it creates the context to find out: a listed
 * GPU can still be unusable, e.g. taken by another process in exclusive-process mode); else 0
 * with the runtime's message and error name in why[0..n) (e.g. "CUDA driver version is
 * insufficient for CUDA runtime version (cudaErrorInsufficientDriver)"). */
int ca_cuda_usable(char *why, size_t n);

/* Maps a cudaError_t (passed as int) to a negative errno:
 *   0:       cudaSuccess;
 *   -ENOMEM: out of memory;
 *   -EINVAL: invalid value;
 *   -ENODEV: no usable device (none, a bad one, no driver or one too old, a busy
 *            exclusive-process GPU, a system not ready);
 *   -EAGAIN: not ready;
 *   -EIO:    anything else. */
int ca_cuda_errno(int cuda_error);

/* Creates a back end for CUDA device `device`. Touches no driver: the first call that needs the
 * device selects it and reports its failure. Returns 0 and sets *out; -EINVAL, -ENOMEM.
 * Free with ca_cudadev_destroy (after the allocator using it). */
int ca_cudadev_create(ca_cudadev_t **out, int device);

/* Destroys the streams and events it created; NULL is ignored. */
void ca_cudadev_destroy(ca_cudadev_t *d);

/* Fills *be with the function table (name "cuda"). */
void ca_cudadev_backend(ca_cudadev_t *d, ca_backend_t *be);

/* The cudaStream_t (as a void *) behind model stream `s`, created on first use; NULL on error
 * (no device, s out of range). */
void *ca_cudadev_stream(ca_cudadev_t *d, ca_stream_t s);

/* raw_alloc / raw_free calls made so far (successful or not). */
unsigned long long ca_cudadev_raw_calls(const ca_cudadev_t *d);

#ifdef __cplusplus
}
#endif
#endif
