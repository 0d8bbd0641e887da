/* Lab 10 tests, Part C: rl_layernorm against the double-precision oracle: the population
 * variance, eps inside the square root, gamma and beta per column, constant rows, and rows whose
 * mean is large against their spread (1000 + uniform[-1, 1]). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "support.h"

/* LayerNorm of x0 (rows x cols, the test's own memory) with random gamma, beta, checked against
 * the oracle to rel * the oracle's scale (support.h) + abs. */
static void check_layernorm(mm_rng_t *r, const float *x0, size_t rows, size_t cols, float eps,
                            double rel, double abs, const char *what)
{
    float *g0 = tu_own_floats(r, cols, -2.0, 2.0), *b0 = tu_own_floats(r, cols, -1.0, 1.0);
    float *y = tu_floats(r, rows * cols, 5.0, 6.0);
    double *want = tu_doubles(rows * cols), *scale = tu_doubles(rows * cols);
    char msg[160];
    tu_layernorm_oracle(x0, rows, cols, g0, b0, eps, want, scale);
    float *x = tu_copy(x0, rows * cols), *gamma = tu_copy(g0, cols), *beta = tu_copy(b0, cols);
    MM_CHECK_OK(rl_layernorm(x, rows, cols, gamma, beta, eps, y));
    snprintf(msg, sizeof msg, "%s, eps %g", what, (double)eps);
    tu_expect_close(y, want, scale, rows, cols, rel, abs, msg);
    tu_free(x);
    tu_free(gamma);
    tu_free(beta);
    tu_free(y);
    free(g0);
    free(b0);
    free(want);
    free(scale);
}

static void check_random(mm_rng_t *r, size_t rows, size_t cols, double lo, double hi, float eps)
{
    float *x = tu_own_floats(r, rows * cols, lo, hi);
    char what[80];
    snprintf(what, sizeof what, "layernorm of values in [%g, %g)", lo, hi);
    check_layernorm(r, x, rows, cols, eps, 1e-4, 1e-6, what);
    free(x);
}

MM_TEST(test_layernorm_matches_oracle)
{
    static const size_t shapes[][2] = {
        { 1, 1 }, { 1, 2 }, { 3, 3 }, { 4, 16 }, { 5, 17 }, { 8, 31 }, { 2, 1000 },
        { 1000, 3 }, { 1, 40009 }, { 64, 129 },
    };
    static const float eps[] = { 1e-5f, 1e-3f, 0.25f, 1.0f };
    mm_rng_t r = MM_RNG();
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        check_random(&r, shapes[i][0], shapes[i][1], -3.0, 3.0, eps[i % 4]);
    for (int t = 0; t < 30; t++) {
        double c = 4.0 * (mm_rng_unit(&r) - 0.5), w = pow(10.0, mm_rng_unit(&r));
        check_random(&r, mm_rng_range(&r, 1, 100), mm_rng_range(&r, 1, 600), c - w, c + w,
                     eps[t % 4]);
    }
    /* eps dominates a small variance: it must be inside the square root, added once. */
    check_random(&r, 3, 100, -0.01, 0.01, 1.0f);
    check_random(&r, 3, 101, 0.49, 0.51, 0.25f);
    /* Constant rows: variance 0, so y = beta (with eps, no 0 / 0). */
    const float value[] = { 0.75f, -3.0f, 1000.0f, 0.0f };
    for (size_t i = 0; i < sizeof value / sizeof value[0]; i++) {
        float x[2 * 23];
        for (size_t j = 0; j < 2 * 23; j++)
            x[j] = value[i];
        check_layernorm(&r, x, 2, 23, 1e-5f, 1e-4, 1e-6, "a constant row: y = beta");
    }
}
MM_END_TEST

MM_TEST(test_layernorm_large_mean)
{
    /* A float holds 1000 to 6e-5, and a float sum of n such values to about sqrt(n) ulps of the
     * total, so x - mean is known only to ~1e-4 .. 1e-3 of the spread: a plain float loop
     * (sum, then the squared deviations) is 2e-3 off at 500 columns. 5e-3 of the output's
     * scale allows that, and is 10x below the error of the one-pass variance in float
     * (sumsq / cols - mean^2, catastrophic cancellation: often 0 or negative, then NaN). */
    static const size_t shapes[][2] = { { 16, 7 }, { 8, 64 }, { 4, 256 }, { 2, 500 } };
    mm_rng_t r = MM_RNG();
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        size_t rows = shapes[i][0], cols = shapes[i][1];
        float *x = tu_own_floats(&r, rows * cols, 999.0, 1001.0); /* 1000 + uniform[-1, 1] */
        check_layernorm(&r, x, rows, cols, 1e-5f, 5e-3, 1e-6,
                        "layernorm of 1000 + uniform[-1, 1]");
        free(x);
    }
}
MM_END_TEST
