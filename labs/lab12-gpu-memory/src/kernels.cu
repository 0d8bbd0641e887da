/* Lab 12: your three kernels (contracts in include/gpu_memory.h). The same file compiles with
 * nvcc for a GPU and, through include/kemu_cuda.h, as C++ for the kernel emulator that grades
 * it by counting each warp's memory traffic (README.md, section 2.5). */
#include "gpu_memory.h"

/* Part A: the transpose (NCHW -> NHWC) through a shared-memory tile. */
__global__ void gm_transpose(const float *in, float *out, int rows, int cols)
{
    /* YOUR CODE HERE: a __shared__ tile of GM_TILE x GM_TILE floats (think about its width);
     * load this block's tile from `in` with consecutive threadIdx.x on consecutive addresses,
     * __syncthreads(), then store it transposed to `out`, again with consecutive threadIdx.x on
     * consecutive addresses. Matrix blockIdx.z starts at in + blockIdx.z * rows * cols. */
    (void)in, (void)out, (void)rows, (void)cols;
}

/* Part B: one block of GM_REDUCE_THREADS threads sums one row. */
__global__ void gm_row_sum(const float *in, float *out, int cols)
{
    /* YOUR CODE HERE: per-thread partial sums over a strided slice of row blockIdx.x, then
     * __shfl_xor_sync / __shfl_down_sync within each warp, a small __shared__ array for the
     * warps' sums, one __syncthreads(), and a last warp-level step; thread 0 writes
     * out[blockIdx.x]. */
    (void)in, (void)out, (void)cols;
}

/* Part C: the embedding gather, a grid-stride loop over the output's elements. */
__global__ void gm_gather(const float *table, const int *ids, float *out, int n_ids, int dim)
{
    /* YOUR CODE HERE: decide which output element each thread handles at each step so that the
     * 32 lanes of a warp load and store consecutive addresses. */
    (void)table, (void)ids, (void)out, (void)n_ids, (void)dim;
}
