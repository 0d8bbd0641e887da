/* Lab 05: pt_launch_transform (see gpu.h): on a real GPU it launches the CUDA kernel
 * (src/kernels.cu), on the emulated device the same transform as a host function, declaring the
 * device memory it reads and writes for the emulator's race checks. Provided: not yours to edit;
 * the grader builds its own copy. */
#ifdef MM_HAVE_CUDA
#include <errno.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "gpu.h"
#include "mm_emu.h"

#ifdef MM_HAVE_NVCC
/* src/kernels.cu: the launch on a real GPU. */
int pt_launch_transform_gpu(const uint32_t *in, uint32_t *out, size_t n, unsigned rounds,
                            void *stream);
#endif

typedef struct {
    const uint32_t *in;
    uint32_t *out;
    size_t n;
    unsigned rounds;
} transform_args_t;

/* The kernel on the emulated device: out[i] = transform(in[i], rounds), through the affine map
 * of pt_transform_coeffs (the same result as the LCG steps, in O(n + rounds)). */
static int host_transform(void *arg)
{
    const transform_args_t *t = (const transform_args_t *)arg;
    const uint32_t *in = (const uint32_t *)mm_emu_view(t->in, t->n * sizeof(uint32_t));
    uint32_t *out = (uint32_t *)mm_emu_view(t->out, t->n * sizeof(uint32_t));
    if (!in || !out)
        return 1; /* not device memory: a fault, as on a GPU */
    uint32_t a, b;
    pt_transform_coeffs(t->rounds, &a, &b);
    for (size_t i = 0; i < t->n; i++)
        out[i] = a * in[i] + b;
    return 0;
}

int pt_launch_transform(const uint32_t *in, uint32_t *out, size_t n, unsigned rounds,
                        void *stream)
{
    if (n == 0)
        return 0;
    if (!mm_cuda_emulated()) {
#ifdef MM_HAVE_NVCC
        return pt_launch_transform_gpu(in, out, n, rounds, stream);
#else
        return -ENODEV; /* MLMEM_CUDA=real in a build without the kernels */
#endif
    }
    if (n > SIZE_MAX / sizeof(uint32_t))
        return pt_cuda_errno((int)cudaErrorInvalidValue);
    size_t bytes = n * sizeof(uint32_t);
    transform_args_t args = {in, out, n, rounds};
    mm_emu_span_t spans[2] = {{out, bytes, 1}, {in, bytes, 0}};
    mm_emu_kernel_t k = {host_transform, &args, sizeof args, spans, in == out ? 1u : 2u, 0.0};
    return pt_cuda_errno((int)mm_emu_launch_kernel((cudaStream_t)stream, &k));
}
#endif /* MM_HAVE_CUDA */
