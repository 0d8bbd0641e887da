/* MM_CUDA_CHECK: error checking for CUDA runtime calls, usable from .c and .cu files.
 * Library code uses MM_CUDA_TRY (turns a failure into a returned error code) and mm_cuda_errno;
 * test and benchmark drivers may use MM_CUDA_CHECK (prints file:line and aborts); every lab asks
 * mm_cuda_usable whether there is a GPU to run on.
 * The error mapping itself (mm_cuda_errno_of, on plain cudaError_t numbers) needs no CUDA toolkit:
 * without MM_HAVE_CUDA (or nvcc) only it is defined, which is how common/selftest tests it. */
#ifndef MM_CUDA_CHECK_H
#define MM_CUDA_CHECK_H
#include <errno.h>

/* The cudaError_t values the mapping names (the runtime's numbers, the same in CUDA 11 to 13;
 * checked against the toolkit's enum below wherever it is compiled with CUDA). */
enum {
    MM_CUDA_SUCCESS = 0,
    MM_CUDA_INVALID_VALUE = 1,
    MM_CUDA_MEMORY_ALLOCATION = 2,
    MM_CUDA_INITIALIZATION_ERROR = 3,
    MM_CUDA_STUB_LIBRARY = 34,          /* linked against the stub libcuda, no real driver */
    MM_CUDA_INSUFFICIENT_DRIVER = 35,   /* the driver is older than the toolkit needs */
    MM_CUDA_DEVICES_UNAVAILABLE = 46,   /* exclusive-process GPU busy, or prohibited */
    MM_CUDA_NO_DEVICE = 100,
    MM_CUDA_INVALID_DEVICE = 101,
    MM_CUDA_NOT_READY = 600,
    MM_CUDA_HOST_MEMORY_ALREADY_REGISTERED = 712,
    MM_CUDA_SYSTEM_NOT_READY = 802,     /* e.g. the fabric manager of an NVSwitch system stopped */
    MM_CUDA_SYSTEM_DRIVER_MISMATCH = 803,
    MM_CUDA_COMPAT_NOT_SUPPORTED = 804, /* forward-compatibility package on an unsupported GPU */
};

/* The negative errno for a CUDA runtime error number, the one mapping every lab's CUDA code
 * uses: 0 for success; -ENOMEM out of memory; -EINVAL invalid value; -ENODEV for every "no usable
 * device" error (no device or driver, a driver too old, a stub library, a busy exclusive-process
 * GPU, a system not ready: the codes 3, 34, 35, 46, 100, 101, 802, 803, 804), which the labs turn
 * into a skip; -EAGAIN not ready; -EEXIST host memory already registered; anything else -EIO. */
static inline int mm_cuda_errno_of(int code)
{
    switch (code) {
    case MM_CUDA_SUCCESS: return 0;
    case MM_CUDA_MEMORY_ALLOCATION: return -ENOMEM;
    case MM_CUDA_INVALID_VALUE: return -EINVAL;
    case MM_CUDA_INITIALIZATION_ERROR:
    case MM_CUDA_STUB_LIBRARY:
    case MM_CUDA_INSUFFICIENT_DRIVER:
    case MM_CUDA_DEVICES_UNAVAILABLE:
    case MM_CUDA_NO_DEVICE:
    case MM_CUDA_INVALID_DEVICE:
    case MM_CUDA_SYSTEM_NOT_READY:
    case MM_CUDA_SYSTEM_DRIVER_MISMATCH:
    case MM_CUDA_COMPAT_NOT_SUPPORTED: return -ENODEV;
    case MM_CUDA_NOT_READY: return -EAGAIN;
    case MM_CUDA_HOST_MEMORY_ALREADY_REGISTERED: return -EEXIST;
    default: return -EIO;
    }
}

#if defined(MM_HAVE_CUDA) || defined(__CUDACC__)
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
#define MM_CUDA_SAME_(ours, theirs) static_assert((int)(ours) == (int)(theirs), #theirs)
#else
#define MM_CUDA_SAME_(ours, theirs) _Static_assert((int)(ours) == (int)(theirs), #theirs)
#endif
MM_CUDA_SAME_(MM_CUDA_INVALID_VALUE, cudaErrorInvalidValue);
MM_CUDA_SAME_(MM_CUDA_MEMORY_ALLOCATION, cudaErrorMemoryAllocation);
MM_CUDA_SAME_(MM_CUDA_INITIALIZATION_ERROR, cudaErrorInitializationError);
MM_CUDA_SAME_(MM_CUDA_STUB_LIBRARY, cudaErrorStubLibrary);
MM_CUDA_SAME_(MM_CUDA_INSUFFICIENT_DRIVER, cudaErrorInsufficientDriver);
MM_CUDA_SAME_(MM_CUDA_DEVICES_UNAVAILABLE, cudaErrorDevicesUnavailable);
MM_CUDA_SAME_(MM_CUDA_NO_DEVICE, cudaErrorNoDevice);
MM_CUDA_SAME_(MM_CUDA_INVALID_DEVICE, cudaErrorInvalidDevice);
MM_CUDA_SAME_(MM_CUDA_NOT_READY, cudaErrorNotReady);
MM_CUDA_SAME_(MM_CUDA_HOST_MEMORY_ALREADY_REGISTERED, cudaErrorHostMemoryAlreadyRegistered);
MM_CUDA_SAME_(MM_CUDA_SYSTEM_NOT_READY, cudaErrorSystemNotReady);
MM_CUDA_SAME_(MM_CUDA_SYSTEM_DRIVER_MISMATCH, cudaErrorSystemDriverMismatch);
MM_CUDA_SAME_(MM_CUDA_COMPAT_NOT_SUPPORTED, cudaErrorCompatNotSupportedOnDevice);
#undef MM_CUDA_SAME_

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

/* mm_cuda_errno_of for a cudaError_t. */
static inline int mm_cuda_errno(cudaError_t e)
{
    return mm_cuda_errno_of((int)e);
}

/* Whether this process can run work on CUDA device 0, found by doing it: device count, then
 * cudaSetDevice and cudaFree(0), which create the context (a GPU that only shows up in the count
 * can still be unusable: taken by another process in exclusive-process mode, its fabric manager
 * stopped, a driver too old for this toolkit). Returns the number of devices (> 0) if device 0
 * works; else 0, with the runtime's message and error name in why[0..n) (why may be NULL), e.g.
 * "CUDA driver version is insufficient for CUDA runtime version (cudaErrorInsufficientDriver)".
 * Clears the runtime's last error either way. */
static inline int mm_cuda_usable(char *why, size_t n)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaSuccess && count > 0)
        e = cudaSetDevice(0);
    if (e == cudaSuccess && count > 0)
        e = cudaFree(0);
    (void)cudaGetLastError();
    if (e == cudaSuccess && count > 0)
        return count;
    if (why && n > 0) {
        if (e == cudaSuccess)
            snprintf(why, n, "no CUDA device");
        else
            snprintf(why, n, "%s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
    }
    return 0;
}
#endif /* MM_HAVE_CUDA || __CUDACC__ */

#endif
