/* Lab 10 reference, Part C: four memory-bound kernels written to run close to the memory roof on
 * one core. What makes them fast: one pass over DRAM where the data allows it (a softmax or
 * LayerNorm row is re-read from L2, not from memory), and reductions the compiler may reassociate
 * (`#pragma omp simd reduction`, built with -fopenmp-simd), so they run as several SIMD
 * accumulators instead of one chain of dependent adds. What still holds them below the roof is in
 * the handout's section 2.6. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "kernels.h"

int rl_embedding_bag(const float *table, size_t rows, size_t dim, const int32_t *idx,
                     size_t bags, size_t bag_size, float *out)
{
    if (!table || !idx || !out || !rows || !dim || !bags || !bag_size)
        return -EINVAL;
    if (bag_size > SIZE_MAX / bags || dim > SIZE_MAX / sizeof *out / bags)
        return -EOVERFLOW;
    for (size_t k = 0; k < bags * bag_size; k++)
        if (idx[k] < 0 || (size_t)idx[k] >= rows)
            return -ERANGE;
    for (size_t b = 0; b < bags; b++) {
        float *restrict o = out + b * dim;
        const int32_t *bag = idx + b * bag_size;
        memset(o, 0, dim * sizeof *o); /* a sum from zero: bag_size adds, as the count has it */
        for (size_t k = 0; k < bag_size; k++) {
            const float *restrict row = table + (size_t)bag[k] * dim;
#pragma omp simd
            for (size_t d = 0; d < dim; d++)
                o[d] += row[d];
        }
    }
    return 0;
}

/* sum a[j] * x[j] over j < n, in SIMD lanes. */
static float dot(const float *restrict a, const float *restrict x, size_t n)
{
    float s = 0.0f;
#pragma omp simd reduction(+ : s)
    for (size_t j = 0; j < n; j++)
        s += a[j] * x[j];
    return s;
}

int rl_gemv(const float *A, size_t m, size_t n, const float *x, float *y)
{
    if (!A || !x || !y || !m || !n)
        return -EINVAL;
    for (size_t i = 0; i < m; i++)
        y[i] = dot(A + i * n, x, n);
    return 0;
}

#define LANES 16

/* The row's maximum, in LANES running maxima updated side by side: a max reduction under
 * `omp simd reduction(max : m)` vectorizes with gcc but not with clang 14, which will not reorder
 * float max without fast-math flags; LANES element-wise maxima vectorize with both. */
static float row_max(const float *restrict x, size_t n)
{
    float lane[LANES], m = x[0];
    size_t j = 0;
    for (int l = 0; l < LANES; l++)
        lane[l] = x[0];
    for (; j + LANES <= n; j += LANES) {
#pragma omp simd
        for (int l = 0; l < LANES; l++)
            lane[l] = x[j + l] > lane[l] ? x[j + l] : lane[l];
    }
    for (int l = 0; l < LANES; l++)
        m = lane[l] > m ? lane[l] : m;
    for (; j < n; j++)
        m = x[j] > m ? x[j] : m;
    return m;
}

/* y = e^(x - m) and the sum of y; the row comes from L1 or L2 here (row_max just read it). Out
 * of line: inlined into rl_softmax's row loop, clang 14 no longer vectorizes it. */
static __attribute__((noinline)) float exp_sum(const float *restrict x, float *restrict y, size_t n, float m)
{
    float s = 0.0f;
#pragma omp simd reduction(+ : s)
    for (size_t j = 0; j < n; j++) {
        float e = rl_expf(x[j] - m);
        y[j] = e;
        s += e;
    }
    return s;
}

int rl_softmax(const float *x, size_t rows, size_t cols, float *y)
{
    if (!x || !y || !rows || !cols)
        return -EINVAL;
    for (size_t i = 0; i < rows; i++) {
        const float *xr = x + i * cols;
        float *restrict yr = y + i * cols;
        float inv = 1.0f / exp_sum(xr, yr, cols, row_max(xr, cols));
#pragma omp simd
        for (size_t j = 0; j < cols; j++)
            yr[j] *= inv;
    }
    return 0;
}

int rl_layernorm(const float *x, size_t rows, size_t cols, const float *gamma,
                 const float *beta, float eps, float *y)
{
    if (!x || !gamma || !beta || !y || !rows || !cols || !isfinite(eps) || eps <= 0.0f)
        return -EINVAL;
    for (size_t i = 0; i < rows; i++) {
        const float *restrict xr = x + i * cols;
        float *restrict yr = y + i * cols;
        float s = 0.0f, q = 0.0f;
#pragma omp simd reduction(+ : s)
        for (size_t j = 0; j < cols; j++)
            s += xr[j];
        float mean = s / (float)cols;
        /* The variance from the centred values (the row is in L1 or L2 now): sumsq / cols -
         * mean^2 loses every digit when the mean is large against the spread. */
#pragma omp simd reduction(+ : q)
        for (size_t j = 0; j < cols; j++)
            q += (xr[j] - mean) * (xr[j] - mean);
        float var = q / (float)cols;
        float rstd = 1.0f / sqrtf(var + eps);
#pragma omp simd
        for (size_t j = 0; j < cols; j++)
            yr[j] = (xr[j] - mean) * rstd * gamma[j] + beta[j];
    }
    return 0;
}
