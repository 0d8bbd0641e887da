/* Lab 10: the benchmark's own spot checks of a kernel's output, computed in double precision
 * from the same inputs (a few rows or bags per call, chosen at random), so that only a correct
 * result is timed: an output cached from an earlier call, or skipped, fails the metric. */
#ifndef RL_VERIFY_H
#define RL_VERIFY_H
#include <stddef.h>
#include <stdint.h>
#include "mm_rng.h"

/* Each returns 0 when the `checks` random rows (bags) agree to a relative 1e-3 (plus 1e-6
 * absolute for softmax), else the first row that does not, plus 1, with what it found in
 * *got and expected in *want. */
size_t vf_gemv(const float *A, size_t m, size_t n, const float *x, const float *y,
               mm_rng_t *r, int checks, double *got, double *want);
size_t vf_softmax(const float *x, size_t rows, size_t cols, const float *y, mm_rng_t *r,
                  int checks, double *got, double *want);
size_t vf_layernorm(const float *x, size_t rows, size_t cols, const float *gamma,
                    const float *beta, float eps, const float *y, mm_rng_t *r, int checks,
                    double *got, double *want);
size_t vf_embedding_bag(const float *table, size_t dim, const int32_t *idx, size_t bags,
                        size_t bag_size, const float *out, mm_rng_t *r, int checks,
                        double *got, double *want);

#endif
