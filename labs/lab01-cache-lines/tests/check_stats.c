/* Lab 01 tests, part B: the per-worker statistics accumulator. The student's code runs in a
 * process of its own: the worker threads run there (workload "feed", serve/cl_work.c), and the
 * merged result is checked here against a serial oracle. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mm_call.h"
#include "mm_check.h"
#include "stats.h"
#include "../serve/cl_work.h"

static float *random_samples(mm_rng_t *r, size_t n)
{
    float *x = malloc((n ? n : 1) * sizeof *x);
    ck_assert_ptr_nonnull(x);
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(mm_rng_unit(r) * 200.0 - 100.0);
    return x;
}

static cl_stats_t serial(const float *x, size_t n)
{
    cl_stats_t s = { 0, 0.0, 0.0, INFINITY, -INFINITY };
    for (size_t i = 0; i < n; i++) {
        s.count++;
        s.sum += x[i];
        s.sumsq += (double)x[i] * x[i];
        s.min = fminf(s.min, x[i]);
        s.max = fmaxf(s.max, x[i]);
    }
    return s;
}

static void assert_close(double got, double want, const char *what)
{
    double tol = 1e-9 * fmax(1.0, fabs(want)) + 1e-6;
    ck_assert_msg(fabs(got - want) <= tol, "%s = %.17g, expected %.17g", what, got, want);
}

static void assert_stats_equal(const cl_stats_t *got, const cl_stats_t *want)
{
    ck_assert_msg(got->count == want->count, "count = %llu, expected %llu",
                  (unsigned long long)got->count, (unsigned long long)want->count);
    assert_close(got->sum, want->sum, "sum");
    assert_close(got->sumsq, want->sumsq, "sumsq");
    ck_assert_msg(got->min == want->min, "min = %g, expected %g", got->min, want->min);
    ck_assert_msg(got->max == want->max, "max = %g, expected %g", got->max, want->max);
}

/* Feeds x to `workers` threads (contiguous shares) in the student's process and returns the
 * accumulator's result. */
static cl_stats_t run_workers(const float *x, size_t n, unsigned workers, size_t line)
{
    cl_accum_t *acc = NULL;
    ck_assert_msg(cl_accum_create(&acc, workers, line) == 0, "create(%u workers, line %zu) failed",
                  workers, line);
    float *shared = mm_shared_alloc((n ? n : 1) * sizeof *x);
    memcpy(shared, x, n * sizeof *x);
    cl_feed_in_t job = { (uintptr_t)acc, (uintptr_t)shared, n, workers, 0 };
    MM_ASSERT_OK(mm_call_work("feed", &job, sizeof job, NULL, 0));
    cl_stats_t s;
    MM_ASSERT_OK(cl_accum_result(acc, &s));
    cl_accum_destroy(acc);
    return s;
}

MM_TEST(test_stats_merge)
{
    mm_rng_t r = MM_RNG();
    size_t n = (size_t)mm_rng_range(&r, 2, 1000), cut = (size_t)mm_rng_range(&r, 1, n - 1);
    float *x = random_samples(&r, n);
    cl_stats_t a = serial(x, cut), b = serial(x + cut, n - cut), all = serial(x, n);
    cl_stats_merge(&a, &b);
    assert_stats_equal(&a, &all);
    free(x);
}
MM_END_TEST

MM_TEST(test_stats_merge_empty)
{
    float x[3] = { 2.0f, -1.0f, 5.0f };
    cl_stats_t a = serial(x, 3), e, want = serial(x, 3);
    cl_stats_init(&e);
    cl_stats_merge(&a, &e);
    assert_stats_equal(&a, &want);
    cl_stats_merge(&e, &want);
    assert_stats_equal(&e, &want);
}
MM_END_TEST

MM_TEST(test_accum_concurrent_workers)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 12; round++) {
        size_t n = (size_t)mm_rng_range(&r, 1, 200000);
        unsigned w = (unsigned)mm_rng_range(&r, 1, 16);
        size_t line = (size_t)8 << mm_rng_range(&r, 0, 5);
        float *x = random_samples(&r, n);
        cl_stats_t got = run_workers(x, n, w, line), want = serial(x, n);
        assert_stats_equal(&got, &want);
        free(x);
    }
}
MM_END_TEST

MM_TEST(test_accum_idle_workers)
{
    float x[3] = { 1.5f, -7.0f, 3.25f };
    cl_stats_t got = run_workers(x, 3, 8, 64), want = serial(x, 3);
    assert_stats_equal(&got, &want);
}
MM_END_TEST

MM_TEST(test_accum_empty)
{
    cl_accum_t *acc = NULL;
    cl_stats_t got;
    MM_ASSERT_OK(cl_accum_create(&acc, 4, 64));
    MM_ASSERT_OK(cl_accum_result(acc, &got));
    ck_assert_msg(got.count == 0 && got.sum == 0 && isinf(got.min) && got.min > 0,
                  "the result of no samples must be the empty statistic (count 0, min +inf)");
    cl_accum_add(acc, 4, 1.0f); /* out of range: ignored */
    cl_accum_add(NULL, 0, 1.0f);
    MM_ASSERT_OK(cl_accum_result(acc, &got));
    ck_assert_msg(got.count == 0, "an out-of-range worker's sample must be ignored");
    cl_accum_destroy(acc);
    cl_accum_destroy(NULL);
}
MM_END_TEST

MM_TEST(test_accum_bad_args)
{
    cl_accum_t *acc = NULL;
    cl_stats_t s;
    MM_ASSERT_ERR(cl_accum_create(NULL, 2, 64), -EINVAL);
    MM_ASSERT_ERR(cl_accum_create(&acc, 0, 64), -EINVAL);
    MM_ASSERT_ERR(cl_accum_create(&acc, CL_MAX_WORKERS + 1, 64), -EINVAL);
    MM_ASSERT_ERR(cl_accum_create(&acc, 2, 96), -EINVAL);
    MM_ASSERT_ERR(cl_accum_create(&acc, 2, 4), -EINVAL);
    ck_assert_msg(acc == NULL, "a failed create must not set *out");
    MM_ASSERT_ERR(cl_accum_result(NULL, &s), -EINVAL);
}
MM_END_TEST
