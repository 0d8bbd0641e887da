/* Lab 02 tests, part B: Sattolo's single cycle, the pointer chase and the staircase. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "chase.h"
#include "mm_check.h"
#include "mm_hw.h"

Suite *chase_suite(void);

/* Follows next[] from 0 and checks that it visits all n indices once, then comes back. */
static void assert_one_cycle(const size_t *next, size_t n)
{
    unsigned char *seen = calloc(n, 1);
    ck_assert_ptr_nonnull(seen);
    size_t at = 0;
    for (size_t step = 0; step < n; step++) {
        ck_assert_msg(at < n, "next[] leads to %zu, outside 0..%zu", at, n - 1);
        ck_assert_msg(!seen[at], "n = %zu: index %zu comes back after only %zu steps: next[] has "
                      "a cycle shorter than n, so a chase would run in a smaller working set",
                      n, at, step);
        seen[at] = 1;
        at = next[at];
    }
    ck_assert_msg(at == 0, "n = %zu: after n steps the walk is at %zu, not back at 0", n, at);
    free(seen);
}

MM_TEST(test_sattolo_one_cycle)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 20; round++) {
        size_t n = (size_t)mm_rng_range(&r, 2, 100000);
        size_t *next = malloc(n * sizeof *next);
        ck_assert_ptr_nonnull(next);
        mm_rng_t g = mm_rng_new(mm_rng_next(&r));
        MM_ASSERT_OK(el_sattolo(next, n, &g));
        assert_one_cycle(next, n);
        free(next);
    }
}
MM_END_TEST

MM_TEST(test_sattolo_tiny)
{
    mm_rng_t g = MM_RNG();
    size_t one[1] = { 99 }, two[2] = { 7, 7 };
    MM_ASSERT_OK(el_sattolo(one, 1, &g));
    ck_assert_msg(one[0] == 0, "n = 1: the only cycle is 0 -> 0, got next[0] = %zu", one[0]);
    MM_ASSERT_OK(el_sattolo(two, 2, &g));
    ck_assert_msg(two[0] == 1 && two[1] == 0, "n = 2: the only cycle is 0 -> 1 -> 0, got "
                  "next = {%zu, %zu}", two[0], two[1]);
}
MM_END_TEST

/* n = 4 has 3! = 6 cycles through all four indices; Sattolo draws each with chance 1/6. */
MM_TEST(test_sattolo_uniform)
{
    mm_rng_t g = MM_RNG();
    unsigned count[4][4][4] = { { { 0 } } }; /* by next[0], next[1], next[2] */
    for (int draw = 0; draw < 6000; draw++) {
        size_t next[4];
        MM_ASSERT_OK(el_sattolo(next, 4, &g));
        assert_one_cycle(next, 4);
        count[next[0]][next[1]][next[2]]++;
    }
    unsigned kinds = 0;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            for (int c = 0; c < 4; c++) {
                unsigned k = count[a][b][c];
                kinds += k > 0;
                ck_assert_msg(k == 0 || (k > 850 && k < 1150), "the cycle starting {%d, %d, %d} "
                              "came %u times in 6000 draws; each of the 6 should come ~1000 times",
                              a, b, c, k);
            }
    ck_assert_msg(kinds == 6, "only %u of the 6 possible cycles of 4 ever came out", kinds);
}
MM_END_TEST

MM_TEST(test_sattolo_reproducible)
{
    enum { N = 1000 };
    size_t a[N], b[N], c[N];
    mm_rng_t r = MM_RNG();
    uint64_t seed = mm_rng_next(&r);
    mm_rng_t ga = mm_rng_new(seed), gb = mm_rng_new(seed), gc = mm_rng_new(seed + 1);
    MM_ASSERT_OK(el_sattolo(a, N, &ga));
    MM_ASSERT_OK(el_sattolo(b, N, &gb));
    MM_ASSERT_OK(el_sattolo(c, N, &gc));
    ck_assert_msg(memcmp(a, b, sizeof a) == 0, "the same seed must give the same permutation "
                  "(draw only from rng)");
    ck_assert_msg(memcmp(a, c, sizeof a) != 0, "different seeds gave the same permutation");
    size_t successor = 0;
    for (size_t i = 0; i < N; i++)
        successor += a[i] == (i + 1) % N;
    ck_assert_msg(successor < 20, "%zu of %d entries are next[i] = i + 1: a sequential chain is "
                  "one cycle too, but a prefetcher guesses it", successor, N);
}
MM_END_TEST

MM_TEST(test_sattolo_bad_args)
{
    mm_rng_t g = MM_RNG();
    size_t next[3] = { 5, 5, 5 };
    MM_ASSERT_ERR(el_sattolo(NULL, 3, &g), -EINVAL);
    MM_ASSERT_ERR(el_sattolo(next, 3, NULL), -EINVAL);
    MM_ASSERT_ERR(el_sattolo(next, 0, &g), -EINVAL);
    ck_assert_msg(next[0] == 5, "a rejected call must not write next[]");
}
MM_END_TEST

