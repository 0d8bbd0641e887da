/* Lab 10: the four kernels in double precision, from the float inputs: the tests' oracles, and
 * the benchmark's spot checks of every timed call (bench/verify.c). Plain C: no Check. */
#ifndef TU_ORACLE_H
#define TU_ORACLE_H
#include <stddef.h>
#include <stdint.h>

/* Each writes the outputs into want[] and, but for softmax (outputs in [0, 1]), the scale of each
 * output's rounding error into scale[]: the sum of the absolute values of the terms added, for
 * the sums; |gamma| (|xhat| + 1) + |beta| for LayerNorm. A float result's error is measured
 * against that scale. */
void tu_embedding_bag_oracle(const float *table, size_t dim, const int32_t *idx, size_t bags,
                             size_t bag_size, double *want, double *scale);
void tu_gemv_oracle(const float *A, size_t m, size_t n, const float *x, double *want,
                    double *scale);
void tu_softmax_oracle(const float *x, size_t rows, size_t cols, double *want);
void tu_layernorm_oracle(const float *x, size_t rows, size_t cols, const float *gamma,
                         const float *beta, float eps, double *want, double *scale);

#endif
