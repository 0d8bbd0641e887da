/* Lab 10: the kernels' double-precision oracles (see oracle.h). */
#include <math.h>
#include "oracle.h"

void tu_embedding_bag_oracle(const float *table, size_t dim, const int32_t *idx, size_t bags,
                             size_t bag_size, double *want, double *scale)
{
    for (size_t b = 0; b < bags; b++)
        for (size_t d = 0; d < dim; d++) {
            double s = 0.0, a = 0.0;
            for (size_t k = 0; k < bag_size; k++) {
                double v = table[(size_t)idx[b * bag_size + k] * dim + d];
                s += v;
                a += fabs(v);
            }
            want[b * dim + d] = s;
            scale[b * dim + d] = a;
        }
}

void tu_gemv_oracle(const float *A, size_t m, size_t n, const float *x, double *want,
                    double *scale)
{
    for (size_t i = 0; i < m; i++) {
        double s = 0.0, a = 0.0;
        for (size_t j = 0; j < n; j++) {
            double t = (double)A[i * n + j] * (double)x[j];
            s += t;
            a += fabs(t);
        }
        want[i] = s;
        scale[i] = a;
    }
}

/* The largest of n >= 1 floats. Kept in float (exact: the maximum is one of the inputs): gcc 12
 * for aarch64 dies at -O3 ("internal compiler error: in vect_transform_reduction") vectorizing
 * the widening reduction `double m = fmax(m, (float)x)` this loop once was. */
static float row_max(const float *xr, size_t n)
{
    float m = xr[0];
    for (size_t j = 1; j < n; j++)
        m = fmaxf(m, xr[j]);
    return m;
}

void tu_softmax_oracle(const float *x, size_t rows, size_t cols, double *want)
{
    for (size_t i = 0; i < rows; i++) {
        const float *xr = x + i * cols;
        double *wr = want + i * cols, m = row_max(xr, cols), s = 0.0;
        for (size_t j = 0; j < cols; j++)
            s += wr[j] = exp((double)xr[j] - m);
        for (size_t j = 0; j < cols; j++)
            wr[j] /= s;
    }
}

void tu_layernorm_oracle(const float *x, size_t rows, size_t cols, const float *gamma,
                         const float *beta, float eps, double *want, double *scale)
{
    for (size_t i = 0; i < rows; i++) {
        const float *xr = x + i * cols;
        double mean = 0.0, var = 0.0;
        for (size_t j = 0; j < cols; j++)
            mean += xr[j];
        mean /= (double)cols;
        for (size_t j = 0; j < cols; j++)
            var += (xr[j] - mean) * (xr[j] - mean);
        var /= (double)cols; /* population variance */
        double rstd = 1.0 / sqrt(var + (double)eps);
        for (size_t j = 0; j < cols; j++) {
            double xhat = (xr[j] - mean) * rstd;
            want[i * cols + j] = xhat * gamma[j] + beta[j];
            scale[i * cols + j] = fabs((double)gamma[j]) * (fabs(xhat) + 1.0) + fabs(beta[j]);
        }
    }
}
