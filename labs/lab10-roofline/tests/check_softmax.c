/* Lab 10 tests, Part C: rl_softmax against the double-precision oracle (libm's exp), each row
 * summing to 1, and inputs that overflow a softmax that does not subtract the row's maximum
 * (values near 88 and 1000) or underflow it (near -1000). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "support.h"

/* Softmax of x0 (rows x cols, the test's own memory) checked against the oracle and for rows
 * that sum to 1. */
static void check_softmax(const float *x0, size_t rows, size_t cols, const char *what)
{
    float *y = tu_shared(rows * cols, sizeof *y);
    double *want = tu_doubles(rows * cols);
    tu_softmax_oracle(x0, rows, cols, want);
    float *x = tu_copy(x0, rows * cols);
    MM_CHECK_OK(rl_softmax(x, rows, cols, y));
    tu_expect_close(y, want, NULL, rows, cols, 1e-4, 1e-6, what);
    tu_expect_rows_sum_to_1(y, rows, cols, 1e-4, what);
    tu_free(x);
    tu_free(y);
    free(want);
}

static void check_random(mm_rng_t *r, size_t rows, size_t cols, double lo, double hi)
{
    float *x = tu_own_floats(r, rows * cols, lo, hi);
    char what[80];
    snprintf(what, sizeof what, "softmax of values in [%g, %g)", lo, hi);
    check_softmax(x, rows, cols, what);
    free(x);
}

MM_TEST(test_softmax_matches_oracle)
{
    static const size_t shapes[][2] = {
        { 1, 1 }, { 1, 2 }, { 3, 5 }, { 4, 16 }, { 5, 17 }, { 8, 31 }, { 2, 1000 },
        { 1000, 3 }, { 1, 50021 }, { 64, 129 },
    };
    mm_rng_t r = MM_RNG();
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        check_random(&r, shapes[i][0], shapes[i][1], -10.0, 10.0);
    for (int t = 0; t < 30; t++)
        check_random(&r, mm_rng_range(&r, 1, 100), mm_rng_range(&r, 1, 600), -5.0 * (t % 4),
                     3.0 * (t % 3) + 0.5);
}
MM_END_TEST

MM_TEST(test_softmax_large_inputs)
{
    mm_rng_t r = MM_RNG();
    const double centre[] = { 88.0, 80.0, 1000.0, -1000.0, 1e30 };
    const size_t cols[] = { 3, 37, 1000 };
    for (size_t i = 0; i < sizeof centre / sizeof centre[0]; i++)
        for (size_t j = 0; j < sizeof cols / sizeof cols[0]; j++) {
            double w = centre[i] == 1e30 ? 1e24 : 5.0; /* the spread about the centre */
            check_random(&r, 4, cols[j], centre[i] - w, centre[i] + w);
        }
    /* A row of equal values: 1 / cols each, whatever the value. */
    const float equal[] = { 7.5f, 1000.0f, -1000.0f, 88.5f, 0.0f };
    for (size_t i = 0; i < sizeof equal / sizeof equal[0]; i++) {
        float *x = tu_shared(37, sizeof *x), *y = tu_shared(37, sizeof *y);
        for (size_t j = 0; j < 37; j++)
            x[j] = equal[i];
        MM_ASSERT_OK(rl_softmax(x, 1, 37, y));
        for (size_t j = 0; j < 37; j++)
            MM_CHECK(fabs(y[j] - 1.0 / 37) <= 1e-6, "softmax of 37 x %g: y[%zu] = %.9g, "
                     "expected 1/37", (double)equal[i], j, (double)y[j]);
        tu_free(x);
        tu_free(y);
    }
    /* Mixed extremes in one row: the 1000 takes everything. */
    static const float values[] = { 1000.0f, -1000.0f, 0.0f, 999.0f, -3e38f, 3e38f, 998.5f };
    check_softmax(values, 1, 6, "softmax of 1000, -1000, 0, 999, -3e38, 3e38");
    check_softmax(values, 1, 4, "softmax of 1000, -1000, 0, 999");
    check_softmax(values + 1, 2, 3, "softmax of [-1000, 0, 999], [-3e38, 3e38, 998.5]");
}
MM_END_TEST
