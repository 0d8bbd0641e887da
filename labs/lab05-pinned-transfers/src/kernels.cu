/* Lab 05: the transform kernel the pipeline runs on every chunk (see gpu.h), for a real GPU;
 * src/kernels_host.c runs it on the emulated device. Provided: not yours to edit; the grader
 * builds its own copy. Compiled only where nvcc exists. */
#include <cuda_runtime.h>
#include "gpu.h"

/* Grid-stride loop: each thread takes words i, i + stride, ... and runs `rounds` LCG steps. */
__global__ void pt_transform_kernel(const uint32_t *in, uint32_t *out, size_t n, unsigned rounds)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        uint32_t x = in[i];
        for (unsigned r = 0; r < rounds; r++)
            x = x * PT_LCG_A + PT_LCG_C;
        out[i] = x;
    }
}

extern "C" int pt_launch_transform_gpu(const uint32_t *in, uint32_t *out, size_t n,
                                       unsigned rounds, void *stream)
{
    if (n == 0)
        return 0;
    const unsigned threads = 256;
    size_t blocks = (n + threads - 1) / threads;
    if (blocks > 8192)
        blocks = 8192; /* enough to fill any current GPU; the loop covers the rest */
    pt_transform_kernel<<<(unsigned)blocks, threads, 0, (cudaStream_t)stream>>>(in, out, n,
                                                                                  rounds);
    return pt_cuda_errno((int)cudaGetLastError());
}
