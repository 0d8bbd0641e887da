/* Lab 01 tests, part A: padded per-thread counters. The student's code runs in a process of its
 * own: its slots are read through mm_peek, and the threads that bump them run there (workload
 * "bump", serve/cl_work.c); the totals are checked here. */
#include <errno.h>
#include "counters.h"
#include "mm_call.h"
#include "mm_hw.h"
#include "mm_check.h"
#include "../serve/cl_work.h"

/* Round 0 an Apple M-series line (128 B), round 1 an x86-64 / Neoverse one (64 B), then a random
 * power of two in 8 .. 512: the lab must work for any line it is given, not for this machine's. */
static size_t round_line(mm_rng_t *r, int round)
{
    return round == 0 ? 128 : round == 1 ? 64 : (size_t)8 << mm_rng_range(r, 0, 6);
}

/* The value of slot t (an address in the student's process). */
static uint64_t slot_value(const uint64_t *s, unsigned t)
{
    uint64_t v = 0;
    MM_CHECK(mm_peek(s, &v, sizeof v) == 0, "slot %u at %p cannot be read: not memory of your "
             "process", t, (const void *)s);
    return v;
}

MM_TEST(test_line_size_matches_os)
{
    size_t got = cl_line_size();
    mm_line_source_t from;
    size_t want = mm_hw_line_size_from(&from);
    ck_assert_msg(got >= 8 && (got & (got - 1)) == 0, "cl_line_size() = %zu: not a power of two >= 8",
                  got);
    ck_assert_msg(got == want, "cl_line_size() = %zu but the OS says %zu (from %s: sysfs/hwloc "
                  "first, then sysconf, else 64)", got, want, mm_hw_line_source_name(from));
}
MM_END_TEST

MM_TEST(test_create_rejects_bad_args)
{
    cl_counters_t *c = NULL;
    ck_assert_msg(cl_counters_create(NULL, 2, 64) == -EINVAL, "out == NULL must give -EINVAL");
    ck_assert_msg(cl_counters_create(&c, 0, 64) == -EINVAL, "0 threads must give -EINVAL");
    ck_assert_msg(cl_counters_create(&c, CL_MAX_THREADS + 1, 64) == -EINVAL,
                  "more than CL_MAX_THREADS threads must give -EINVAL");
    ck_assert_msg(cl_counters_create(&c, 2, 48) == -EINVAL, "line 48 is not a power of two");
    ck_assert_msg(cl_counters_create(&c, 2, 4) == -EINVAL, "line 4 is smaller than a counter");
    ck_assert_msg(cl_counters_create(&c, 2, 0) == -EINVAL, "line 0 must give -EINVAL");
    ck_assert_msg(c == NULL, "a failed create must not set *out");
}
MM_END_TEST

MM_TEST(test_slots_line_aligned)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 20; round++) {
        unsigned n = (unsigned)mm_rng_range(&r, 1, 64);
        size_t line = round_line(&r, round);
        cl_counters_t *c = NULL;
        MM_ASSERT_OK(cl_counters_create(&c, n, line));
        for (unsigned t = 0; t < n; t++) {
            uint64_t *s = cl_counters_slot(c, t);
            ck_assert_msg(s != NULL, "slot %u of %u is NULL", t, n);
            ck_assert_msg((uintptr_t)s % line == 0, "slot %u at %p is not aligned to a %zu-byte line",
                          t, (void *)s, line);
            uint64_t v = slot_value(s, t);
            ck_assert_msg(v == 0, "slot %u starts at %llu, not 0", t, (unsigned long long)v);
        }
        cl_counters_destroy(c);
    }
}
MM_END_TEST

MM_TEST(test_slots_distinct_lines)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 20; round++) {
        unsigned n = (unsigned)mm_rng_range(&r, 2, 64);
        size_t line = round_line(&r, round);
        cl_counters_t *c = NULL;
        uintptr_t at[64]; /* each slot's line */
        MM_ASSERT_OK(cl_counters_create(&c, n, line));
        for (unsigned t = 0; t < n; t++)
            at[t] = (uintptr_t)cl_counters_slot(c, t) / line;
        for (unsigned t = 1; t < n; t++)
            for (unsigned u = 0; u < t; u++)
                MM_CHECK(at[u] != at[t], "slots %u and %u share a %zu-byte line (false sharing)",
                         u, t, line);
        cl_counters_destroy(c);
    }
}
MM_END_TEST

MM_TEST(test_slot_out_of_range)
{
    cl_counters_t *c = NULL;
    MM_ASSERT_OK(cl_counters_create(&c, 3, 64));
    ck_assert_msg(cl_counters_slot(c, 3) == NULL, "slot(nthreads) must be NULL");
    ck_assert_msg(cl_counters_slot(NULL, 0) == NULL, "slot of NULL must be NULL");
    ck_assert_msg(cl_counters_total(NULL) == 0, "total of NULL must be 0");
    cl_counters_destroy(c);
    cl_counters_destroy(NULL);
}
MM_END_TEST

MM_TEST(test_totals_exact_under_contention)
{
    mm_rng_t r = MM_RNG();
    for (unsigned n = 1; n <= 8; n++) {
        cl_counters_t *c = NULL;
        MM_ASSERT_OK(cl_counters_create(&c, n, 64));
        cl_bump_in_t job = { .n = n };
        uint64_t expect = 0;
        for (unsigned t = 0; t < n; t++) {
            uint64_t *s = cl_counters_slot(c, t);
            ck_assert_ptr_nonnull(s);
            job.slot[t] = (uintptr_t)s;
            job.times[t] = mm_rng_range(&r, 0, 200000);
            expect += job.times[t];
        }
        MM_ASSERT_OK(mm_call_work("bump", &job, sizeof job, NULL, 0));
        uint64_t total = cl_counters_total(c);
        ck_assert_msg(total == expect, "%u threads: total %llu, expected %llu", n,
                      (unsigned long long)total, (unsigned long long)expect);
        cl_counters_destroy(c);
    }
}
MM_END_TEST
