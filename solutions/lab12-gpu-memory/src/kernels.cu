/* Lab 12: your three kernels (contracts in include/gpu_memory.h). The same file compiles with
 * nvcc for a GPU and, through include/kemu_cuda.h, as C++ for the kernel emulator that grades
 * it by counting each warp's memory traffic. */
#include "gpu_memory.h"

/* Part A: one GM_TILE x GM_TILE tile through shared memory. Rows of the tile are read from in
 * and written to out along consecutive addresses (the warp is threadIdx.x = 0..31); the extra
 * column puts the elements of a tile column in 32 different banks. */
__global__ void gm_transpose(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[GM_TILE][GM_TILE + 1];
    const float *src = in + (size_t)blockIdx.z * rows * cols;
    float *dst = out + (size_t)blockIdx.z * rows * cols;
    int c = blockIdx.x * GM_TILE + threadIdx.x;
    int r0 = blockIdx.y * GM_TILE;
    for (int j = threadIdx.y; j < GM_TILE; j += GM_TILE_ROWS)
        if (r0 + j < rows && c < cols)
            tile[j][threadIdx.x] = src[(size_t)(r0 + j) * cols + c];
    __syncthreads();
    int r = r0 + threadIdx.x;
    int c0 = blockIdx.x * GM_TILE;
    for (int j = threadIdx.y; j < GM_TILE; j += GM_TILE_ROWS)
        if (c0 + j < cols && r < rows)
            dst[(size_t)(c0 + j) * rows + r] = tile[threadIdx.x][j];
}

/* The sum of v over the 32 lanes of a warp, in every lane. */
__device__ static float warp_sum(float v)
{
    for (int d = 16; d > 0; d /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, d);
    return v;
}

/* Part B: each thread adds a strided slice of the row (consecutive lanes, consecutive floats),
 * each warp folds its 32 partial sums with shuffles, one barrier, then warp 0 folds the warps'. */
__global__ void gm_row_sum(const float *in, float *out, int cols)
{
    __shared__ float partial[GM_REDUCE_THREADS / 32];
    const float *row = in + (size_t)blockIdx.x * cols;
    float s = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x)
        s += row[j];
    s = warp_sum(s);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0)
        partial[warp] = s;
    __syncthreads();
    if (warp == 0) {
        s = lane < (int)(blockDim.x / 32) ? partial[lane] : 0.0f;
        s = warp_sum(s);
        if (lane == 0)
            out[blockIdx.x] = s;
    }
}

/* Part C: element e of the output is (row e / dim, column e % dim): consecutive lanes take
 * consecutive columns of one row, so a warp's loads and stores are consecutive addresses. */
__global__ void gm_gather(const float *table, const int *ids, float *out, int n_ids, int dim)
{
    size_t n = (size_t)n_ids * dim, stride = (size_t)gridDim.x * blockDim.x;
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride) {
        size_t i = e / dim, j = e % dim;
        out[e] = table[(size_t)ids[i] * dim + j];
    }
}
