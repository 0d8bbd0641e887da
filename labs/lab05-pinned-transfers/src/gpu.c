/* Lab 05: provided helpers (see gpu.h). Not yours to edit: the grader builds its own copy.
 * The build always compiles the CUDA runtime code (MM_HAVE_CUDA), which runs on a real GPU where
 * one is usable and on the emulated device otherwise; a build without MM_HAVE_CUDA gets versions
 * of the GPU functions of bandwidth.h and pipeline.h that return -ENODEV. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include "bandwidth.h"
#include "gpu.h"
#include "pipeline.h"
#ifdef MM_HAVE_CUDA
#include <cuda_runtime_api.h>
#include "mm_cuda_check.h"
#include "mm_emu.h"
#endif

size_t pt_ram_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return 1;
    return (size_t)pages * (size_t)page;
}

void pt_transform_coeffs(unsigned rounds, uint32_t *a, uint32_t *b)
{
    uint32_t ma = 1, mb = 0; /* the identity map */
    for (unsigned r = 0; r < rounds; r++) {
        ma *= PT_LCG_A; /* (A, C) after (ma, mb): x -> A * (ma x + mb) + C */
        mb = mb * PT_LCG_A + PT_LCG_C;
    }
    *a = ma;
    *b = mb;
}

uint64_t pt_checksum(const uint32_t *v, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = ((uint64_t)v[i] << 32 | (uint32_t)i) * 0xff51afd7ed558ccdull;
        h += x ^ (x >> 29);
    }
    return h;
}

#ifdef MM_HAVE_CUDA

int pt_gpu_usable(char *why, size_t n)
{
    int usable = mm_cuda_usable(why, n) > 0;
    if (usable && why && n > 0)
        pt_gpu_backend(why, n);
    return usable;
}

int pt_gpu_backend(char *why, size_t n)
{
    char r[300];
    int emulated = mm_cuda_backend(r, sizeof r);
    if (why && n > 0)
        snprintf(why, n, "%s (%s)", emulated ? "emulated device" : "real CUDA device", r);
    return emulated;
}

static _Thread_local int last_error; /* the last failure pt_cuda_errno saw */

int pt_cuda_errno(int cuda_error)
{
    (void)cudaGetLastError();
    if (cuda_error != 0)
        last_error = cuda_error;
    return mm_cuda_errno_of(cuda_error);
}

int pt_cuda_last_error(void)
{
    int e = last_error;
    last_error = 0;
    return e;
}

#else /* built without nvcc: the GPU parts say so */

int pt_gpu_usable(char *why, size_t n)
{
    if (why && n > 0)
        snprintf(why, n, "%s", PT_NO_CUDA_BUILD);
    return 0;
}

int pt_gpu_backend(char *why, size_t n)
{
    if (why && n > 0)
        snprintf(why, n, "%s", PT_NO_CUDA_BUILD);
    return 0;
}

int pt_cuda_errno(int cuda_error)
{
    return cuda_error == 0 ? 0 : -ENODEV;
}

int pt_cuda_last_error(void)
{
    return 0;
}

int pt_launch_transform(const uint32_t *in, uint32_t *out, size_t n, unsigned rounds,
                        void *stream)
{
    (void)in, (void)out, (void)n, (void)rounds, (void)stream;
    return -ENODEV;
}

int pt_host_alloc(pt_host_kind_t kind, size_t bytes, void **out)
{
    (void)kind, (void)bytes, (void)out;
    return -ENODEV;
}

int pt_host_free(pt_host_kind_t kind, void *p)
{
    (void)kind, (void)p;
    return -ENODEV;
}

int pt_measure_copy(pt_host_kind_t kind, pt_dir_t dir, size_t bytes, unsigned iters,
                    double *gbps)
{
    (void)kind, (void)dir, (void)bytes, (void)iters, (void)gbps;
    return -ENODEV;
}

int pt_pipe_create(pt_pipe_t **out, const pt_plan_t *plan, const uint32_t *src, uint32_t *dst)
{
    (void)out, (void)plan, (void)src, (void)dst;
    return -ENODEV;
}

int pt_pipe_run(pt_pipe_t *p, unsigned rounds, double *seconds)
{
    (void)p, (void)rounds, (void)seconds;
    return -ENODEV;
}

void pt_pipe_destroy(pt_pipe_t *p)
{
    (void)p;
}

#endif
