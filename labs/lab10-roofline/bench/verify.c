/* Lab 10: spot checks of the kernels' outputs against the tests' oracles (see verify.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "../tests/oracle.h"
#include "verify.h"

#define REL 1e-3

/* got[0..n) against want (error scale `scale`, or |want| + 1e-3 absolute when NULL): 0, or 1
 * with *miss at the first element out of tolerance (its row `row`). */
static int compare(const float *got, const double *want, const double *scale, size_t n,
                   size_t row, vf_miss_t *miss)
{
    for (size_t k = 0; k < n; k++) {
        double tol = scale ? REL * scale[k] : REL * fabs(want[k]) + 1e-6;
        if (!(fabs(got[k] - want[k]) <= tol)) {
            *miss = (vf_miss_t){ row, got[k], want[k] };
            return 1;
        }
    }
    return 0;
}

static size_t pick(mm_rng_t *r, size_t n)
{
    return (size_t)mm_rng_range(r, 0, n - 1);
}

/* Room for one row's outputs and their scales. */
static double *scratch(size_t n)
{
    return malloc(2 * n * sizeof(double));
}

int vf_gemv(const float *A, size_t m, size_t n, const float *x, const float *y, mm_rng_t *r,
            int checks, vf_miss_t *miss)
{
    int bad = 0;
    for (int c = 0; c < checks && !bad; c++) {
        size_t i = pick(r, m);
        double want, scale;
        tu_gemv_oracle(A + i * n, 1, n, x, &want, &scale);
        bad = compare(y + i, &want, &scale, 1, i, miss);
    }
    return bad;
}

int vf_softmax(const float *x, size_t rows, size_t cols, const float *y, mm_rng_t *r,
               int checks, vf_miss_t *miss)
{
    double *want = scratch(cols);
    int bad = want ? 0 : -ENOMEM;
    for (int c = 0; c < checks && !bad; c++) {
        size_t i = pick(r, rows);
        tu_softmax_oracle(x + i * cols, 1, cols, want);
        bad = compare(y + i * cols, want, NULL, cols, i, miss);
    }
    free(want);
    return bad;
}

int vf_layernorm(const float *x, size_t rows, size_t cols, const float *gamma,
                 const float *beta, float eps, const float *y, mm_rng_t *r, int checks,
                 vf_miss_t *miss)
{
    double *want = scratch(cols);
    int bad = want ? 0 : -ENOMEM;
    for (int c = 0; c < checks && !bad; c++) {
        size_t i = pick(r, rows);
        tu_layernorm_oracle(x + i * cols, 1, cols, gamma, beta, eps, want, want + cols);
        bad = compare(y + i * cols, want, want + cols, cols, i, miss);
    }
    free(want);
    return bad;
}

int vf_embedding_bag(const float *table, size_t dim, const int32_t *idx, size_t bags,
                     size_t bag_size, const float *out, mm_rng_t *r, int checks,
                     vf_miss_t *miss)
{
    double *want = scratch(dim);
    int bad = want ? 0 : -ENOMEM;
    for (int c = 0; c < checks && !bad; c++) {
        size_t b = pick(r, bags);
        tu_embedding_bag_oracle(table, dim, idx + b * bag_size, 1, bag_size, want, want + dim);
        bad = compare(out + b * dim, want, want + dim, dim, b, miss);
    }
    free(want);
    return bad;
}
