/* Lab 10, Part C: four kernels an ML step is made of, each memory-bound on a CPU core when
 * written well, and placed on the roofline by the benchmark. Your code: src/kernels.c.
 *
 * Shapes are row-major: element (i, j) of an r x c matrix is at m[i * c + j]. Outputs never
 * overlap inputs. Results are checked against a double-precision oracle to about 1e-4 of the
 * terms' scale (a sum: 1e-4 of the sum of the terms' magnitudes; softmax: 1e-6 + 1e-4 of the
 * value; LayerNorm: 1e-4 of |gamma| (|normalized x| + 1) + |beta|), so any order of adding is
 * fine: that freedom is what lets a compiler (or you) use several accumulators and SIMD lanes.
 * Where several errors apply, -EINVAL is the one returned. Each kernel runs on the calling thread alone: the benchmark
 * compares it with one core's bandwidth, and fails a kernel that uses more cores. Contracts: the
 * effect, then one "-EXXX: condition" per line; a call that fails writes nothing. */
#ifndef RL_KERNELS_H
#define RL_KERNELS_H
#include <stddef.h>
#include <stdint.h>

/* Embedding bag, sum mode (PyTorch's nn.EmbeddingBag(mode="sum"), a recommender's first layer):
 * for each of `bags` bags, out[b][d] = sum over k < bag_size of table[idx[b * bag_size + k]][d],
 * table being rows x dim. Indices may repeat.
 *   -EINVAL: table, idx or out is NULL, or rows, dim, bags or bag_size is 0.
 *   -EOVERFLOW: bags * bag_size indices or bags * dim floats do not fit in size_t (bytes).
 *   -ERANGE: an index is < 0 or >= rows (checked before anything is written). */
int rl_embedding_bag(const float *table, size_t rows, size_t dim, const int32_t *idx,
                     size_t bags, size_t bag_size, float *out);

/* y = A x, A m x n (a linear layer at batch size 1, as in LLM decoding): y[i] = sum_j A[i][j] x[j].
 *   -EINVAL: A, x or y is NULL, or m or n is 0. */
int rl_gemv(const float *A, size_t m, size_t n, const float *x, float *y);

/* Softmax of each row: y[i][j] = e^(x[i][j] - max_i) / sum_k e^(x[i][k] - max_i), with e^ from
 * rl_expf below (subtracting the row's maximum keeps every e^ <= 1: no overflow for any finite
 * input). Each output row sums to 1.
 *   -EINVAL: x or y is NULL, or rows or cols is 0. */
int rl_softmax(const float *x, size_t rows, size_t cols, float *y);

/* LayerNorm of each row: mean and variance (population: divided by cols) of the row, then
 * y[i][j] = (x[i][j] - mean) / sqrt(var + eps) * gamma[j] + beta[j]. Rows may have a mean large
 * against their spread (the tests use 1000 +- 1, checked to 5e-3 of the scale above): take the
 * variance from the centred values, not as mean(x^2) - mean^2 in float, which loses every digit.
 *   -EINVAL: x, gamma, beta or y is NULL, rows or cols is 0, or eps is not a finite
 *            number > 0. */
int rl_layernorm(const float *x, size_t rows, size_t cols, const float *gamma,
                 const float *beta, float eps, float *y);

/* e^x for softmax, to a relative error below 1e-5 for x in [-87, 0] (2^-126 below that, never
 * 0): 2^(x log2 e) split into an integer power of two, built in the exponent bits, and a
 * polynomial on [-1/2, 1/2]. No branch and no call, so a compiler vectorizes a loop that uses
 * it; libm's expf is a call, and a loop that calls it runs one element at a time. */
static inline float rl_expf(float x)
{
    float t = x * 1.44269504f;
    /* t clamped to [-126, 127] as selects of bits: written `t < -126 ? -126 : t`, gcc 14 sees
     * that the rest is a constant where the clamp bites, splits the loop body in two paths and
     * no longer vectorizes it (softmax ran 5x slower than with gcc 12); written `t > 127 ? 127 :
     * t`, gcc 12 for aarch64 keeps a branch there and leaves the loop scalar. A NaN stays a NaN
     * either way. */
    union { float f; uint32_t u; } v = { t }, lo = { -126.0f }, hi = { 127.0f };
    uint32_t below = 0u - (uint32_t)(t < -126.0f), above = 0u - (uint32_t)(t > 127.0f);
    v.u = (v.u & ~(below | above)) | (lo.u & below) | (hi.u & above);
    t = v.f;
    float n = (t + 12582912.0f) - 12582912.0f; /* round to nearest: 1.5 * 2^23 */
    float f = t - n;                           /* in [-1/2, 1/2] */
    float p = 1.0f + f * (0.693147182f + f * (0.240226507f + f * (0.0555041087f
              + f * (0.00961812911f + f * (0.00133335581f + f * 0.000154035304f)))));
    union { int32_t i; float f; } s = { .i = ((int32_t)n + 127) << 23 };
    return p * s.f;
}

#endif
