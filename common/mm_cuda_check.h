/* MM_CUDA_CHECK: error checking for CUDA runtime calls, usable from .c and .cu files.
 * Library code uses MM_CUDA_TRY (turns a failure into a returned error code) and mm_cuda_errno;
 * test and benchmark drivers may use MM_CUDA_CHECK (prints file:line and aborts). */
#ifndef MM_CUDA_CHECK_H
#define MM_CUDA_CHECK_H
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>

/* Evaluates `call` once; on failure prints "file:line: call: message" to stderr and aborts. */
#define MM_CUDA_CHECK(call)                                                              \
    do {                                                                                 \
        cudaError_t mm_err_ = (call);                                                    \
        if (mm_err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                \
                    cudaGetErrorString(mm_err_));                                        \
            abort();                                                                     \
        }                                                                                \
    } while (0)

/* Evaluates `call` once; on failure stores the error in `err_var` and jumps to `label`. */
#define MM_CUDA_TRY(call, err_var, label)                                                \
    do {                                                                                 \
        (err_var) = (call);                                                              \
        if ((err_var) != cudaSuccess)                                                    \
            goto label;                                                                  \
    } while (0)

/* The negative errno for a CUDA runtime error, the one mapping every lab's CUDA code uses:
 * 0 for success, -ENOMEM, -EINVAL, -ENODEV (no device or driver), -EAGAIN (not ready), -EEXIST
 * (host memory already registered), else -EIO. */
static inline int mm_cuda_errno(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return 0;
    case cudaErrorMemoryAllocation: return -ENOMEM;
    case cudaErrorInvalidValue: return -EINVAL;
    case cudaErrorNoDevice:
    case cudaErrorInvalidDevice:
    case cudaErrorInsufficientDriver: return -ENODEV;
    case cudaErrorNotReady: return -EAGAIN;
    case cudaErrorHostMemoryAlreadyRegistered: return -EEXIST;
    default: return -EIO;
    }
}

#endif
