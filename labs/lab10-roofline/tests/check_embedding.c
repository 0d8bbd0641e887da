/* Lab 10 tests, Part C: rl_embedding_bag against the double-precision oracle (repeated indices,
 * bags of one, dims that are not a multiple of a SIMD width), and -ERANGE for a bad index
 * anywhere, the last bag's last index included, with the output left exactly as it was. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "support.h"

typedef struct { size_t rows, dim, bags, bag_size; } shape_t;

/* Runs one embedding bag of the shape on random data and checks it against the oracle; with
 * `repeats`, each bag is its first row bag_size times (row 0 and the last row appear too). */
static void check_shape(mm_rng_t *r, shape_t s, int repeats)
{
    float *table0 = tu_own_floats(r, s.rows * s.dim, -1.0, 1.0);
    int32_t *idx0 = calloc(s.bags * s.bag_size, sizeof *idx0);
    MM_CHECK(idx0 != NULL, "test out of memory");
    float *out = tu_floats(r, s.bags * s.dim, 5.0, 6.0);
    double *want = tu_doubles(s.bags * s.dim), *scale = tu_doubles(s.bags * s.dim);
    for (size_t k = 0; k < s.bags * s.bag_size; k++) {
        uint64_t v = mm_rng_range(r, 0, s.rows - 1);
        if (repeats && k % s.bag_size) /* the bag's first row, again and again */
            v = idx0[k - k % s.bag_size];
        idx0[k] = (int32_t)(k == 0 ? s.rows - 1 : k == 1 ? 0 : v); /* both ends of the table */
    }
    tu_embedding_bag_oracle(table0, s.dim, idx0, s.bags, s.bag_size, want, scale);
    float *table = tu_copy(table0, s.rows * s.dim);
    int32_t *idx = tu_share(idx0, s.bags * s.bag_size * sizeof *idx0);
    MM_CHECK_OK(rl_embedding_bag(table, s.rows, s.dim, idx, s.bags, s.bag_size, out));
    char what[160];
    snprintf(what, sizeof what, "embedding bag: table %zu x %zu, %zu bags of %zu%s", s.rows,
             s.dim, s.bags, s.bag_size, repeats ? ", one row repeated per bag" : "");
    tu_expect_close(out, want, scale, s.bags, s.dim, 1e-4, 1e-6, what);
    tu_free(table);
    tu_free(idx);
    tu_free(out);
    free(table0);
    free(idx0);
    free(want);
    free(scale);
}

MM_TEST(test_embedding_bag_matches_oracle)
{
    static const shape_t shapes[] = {
        { 1, 1, 1, 1 },      { 1, 7, 3, 5 },     { 10, 16, 4, 1 },     { 100, 17, 8, 5 },
        { 5, 3, 7, 40 },     { 1000, 33, 64, 20 }, { 20000, 64, 32, 8 }, { 300, 1000, 3, 7 },
    };
    mm_rng_t r = MM_RNG();
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int rep = 0; rep < 2; rep++)
            check_shape(&r, shapes[i], rep);
    for (int t = 0; t < 20; t++) {
        shape_t s = { mm_rng_range(&r, 1, 3000), mm_rng_range(&r, 1, 300),
                      mm_rng_range(&r, 1, 64), mm_rng_range(&r, 1, 32) };
        check_shape(&r, s, t % 4 == 0);
    }
}
MM_END_TEST

MM_TEST(test_embedding_bag_bad_index_writes_nothing)
{
    enum { ROWS = 50, DIM = 19, BAGS = 6, BS = 4, N = BAGS * BS };
    const int32_t bad[] = { -1, ROWS, ROWS + 1000, INT32_MIN, INT32_MAX };
    const size_t at[] = { 0, 1, BS, N / 2, N - BS, N - 1 }; /* N - 1: the last bag's last */
    mm_rng_t r = MM_RNG();
    float *table = tu_floats(&r, ROWS * DIM, -1.0, 1.0), *out = tu_floats(&r, BAGS * DIM, 0, 1);
    int32_t *idx = tu_ints(N);
    for (size_t k = 0; k < N; k++)
        idx[k] = (int32_t)mm_rng_range(&r, 0, ROWS - 1);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        for (size_t j = 0; j < sizeof at / sizeof at[0]; j++) {
            int32_t keep = idx[at[j]];
            idx[at[j]] = bad[i];
            tu_fill_pattern(out, BAGS * DIM);
            MM_CHECK_ERR(rl_embedding_bag(table, ROWS, DIM, idx, BAGS, BS, out), -ERANGE);
            char what[120];
            snprintf(what, sizeof what, "embedding bag with index %d (of %d rows) at position "
                     "%zu of %d", bad[i], ROWS, at[j], N);
            tu_expect_pattern(out, BAGS * DIM, what);
            idx[at[j]] = keep;
        }
    idx[N - 1] = ROWS - 1; /* the last row is in range */
    MM_ASSERT_OK(rl_embedding_bag(table, ROWS, DIM, idx, BAGS, BS, out));
    for (int t = 0; t < 50; t++) { /* one bad index, mostly in the last bag, larger tables */
        size_t bags = mm_rng_range(&r, 1, 40), bs = mm_rng_range(&r, 1, 12), n = bags * bs;
        size_t rows = mm_rng_range(&r, 1, ROWS);
        int32_t *ix = tu_ints(n);
        float *o = tu_guarded(bags * DIM);
        for (size_t k = 0; k < n; k++)
            ix[k] = (int32_t)mm_rng_range(&r, 0, rows - 1);
        size_t p = t % 2 ? n - 1 - mm_rng_range(&r, 0, bs - 1) : mm_rng_range(&r, 0, n - 1);
        ix[p] = t % 3 ? (int32_t)rows : -1 - (int32_t)mm_rng_range(&r, 0, 1000);
        MM_CHECK_ERR(rl_embedding_bag(table, rows, DIM, ix, bags, bs, o), -ERANGE);
        tu_guarded_check(o, bags * DIM, "rl_embedding_bag refusing a bad index");
        tu_expect_pattern(o - TU_GUARD, bags * DIM + 2 * TU_GUARD,
                          "rl_embedding_bag refusing a bad index in a random bag");
        tu_free(ix);
        tu_guarded_free(o);
    }
    tu_free(table);
    tu_free(out);
    tu_free(idx);
}
MM_END_TEST