MM_TEST(test_chase_bad_args)
{
    double ns = -1;
    MM_ASSERT_ERR(el_chase_ns(1 << 16, 64, 1, NULL), -EINVAL);
    MM_ASSERT_ERR(el_chase_ns(1 << 16, 0, 1, &ns), -EINVAL);
    MM_ASSERT_ERR(el_chase_ns(1 << 16, 48, 1, &ns), -EINVAL);
    MM_ASSERT_ERR(el_chase_ns(1 << 16, 4, 1, &ns), -EINVAL);
    MM_ASSERT_ERR(el_chase_ns(64, 64, 1, &ns), -EINVAL);
    MM_ASSERT_ERR(el_chase_ns(1 << 16, 64, 0, &ns), -EINVAL);
    MM_ASSERT_ERR(el_chase_ns(1 << 16, 64, NAN, &ns), -EINVAL);
    MM_ASSERT_ERR(el_chase_ns(1 << 16, 64, 20000, &ns), -EINVAL);
    ck_assert_msg(ns == -1, "a rejected call must not write *ns");
}
MM_END_TEST

/* Working sets that sit in L1, in L2 and in memory (hwloc's sizes; common defaults without). */
static void level_sizes(size_t *l1, size_t *l2, size_t *mem)
{
    mm_cache_t c[MM_HW_MAX_CACHES];
    int n = mm_hw_caches(c, MM_HW_MAX_CACHES);
    size_t c1 = n > 0 ? c[0].size : 32 << 10, c2 = n > 1 ? c[1].size : 1 << 20;
    size_t llc = n > 0 ? c[n - 1].size : 32 << 20;
    *l1 = c1 / 2;
    *l2 = c2 / 4 > 2 * c1 ? c2 / 4 : 2 * c1;
    *mem = 4 * llc < ((size_t)64 << 20) ? (size_t)64 << 20 : 4 * llc;
    if (*mem > ((size_t)256 << 20))
        *mem = (size_t)256 << 20;
}

MM_TEST(test_chase_levels_ordered)
{
    size_t s1, s2, sm;
    level_sizes(&s1, &s2, &sm);
    double t1 = 0, t2 = 0, tm = 0;
    MM_ASSERT_OK(el_chase_ns(s1, 64, 20, &t1));
    MM_ASSERT_OK(el_chase_ns(s2, 64, 20, &t2));
    MM_ASSERT_OK(el_chase_ns(sm, 64, 20, &tm));
    ck_assert_msg(t1 > 0 && t1 < t2 && t2 < tm, "expected L1 < L2 < memory, measured %.2f ns "
                  "(%zu KiB), %.2f ns (%zu KiB), %.2f ns (%zu MiB)", t1, s1 >> 10, t2, s2 >> 10,
                  tm, sm >> 20);
    ck_assert_msg(tm >= 3 * t1, "memory (%.2f ns at %zu MiB) should be far slower than L1 "
                  "(%.2f ns): is the chase really random and dependent?", tm, sm >> 20, t1);
}
MM_END_TEST

MM_TEST(test_chase_other_lines)
{
    double a = 0, b = 0;
    MM_ASSERT_OK(el_chase_ns(8 << 10, 128, 2, &a));
    MM_ASSERT_OK(el_chase_ns(2 * sizeof(void *), sizeof(void *), 2, &b));
    ck_assert_msg(a > 0 && a < 1000 && b > 0 && b < 1000, "small chases took %g and %g ns per "
                  "load", a, b);
}
MM_END_TEST

MM_TEST(test_staircase_fills)
{
    size_t sizes[3] = { 4 << 10, 8 << 10, 16 << 10 }, bad[3] = { 4 << 10, 4 << 10, 8 << 10 };
    double ns[3] = { 0, 0, 0 }, untouched[3] = { -1, -1, -1 };
    MM_ASSERT_OK(el_staircase(sizes, 3, 64, 2, ns));
    for (int i = 0; i < 3; i++)
        ck_assert_msg(ns[i] > 0 && ns[i] < 1000, "ns[%d] = %g for %zu bytes", i, ns[i], sizes[i]);
    MM_ASSERT_ERR(el_staircase(bad, 3, 64, 2, untouched), -EINVAL);
    size_t tiny[2] = { 64, 4096 };
    MM_ASSERT_ERR(el_staircase(tiny, 2, 64, 2, untouched), -EINVAL);
    MM_ASSERT_ERR(el_staircase(sizes, 0, 64, 2, untouched), -EINVAL);
    MM_ASSERT_ERR(el_staircase(NULL, 3, 64, 2, untouched), -EINVAL);
    ck_assert_msg(untouched[0] == -1 && untouched[2] == -1,
                  "bad sizes must be rejected before anything is measured");
}
MM_END_TEST

Suite *chase_suite(void)
{
    Suite *s = suite_create("chase");
    TCase *tc = tcase_create("chase");
    tcase_add_test(tc, test_sattolo_one_cycle);
    tcase_add_test(tc, test_sattolo_tiny);
    tcase_add_test(tc, test_sattolo_uniform);
    tcase_add_test(tc, test_sattolo_reproducible);
    tcase_add_test(tc, test_sattolo_bad_args);
    tcase_add_test(tc, test_chase_bad_args);
    tcase_add_test(tc, test_chase_levels_ordered);
    tcase_add_test(tc, test_chase_other_lines);
    tcase_add_test(tc, test_staircase_fills);
    suite_add_tcase(s, tc);
    return s;
}
