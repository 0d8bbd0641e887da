/* Lab 12 — The GPU memory hierarchy: the three kernels you write in src/kernels.cu, the shape
 * each is launched with, and the provided launchers (src/launch.c) that run them on the kernel
 * emulator (kemu.h) and count their memory traffic. The same src/kernels.cu compiles with nvcc
 * for a real GPU. Only what this folder's headers declare is visible outside your object. */
#ifndef GPU_MEMORY_H
#define GPU_MEMORY_H
#include <stddef.h>
#include "kemu.h"
#include "kemu_trace.h"

#if defined(__CUDACC__)
#define GM_KERNEL __global__
#else
#define GM_KERNEL
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Part A, the layout change. Launch: block (GM_TILE, GM_TILE_ROWS, 1), grid
 * (ceil(cols / GM_TILE), ceil(rows / GM_TILE), batch): block (bx, by, b) owns the GM_TILE x GM_TILE
 * tile of matrix b whose top-left element is (by * GM_TILE, bx * GM_TILE). */
#define GM_TILE 32
#define GM_TILE_ROWS 8

/* in holds `batch` row-major rows x cols matrices one after another (gridDim.z of them); writes
 * each one's transpose to out (cols x rows, row-major): out[b][c][r] = in[b][r][c]. With
 * rows = C and cols = H * W this turns an NCHW tensor into NHWC (channels last). Every element of
 * out is written once; in is only read. */
GM_KERNEL void gm_transpose(const float *in, float *out, int rows, int cols);

/* Part B, the block reduction. Launch: block (GM_REDUCE_THREADS, 1, 1), grid (rows, 1, 1): block r
 * reduces row r. */
#define GM_REDUCE_THREADS 256

/* out[r] = the sum of the cols floats of row r of the row-major matrix in (cols >= 1), in any
 * order of addition (float). Writes out[blockIdx.x] once. */
GM_KERNEL void gm_row_sum(const float *in, float *out, int cols);

/* Part C, the embedding gather. Launch: block (GM_GATHER_THREADS, 1, 1), grid
 * (gm_gather_blocks(n_ids, dim), 1, 1) on the emulator and 4 blocks per SM on a GPU (the timed
 * metric): any grid, fewer threads than elements in general, so each thread covers several (a
 * grid-stride loop). */
#define GM_GATHER_THREADS 256
#define GM_GATHER_MAX_BLOCKS 64

/* out[i][j] = table[ids[i]][j] for i < n_ids, j < dim (row-major, dim floats a row); every id is
 * a valid row of table. Every element of out is written once. */
GM_KERNEL void gm_gather(const float *table, const int *ids, float *out, int n_ids, int dim);

#ifdef __cplusplus
}
#endif

#ifndef __CUDACC__
/* The number of blocks gm_gather is launched with: ceil(n_ids * dim / GM_GATHER_THREADS), at
 * most GM_GATHER_MAX_BLOCKS, at least 1. */
unsigned gm_gather_blocks(int n_ids, int dim);

/* The provided launchers: each runs its kernel on the emulator over host buffers that stand for
 * device memory (the kernel may touch only these), fills *st (kemu.h), appends every access to
 * tr unless it is NULL (kemu_trace.h: what the grader counts from) and returns kemu_run's 0 or
 * -errno; -EINVAL for a NULL pointer (but tr), a size below 1 (0 for n_ids), or sizes whose
 * product overflows an int. */
int gm_run_transpose(const float *in, float *out, int batch, int rows, int cols,
                     kemu_stats_t *st, kemu_trace_t *tr);
int gm_run_row_sum(const float *in, float *out, int rows, int cols, kemu_stats_t *st,
                   kemu_trace_t *tr);
int gm_run_gather(const float *table, int vocab, const int *ids, float *out, int n_ids, int dim,
                  kemu_stats_t *st, kemu_trace_t *tr);
#endif

#endif
