/* Lab 10 tests, Part C: rl_gemv against the double-precision oracle, on shapes with odd tails
 * (n not a multiple of a SIMD width), 1 x 1, a single long row and a single column. */
#include <stdio.h>
#include <stdlib.h>
#include "support.h"

static void check_shape(mm_rng_t *r, size_t m, size_t n)
{
    float *A0 = tu_own_floats(r, m * n, -1.0, 1.0), *x0 = tu_own_floats(r, n, -2.0, 2.0);
    float *y = tu_floats(r, m, 7.0, 8.0);
    double *want = tu_doubles(m), *scale = tu_doubles(m);
    tu_gemv_oracle(A0, m, n, x0, want, scale);
    float *A = tu_copy(A0, m * n), *x = tu_copy(x0, n);
    MM_CHECK_OK(rl_gemv(A, m, n, x, y));
    char what[80];
    snprintf(what, sizeof what, "gemv, A %zu x %zu", m, n);
    tu_expect_close(y, want, scale, m, 1, 1e-4, 1e-6, what);
    tu_free(A);
    tu_free(x);
    tu_free(y);
    free(A0);
    free(x0);
    free(want);
    free(scale);
}

MM_TEST(test_gemv_matches_oracle)
{
    static const size_t shapes[][2] = {
        { 1, 1 },   { 1, 2 },     { 2, 3 },     { 3, 17 }, { 7, 15 },  { 16, 16 },
        { 64, 33 }, { 5, 1 },     { 1000, 1 },  { 33, 1000 }, { 500, 31 }, { 1, 100003 },
        { 257, 257 },
    };
    mm_rng_t r = MM_RNG();
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        check_shape(&r, shapes[i][0], shapes[i][1]);
    for (int t = 0; t < 30; t++)
        check_shape(&r, mm_rng_range(&r, 1, 300), mm_rng_range(&r, 1, 700));
}
MM_END_TEST
