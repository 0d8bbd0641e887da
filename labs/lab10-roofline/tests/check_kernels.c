/* Lab 10 tests, Part C, all four kernels: every -EINVAL (NULL pointers, zero dimensions, a bad
 * eps) with the output left exactly as it was, and no write before or after the output on shapes
 * whose tails are not a multiple of a SIMD width. */
#include <errno.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"

enum { ROWS = 10, DIM = 5, BAGS = 3, BS = 2, M = 4, N = 6 };

MM_TEST(test_kernels_bad_args)
{
    mm_rng_t r = MM_RNG();
    float *table = tu_floats(&r, ROWS * DIM, -1, 1), *out = tu_floats(&r, BAGS * DIM, 0, 1);
    float *A = tu_floats(&r, M * N, -1, 1), *x = tu_floats(&r, N, -1, 1);
    float *g = tu_floats(&r, N, -1, 1), *b = tu_floats(&r, N, -1, 1);
    float *y = tu_floats(&r, M * N, 0, 1);
    int32_t *idx = tu_ints(BAGS * BS);
    const float bad_eps[] = { 0.0f, -0.0f, -1e-5f, NAN, INFINITY, -INFINITY };
    memcpy(idx, (const int32_t[BAGS * BS]){ 0, 9, 3, 3, 5, 1 }, BAGS * BS * sizeof *idx);
    tu_fill_pattern(out, BAGS * DIM);
    MM_ASSERT_ERR(rl_embedding_bag(NULL, ROWS, DIM, idx, BAGS, BS, out), -EINVAL);
    MM_ASSERT_ERR(rl_embedding_bag(table, ROWS, DIM, NULL, BAGS, BS, out), -EINVAL);
    MM_ASSERT_ERR(rl_embedding_bag(table, ROWS, DIM, idx, BAGS, BS, NULL), -EINVAL);
    MM_ASSERT_ERR(rl_embedding_bag(table, 0, DIM, idx, BAGS, BS, out), -EINVAL);
    MM_ASSERT_ERR(rl_embedding_bag(table, ROWS, 0, idx, BAGS, BS, out), -EINVAL);
    MM_ASSERT_ERR(rl_embedding_bag(table, ROWS, DIM, idx, 0, BS, out), -EINVAL);
    MM_ASSERT_ERR(rl_embedding_bag(table, ROWS, DIM, idx, BAGS, 0, out), -EINVAL);
    MM_ASSERT_ERR(rl_embedding_bag(table, ROWS, DIM, idx, SIZE_MAX / 2, 3, out), -EOVERFLOW);
    MM_ASSERT_ERR(rl_embedding_bag(table, ROWS, SIZE_MAX / 4, idx, 2, BS, out), -EOVERFLOW);
    tu_expect_pattern(out, BAGS * DIM, "rl_embedding_bag refusing its arguments");
    tu_fill_pattern(y, M * N);
    MM_ASSERT_ERR(rl_gemv(NULL, M, N, x, y), -EINVAL);
    MM_ASSERT_ERR(rl_gemv(A, M, N, NULL, y), -EINVAL);
    MM_ASSERT_ERR(rl_gemv(A, M, N, x, NULL), -EINVAL);
    MM_ASSERT_ERR(rl_gemv(A, 0, N, x, y), -EINVAL);
    MM_ASSERT_ERR(rl_gemv(A, M, 0, x, y), -EINVAL);
    tu_expect_pattern(y, M * N, "rl_gemv refusing its arguments");
    MM_ASSERT_ERR(rl_softmax(NULL, M, N, y), -EINVAL);
    MM_ASSERT_ERR(rl_softmax(A, M, N, NULL), -EINVAL);
    MM_ASSERT_ERR(rl_softmax(A, 0, N, y), -EINVAL);
    MM_ASSERT_ERR(rl_softmax(A, M, 0, y), -EINVAL);
    tu_expect_pattern(y, M * N, "rl_softmax refusing its arguments");
    MM_ASSERT_ERR(rl_layernorm(NULL, M, N, g, b, 1e-5f, y), -EINVAL);
    MM_ASSERT_ERR(rl_layernorm(A, M, N, NULL, b, 1e-5f, y), -EINVAL);
    MM_ASSERT_ERR(rl_layernorm(A, M, N, g, NULL, 1e-5f, y), -EINVAL);
    MM_ASSERT_ERR(rl_layernorm(A, M, N, g, b, 1e-5f, NULL), -EINVAL);
    MM_ASSERT_ERR(rl_layernorm(A, 0, N, g, b, 1e-5f, y), -EINVAL);
    MM_ASSERT_ERR(rl_layernorm(A, M, 0, g, b, 1e-5f, y), -EINVAL);
    for (size_t i = 0; i < sizeof bad_eps / sizeof bad_eps[0]; i++)
        MM_CHECK_ERR(rl_layernorm(A, M, N, g, b, bad_eps[i], y), -EINVAL);
    tu_expect_pattern(y, M * N, "rl_layernorm refusing its arguments (eps 0, < 0, NaN or inf)");
    tu_free(table);
    tu_free(out);
    tu_free(idx);
    tu_free(A);
    tu_free(x);
    tu_free(g);
    tu_free(b);
    tu_free(y);
}
MM_END_TEST

/* Each kernel on a rows x cols shape (an embedding bag: `rows` bags of 3 rows of `cols`), with
 * its output between guards. */
static void run_guarded(mm_rng_t *r, size_t rows, size_t cols)
{
    float *x = tu_floats(r, rows * cols, -2, 2), *v = tu_floats(r, cols, -2, 2);
    float *g = tu_floats(r, cols, -2, 2), *b = tu_floats(r, cols, -2, 2);
    int32_t *idx = tu_ints(rows * 3);
    char what[80];
    for (size_t k = 0; k < rows * 3; k++)
        idx[k] = (int32_t)mm_rng_range(r, 0, rows - 1);
    float *y = tu_guarded(rows * cols);
    snprintf(what, sizeof what, "rl_embedding_bag, %zu bags of 3 x %zu", rows, cols);
    MM_CHECK_OK(rl_embedding_bag(x, rows, cols, idx, rows, 3, y));
    tu_guarded_check(y, rows * cols, what);
    tu_guarded_free(y);
    y = tu_guarded(rows);
    snprintf(what, sizeof what, "rl_gemv %zu x %zu", rows, cols);
    MM_CHECK_OK(rl_gemv(x, rows, cols, v, y));
    tu_guarded_check(y, rows, what);
    tu_guarded_free(y);
    y = tu_guarded(rows * cols);
    snprintf(what, sizeof what, "rl_softmax %zu x %zu", rows, cols);
    MM_CHECK_OK(rl_softmax(x, rows, cols, y));
    tu_guarded_check(y, rows * cols, what);
    tu_guarded_free(y);
    y = tu_guarded(rows * cols);
    snprintf(what, sizeof what, "rl_layernorm %zu x %zu", rows, cols);
    MM_CHECK_OK(rl_layernorm(x, rows, cols, g, b, 1e-5f, y));
    tu_guarded_check(y, rows * cols, what);
    tu_guarded_free(y);
    tu_free(x);
    tu_free(v);
    tu_free(g);
    tu_free(b);
    tu_free(idx);
}

MM_TEST(test_kernels_stay_in_bounds)
{
    static const size_t rows[] = { 1, 2, 3, 5 };
    static const size_t cols[] = { 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 63, 65, 100 };
    mm_rng_t r = MM_RNG();
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        for (size_t j = 0; j < sizeof cols / sizeof cols[0]; j++)
            run_guarded(&r, rows[i], cols[j]);
}
MM_END_TEST
