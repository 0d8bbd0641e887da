/* Lab 12 tests, part C: gm_gather on the kernel emulator against the oracle. */
#include <stdio.h>
#include <stdlib.h>
#include "mm_check.h"
#include "support.h"
#include "gpu_memory.h"

/* Gathers n_ids random rows (ids from `pick`, or random if NULL) of a vocab x dim table. */
static void check_gather(mm_rng_t *r, int vocab, int dim, int n_ids, const int *pick)
{
    float *table = tu_floats(r, (size_t)vocab * dim);
    float *out = tu_poisoned((size_t)n_ids * dim), *want = tu_poisoned((size_t)n_ids * dim);
    int *ids = tu_alloc((size_t)n_ids * sizeof *ids);
    for (int i = 0; i < n_ids; i++)
        ids[i] = pick ? pick[i] : (int)mm_rng_range(r, 0, (uint64_t)vocab - 1);
    char what[96], why[400];
    kemu_stats_t st, counted;
    size_t cap = gm_trace_cap_gather(n_ids, dim);
    kemu_trace_t *tr = tu_trace(cap);
    snprintf(what, sizeof what, "%d ids of a %d x %d table", n_ids, vocab, dim);
    tu_gather(table, ids, want, n_ids, dim);
    size_t n_out = (size_t)n_ids * dim;
    float *d_table = tu_device(table, (size_t)vocab * dim * sizeof *table),
          *d_out = tu_device(out, n_out * sizeof *out);
    int *d_ids = tu_device(ids, (size_t)n_ids * sizeof *ids);
    int rc = gm_run_gather(d_table, vocab, d_ids, d_out, n_ids, dim, &st, tr);
    int checked = gm_check_gather(tr, cap, d_table, d_ids, d_out, table, ids, want, vocab, n_ids,
                                  dim, &counted, why, sizeof why);
    tu_expect_run(rc, &st, checked, why, what);
    tu_expect_same(d_out, want, n_out, what);
    tu_free(table), tu_free(out), tu_free(want), tu_free(ids);
}

MM_TEST(test_gather_rows)
{
    mm_rng_t r = MM_RNG();
    check_gather(&r, 50, 64, 40, NULL);
}
MM_END_TEST

/* Rows that are not a whole number of warps wide. */
MM_TEST(test_gather_odd_widths)
{
    mm_rng_t r = MM_RNG();
    static const int dims[] = {1, 3, 33, 100};
    for (size_t k = 0; k < sizeof dims / sizeof *dims; k++)
        check_gather(&r, 20, dims[k], 17, NULL);
}
MM_END_TEST

/* The same id again and again (a padding token), and a batch without ids. */
MM_TEST(test_gather_repeated_ids)
{
    mm_rng_t r = MM_RNG();
    static const int same[8] = {7, 7, 7, 0, 7, 7, 0, 7};
    check_gather(&r, 8, 40, 8, same);
    check_gather(&r, 8, 40, 0, NULL);
}
MM_END_TEST

/* More elements than the grid has threads: the grid-stride loop must cover them all; the
 * second case (91,000 elements, over 4 strides of the largest grid, rows of 130 floats) more
 * than four times over, so that a loop taking several strides per round is checked too. */
MM_TEST(test_gather_more_than_the_grid)
{
    mm_rng_t r = MM_RNG();
    check_gather(&r, 500, 96, 300, NULL);
    check_gather(&r, 1000, 130, 700, NULL);
}
MM_END_TEST
