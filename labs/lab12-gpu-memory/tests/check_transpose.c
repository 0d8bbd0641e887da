/* Lab 12 tests, part A: gm_transpose on the kernel emulator (in the student's process) against
 * the oracle. */
#include <stdio.h>
#include <stdlib.h>
#include "mm_check.h"
#include "support.h"
#include "gpu_memory.h"

/* Transposes `batch` rows x cols matrices of random whole numbers and checks every element. */
static void check_transpose(mm_rng_t *r, int batch, int rows, int cols)
{
    size_t n = (size_t)batch * rows * cols;
    float *in = tu_floats(r, n), *out = tu_poisoned(n), *want = tu_poisoned(n);
    char what[96], why[400];
    kemu_stats_t st, counted;
    size_t cap = gm_trace_cap_transpose(batch, rows, cols);
    kemu_trace_t *tr = tu_trace(cap);
    snprintf(what, sizeof what, "%d matrices of %d x %d", batch, rows, cols);
    tu_transpose(in, want, batch, rows, cols);
    float *d_in = tu_device(in, n * sizeof *in), *d_out = tu_device(out, n * sizeof *out);
    int rc = gm_run_transpose(d_in, d_out, batch, rows, cols, &st, tr);
    int checked = gm_check_transpose(tr, cap, d_in, d_out, in, want, batch, rows, cols, 0,
                                     &counted, why, sizeof why);
    tu_expect_run(rc, &st, checked, why, what);
    tu_expect_same(d_out, want, n, what);
    tu_free(in), tu_free(out), tu_free(want);
}

MM_TEST(test_transpose_one_tile)
{
    mm_rng_t r = MM_RNG();
    check_transpose(&r, 1, GM_TILE, GM_TILE);
}
MM_END_TEST

MM_TEST(test_transpose_many_tiles)
{
    mm_rng_t r = MM_RNG();
    check_transpose(&r, 1, 64, 96);
    check_transpose(&r, 1, 96, 64);
}
MM_END_TEST

/* Sizes that are not multiples of the tile: the edge tiles are partly outside the matrix. */
MM_TEST(test_transpose_ragged_edges)
{
    mm_rng_t r = MM_RNG();
    static const int shapes[][2] = {{1, 1}, {1, 70}, {70, 1}, {33, 31}, {45, 70}};
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++)
        check_transpose(&r, 1, shapes[k][0], shapes[k][1]);
    check_transpose(&r, 1, (int)mm_rng_range(&r, 1, 100), (int)mm_rng_range(&r, 1, 100));
}
MM_END_TEST

/* NCHW -> NHWC: N matrices of C rows and H * W columns. */
MM_TEST(test_transpose_nchw_to_nhwc)
{
    mm_rng_t r = MM_RNG();
    check_transpose(&r, 2, 3, 7 * 9);
    check_transpose(&r, 3, 64, 5 * 5);
}
MM_END_TEST
