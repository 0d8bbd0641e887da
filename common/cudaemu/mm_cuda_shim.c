/* The CUDA runtime's functions for a lab's programs: each calls the real runtime or the emulator
 * (compiled with MM_EMU_PRIVATE_NAMES: mm_emu_cudaX), as mm_cuda_emulated decides once per
 * process (see mm_emu.h). The real runtime is loaded with dlopen, not linked, so that the same
 * program runs with or without a GPU, a driver or a toolkit. Built by common/lab-build.mk into
 * the labs that use CUDA, with MM_CUDA_SHIM_NO_KERNELS where the lab's kernels (its .cu files)
 * could not be compiled (no nvcc): the real runtime then only runs when MLMEM_CUDA=real asks. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mm_cuda_api.h"

/* The emulator's entry points, and pointers to the real runtime's. */
#define MM_SHIM_DECLARE_(ret, name, params, args)                                             \
    ret mm_emu_##name params;                                                                 \
    static ret(*real_##name) params;
MM_EMU_FUNCTIONS(MM_SHIM_DECLARE_)
#undef MM_SHIM_DECLARE_

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int emulated;
static char reason[320];

/* Loads the real runtime into real_*; 0, or -1 with why in reason. */
static int load_real(void)
{
    static const char *const libs[] = {"libcudart.so.13", "libcudart.so"};
    void *h = NULL;
    for (size_t i = 0; i < sizeof libs / sizeof libs[0] && !h; i++)
        h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(reason, sizeof reason, "no CUDA runtime library (libcudart.so.13 or .so)");
        return -1;
    }
#define MM_SHIM_LOAD_(ret, name, params, args)                                                \
    *(void **)&real_##name = dlsym(h, #name);                                                 \
    if (!real_##name) {                                                                       \
        snprintf(reason, sizeof reason, "the CUDA runtime library lacks %s", #name);          \
        return -1;                                                                            \
    }
    MM_EMU_FUNCTIONS(MM_SHIM_LOAD_)
#undef MM_SHIM_LOAD_
    return 0;
}

#ifndef MM_CUDA_SHIM_NO_KERNELS
/* Whether device 0 of the real runtime works (as mm_cuda_usable finds out); else why. */
static int real_usable(void)
{
    int count = 0;
    cudaError_t e = real_cudaGetDeviceCount(&count);
    if (e == cudaSuccess && count > 0)
        e = real_cudaSetDevice(0);
    if (e == cudaSuccess && count > 0)
        e = real_cudaFree(0);
    (void)real_cudaGetLastError();
    if (e == cudaSuccess && count > 0)
        return 1;
    if (e == cudaSuccess)
        snprintf(reason, sizeof reason, "no CUDA device");
    else
        snprintf(reason, sizeof reason, "%s (%s)", real_cudaGetErrorString(e),
                 real_cudaGetErrorName(e));
    return 0;
}
#endif

static void decide(void)
{
    const char *force = getenv("MLMEM_CUDA");
    if (force && strcmp(force, "emulate") == 0) {
        emulated = 1;
        snprintf(reason, sizeof reason, "MLMEM_CUDA=emulate");
    } else if (force && strcmp(force, "real") == 0) {
        if (load_real() != 0) {
            fprintf(stderr, "mlmem: MLMEM_CUDA=real, but %s\n", reason);
            abort();
        }
        emulated = 0;
        snprintf(reason, sizeof reason, "MLMEM_CUDA=real");
    } else {
#ifdef MM_CUDA_SHIM_NO_KERNELS
        emulated = 1;
        snprintf(reason, sizeof reason,
                 "built without nvcc, so without the GPU kernels; MLMEM_CUDA=real uses the GPU");
#else
        char first[sizeof reason];
        emulated = !(load_real() == 0 && real_usable());
        if (emulated) {
            snprintf(first, sizeof first, "%s", reason);
            snprintf(reason, sizeof reason, "no usable GPU: %.290s", first);
        }
#endif
    }
}

int mm_cuda_emulated(void)
{
    pthread_once(&once, decide);
    return emulated;
}

int mm_cuda_backend(char *why, size_t n)
{
    int emu = mm_cuda_emulated();
    if (why && n > 0)
        snprintf(why, n, "%s", reason[0] ? reason : "a usable GPU");
    return emu;
}

/* The CUDA runtime's functions. */
#define MM_SHIM_DEFINE_(ret, name, params, args)                                              \
    ret name params                                                                           \
    {                                                                                         \
        return mm_cuda_emulated() ? mm_emu_##name args : real_##name args;                    \
    }
MM_EMU_FUNCTIONS(MM_SHIM_DEFINE_)
#undef MM_SHIM_DEFINE_
