/* Lab 10: spot checks of the kernels' outputs (see verify.h). */
#include <math.h>
#include "verify.h"

/* Whether got is within a relative 1e-3 (plus abs) of want; else records both. */
static int close_to(double g, double w, double abs, double *got, double *want)
{
    if (fabs(g - w) <= 1e-3 * fabs(w) + abs)
        return 1;
    *got = g;
    *want = w;
    return 0;
}

static size_t pick(mm_rng_t *r, size_t n)
{
    return (size_t)mm_rng_range(r, 0, n - 1);
}

size_t vf_gemv(const float *A, size_t m, size_t n, const float *x, const float *y,
               mm_rng_t *r, int checks, double *got, double *want)
{
    for (int c = 0; c < checks; c++) {
        size_t i = pick(r, m);
        double s = 0.0, mag = 0.0;
        for (size_t j = 0; j < n; j++) {
            s += (double)A[i * n + j] * x[j];
            mag += fabs((double)A[i * n + j] * x[j]);
        }
        if (!close_to(y[i], s, 1e-6 * mag, got, want))
            return i + 1;
    }
    return 0;
}

size_t vf_softmax(const float *x, size_t rows, size_t cols, const float *y, mm_rng_t *r,
                  int checks, double *got, double *want)
{
    for (int c = 0; c < checks; c++) {
        size_t i = pick(r, rows), j = pick(r, cols);
        const float *xr = x + i * cols;
        double m = xr[0], s = 0.0;
        for (size_t k = 0; k < cols; k++)
            m = xr[k] > m ? xr[k] : m;
        for (size_t k = 0; k < cols; k++)
            s += exp((double)xr[k] - m);
        if (!close_to(y[i * cols + j], exp((double)xr[j] - m) / s, 1e-6, got, want))
            return i + 1;
    }
    return 0;
}

size_t vf_layernorm(const float *x, size_t rows, size_t cols, const float *gamma,
                    const float *beta, float eps, const float *y, mm_rng_t *r, int checks,
                    double *got, double *want)
{
    for (int c = 0; c < checks; c++) {
        size_t i = pick(r, rows), j = pick(r, cols);
        const float *xr = x + i * cols;
        double mean = 0.0, var = 0.0;
        for (size_t k = 0; k < cols; k++)
            mean += xr[k];
        mean /= (double)cols;
        for (size_t k = 0; k < cols; k++)
            var += ((double)xr[k] - mean) * ((double)xr[k] - mean);
        var /= (double)cols;
        double w = ((double)xr[j] - mean) / sqrt(var + eps) * gamma[j] + beta[j];
        if (!close_to(y[i * cols + j], w, 1e-5, got, want))
            return i + 1;
    }
    return 0;
}

size_t vf_embedding_bag(const float *table, size_t dim, const int32_t *idx, size_t bags,
                        size_t bag_size, const float *out, mm_rng_t *r, int checks,
                        double *got, double *want)
{
    for (int c = 0; c < checks; c++) {
        size_t b = pick(r, bags), d = pick(r, dim);
        double s = 0.0, mag = 0.0;
        for (size_t k = 0; k < bag_size; k++) {
            double v = table[(size_t)idx[b * bag_size + k] * dim + d];
            s += v;
            mag += fabs(v);
        }
        if (!close_to(out[b * dim + d], s, 1e-6 * mag, got, want))
            return b + 1;
    }
    return 0;
}
