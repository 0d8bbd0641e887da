/* Lab 05 tests: what the test files share. GPU tests skip, with the reason, where this build has
 * no CUDA (no nvcc) or this machine no usable GPU: a skip is never a pass. */
#ifndef PT_SUPPORT_H
#define PT_SUPPORT_H
#include "gpu.h"
#include "mm_check.h"

/* Ends the test as skipped unless the GPU code was compiled (nvcc was found and works). */
#ifdef MM_HAVE_CUDA
#define NEED_CUDA_BUILD() ((void)0)
#else
#define NEED_CUDA_BUILD() MM_SKIP("%s: the GPU code is not compiled", PT_NO_CUDA_BUILD)
#endif

/* Ends the test as skipped unless there is a usable CUDA device. */
#define NEED_GPU()                                                                       \
    do {                                                                                 \
        char need_gpu_why_[300];                                                         \
        if (!pt_gpu_usable(need_gpu_why_, sizeof need_gpu_why_))                         \
            MM_SKIP("no usable CUDA device: %s", need_gpu_why_);                         \
    } while (0)

#endif
