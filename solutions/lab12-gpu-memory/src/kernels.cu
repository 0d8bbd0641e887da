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
    int r0 = blockIdx.y * GM_TILE, c0 = blockIdx.x * GM_TILE;
    const float *src = in + (size_t)blockIdx.z * rows * cols + (size_t)r0 * cols + c0;
    float *dst = out + (size_t)blockIdx.z * rows * cols + (size_t)c0 * rows + r0;
    int x = threadIdx.x, y = threadIdx.y;
    bool whole = r0 + GM_TILE <= rows && c0 + GM_TILE <= cols; /* no bound to test in the tile */
    /* A constant trip count: the GM_TILE / GM_TILE_ROWS loads of a thread are all in flight. */
    for (int k = 0; k < GM_TILE; k += GM_TILE_ROWS)
        if (whole || (r0 + y + k < rows && c0 + x < cols))
            tile[y + k][x] = src[(size_t)(y + k) * cols + x];
    __syncthreads();
    for (int k = 0; k < GM_TILE; k += GM_TILE_ROWS)
        if (whole || (c0 + y + k < cols && r0 + x < rows))
            dst[(size_t)(y + k) * rows + x] = tile[x][y + k];
}

/* The sum of v over the 32 lanes of a warp, in every lane. */
__device__ static float warp_sum(float v)
{
    for (int d = 16; d > 0; d /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, d);
    return v;
}

/* The sum of a thread's strided slice of a row: row[j], row[j + step], ... below cols. Whole
 * rounds of 4 * step floats first, their 4 loads independent (4 in flight per thread, 4
 * sums), the round's bound the same for every thread (no lane leaves a round early); then the
 * rest one at a time. Consecutive lanes read consecutive floats throughout. */
__device__ static float slice_sum(const float *row, int cols, int j, int step)
{
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    int base = 0;
    for (; base + 4 * step <= cols; base += 4 * step, j += 4 * step) {
        s0 += row[j];
        s1 += row[j + step];
        s2 += row[j + 2 * step];
        s3 += row[j + 3 * step];
    }
    for (; j < cols; j += step)
        s0 += row[j];
    return (s0 + s1) + (s2 + s3);
}

/* Part B: each thread adds a strided slice of the row (consecutive lanes, consecutive floats),
 * each warp folds its 32 partial sums with shuffles, one barrier, then warp 0 folds the warps'. */
__global__ void gm_row_sum(const float *in, float *out, int cols)
{
    __shared__ float partial[GM_REDUCE_THREADS / 32];
    const float *row = in + (size_t)blockIdx.x * cols;
    float s = slice_sum(row, cols, (int)threadIdx.x, (int)blockDim.x);
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

/* Where output element e comes from in table: row ids[e / dim], column e % dim. The division
 * in 32 bits while e fits (a 64-bit one is a long software routine on a GPU). */
__device__ static size_t source_of(const int *ids, size_t e, int dim)
{
    size_t i, j;
    if (e <= 0xffffffffu) {
        unsigned u = (unsigned)e, d = (unsigned)dim;
        i = u / d;
        j = u % d;
    } else {
        i = e / (size_t)dim;
        j = e % (size_t)dim;
    }
    return (size_t)ids[i] * dim + j;
}

/* Part C: element e of the output is (row e / dim, column e % dim): consecutive lanes take
 * consecutive columns of one row, so a warp's loads and stores are consecutive addresses. Whole
 * rounds of 4 grid strides first, the same bound for every thread: 4 ids, then 4 table loads in
 * flight, then 4 stores; the rest one element at a time. */
__global__ void gm_gather(const float *table, const int *ids, float *out, int n_ids, int dim)
{
    size_t n = (size_t)n_ids * dim, stride = (size_t)gridDim.x * blockDim.x;
    size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (size_t base = 0; base + 4 * stride <= n; base += 4 * stride, e += 4 * stride) {
        size_t src[4];
        float v[4];
        for (int k = 0; k < 4; k++)
            src[k] = source_of(ids, e + k * stride, dim);
        for (int k = 0; k < 4; k++)
            v[k] = table[src[k]];
        for (int k = 0; k < 4; k++)
            out[e + k * stride] = v[k];
    }
    for (; e < n; e += stride)
        out[e] = table[source_of(ids, e, dim)];
}
