/* Lab 12 tests, part B: gm_row_sum on the kernel emulator against the oracle. The inputs are
 * whole numbers, so every order of addition gives the oracle's float exactly. */
#include <stdio.h>
#include <stdlib.h>
#include "mm_check.h"
#include "support.h"
#include "gpu_memory.h"

static void check_row_sums(mm_rng_t *r, int rows, int cols)
{
    float *in = tu_floats(r, (size_t)rows * cols), *out = tu_poisoned((size_t)rows),
          *want = tu_poisoned((size_t)rows);
    char what[96], why[400];
    kemu_stats_t st, counted;
    size_t cap = gm_trace_cap_row_sum(rows, cols);
    kemu_trace_t *tr = tu_trace(cap);
    snprintf(what, sizeof what, "%d rows of %d", rows, cols);
    tu_row_sums(in, want, rows, cols);
    float *d_in = tu_device(in, (size_t)rows * cols * sizeof *in),
          *d_out = tu_device(out, (size_t)rows * sizeof *out);
    int rc = gm_run_row_sum(d_in, d_out, rows, cols, &st, tr);
    int checked = gm_check_row_sum(tr, cap, d_in, d_out, in, want, rows, cols, 0, &counted, why,
                                   sizeof why);
    tu_expect_run(rc, &st, checked, why, what);
    tu_expect_same(d_out, want, (size_t)rows, what);
    tu_free(in), tu_free(out), tu_free(want);
}

MM_TEST(test_row_sum_full_rows)
{
    mm_rng_t r = MM_RNG();
    check_row_sums(&r, 3, GM_REDUCE_THREADS);
    check_row_sums(&r, 2, 4 * GM_REDUCE_THREADS);
}
MM_END_TEST

/* Rows that do not fill the block, or leave some warps with nothing to add. */
MM_TEST(test_row_sum_ragged_rows)
{
    mm_rng_t r = MM_RNG();
    static const int cols[] = {1, 5, 31, 33, 255, 257, 1000};
    for (size_t k = 0; k < sizeof cols / sizeof *cols; k++)
        check_row_sums(&r, 2, cols[k]);
    check_row_sums(&r, (int)mm_rng_range(&r, 1, 9), (int)mm_rng_range(&r, 1, 3000));
}
MM_END_TEST

MM_TEST(test_row_sum_many_rows)
{
    mm_rng_t r = MM_RNG();
    check_row_sums(&r, 40, 100);
}
MM_END_TEST
