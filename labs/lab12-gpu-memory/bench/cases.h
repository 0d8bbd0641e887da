/* Lab 12 benchmark: the inputs and the oracles of the three kernels, the same for the kernel
 * emulator's counts (bench_lab12.c) and the GPU's timing (bench_gpu.c). */
#ifndef BENCH_CASES_H
#define BENCH_CASES_H
#include <stddef.h>

/* v[0..n) set to whole numbers 0..15 by seed: any order of adding up to 2^20 of them gives the
 * same float. */
void bench_fill(float *v, size_t n, unsigned seed);

/* want = each of `batch` rows x cols matrices of in, transposed (cols x rows). */
void oracle_transpose(const float *in, float *want, size_t batch, size_t rows, size_t cols);

/* want[r] = the sum of row r of in (rows x cols), added in double. */
void oracle_row_sum(const float *in, float *want, size_t rows, size_t cols);

/* ids[0..n_ids) spread over the vocab rows of table (vocab x dim), and want = those rows. */
void gather_case(const float *table, size_t vocab, size_t dim, int *ids, size_t n_ids,
                 float *want);

#endif
