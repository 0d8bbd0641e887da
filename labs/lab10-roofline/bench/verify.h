/* Lab 10: the benchmark's spot checks of a kernel's output: a few rows (bags) per call, chosen at
 * random, against the tests' double-precision oracles (tests/oracle.h), so that only a correct
 * result is timed: an output kept from an earlier call, or skipped, fails the metric. The
 * inputs the oracles see are the benchmark's own: the kernel's input tensor is STREAM's array b
 * from element `first` on (measure.h's ms_b_value, regenerated here for each checked row, never
 * read back from the memory the student's process shares and could have changed); x, gamma, beta
 * and idx are the caller's private copies. Only the output is read where the kernel wrote it. */
#ifndef RL_VERIFY_H
#define RL_VERIFY_H
#include <stddef.h>
#include <stdint.h>
#include "mm_rng.h"

/* What a failed check found: the row (bag), the value and the oracle's. */
typedef struct {
    size_t row;
    double got, want;
} vf_miss_t;

/* Each checks `checks` random rows (bags) of the output to a relative 1e-3 of the oracle's error
 * scale (1e-6 absolute plus 1e-3 relative for softmax). GEMV's A, softmax's and LayerNorm's x
 * (m or rows x n or cols) start at b[first]; the embedding bag's table is b (rows of dim).
 * Returns 0, 1 with *miss filled at the first element out of tolerance, or -ENOMEM. */
int vf_gemv(size_t first, size_t m, size_t n, const float *x, const float *y, mm_rng_t *r,
            int checks, vf_miss_t *miss);
int vf_softmax(size_t first, size_t rows, size_t cols, const float *y, mm_rng_t *r, int checks,
               vf_miss_t *miss);
int vf_layernorm(size_t first, size_t rows, size_t cols, const float *gamma, const float *beta,
                 float eps, const float *y, mm_rng_t *r, int checks, vf_miss_t *miss);
int vf_embedding_bag(size_t dim, const int32_t *idx, size_t bags, size_t bag_size,
                     const float *out, mm_rng_t *r, int checks, vf_miss_t *miss);

#endif
