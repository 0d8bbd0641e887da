/* Lab 10 tests, Part B: intensity, the ridge, the attainable GFLOP/s on both sides of the ridge
 * and at it, the roofline's time, and every roof, intensity or pointer that must be refused. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include "support.h"

/* 1000 GFLOP/s and 100 GB/s: the ridge at 10 FLOP per byte. */
static const rl_roof_t roof = { 1000.0, 100.0 };

/* True when a and b have the same bits (an untouched output, NaN or not). */
static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* A random roof: 1 .. 10^5 GFLOP/s, 1 .. 10^4 GB/s, spread over the decades. */
static rl_roof_t random_roof(mm_rng_t *r)
{
    return (rl_roof_t){ pow(10.0, 5.0 * mm_rng_unit(r)), pow(10.0, 4.0 * mm_rng_unit(r)) };
}

MM_TEST(test_intensity)
{
    const struct { rl_cost_t c; double want; } cases[] = {
        { { 12, 44 }, 12.0 / 44.0 },  /* gemv 2 x 3: below 1, not 0 */
        { { 0, 8 }, 0.0 },
        { { 1000, 8 }, 125.0 },
        { { UINT64_MAX, 3 }, (double)UINT64_MAX / 3.0 },
        { { 1, UINT64_MAX }, 1.0 / (double)UINT64_MAX },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double fpb = -1.0;
        MM_ASSERT_OK(rl_intensity(cases[i].c, &fpb));
        ck_assert_msg(tu_near(fpb, cases[i].want), "%llu FLOPs over %llu bytes: %.17g, expected "
                      "%.17g", (unsigned long long)cases[i].c.flops,
                      (unsigned long long)cases[i].c.bytes, fpb, cases[i].want);
    }
    double fpb = 7.5;
    MM_ASSERT_ERR(rl_intensity((rl_cost_t){ 10, 0 }, &fpb), -EINVAL);
    MM_ASSERT_ERR(rl_intensity((rl_cost_t){ 0, 0 }, &fpb), -EINVAL);
    MM_ASSERT_ERR(rl_intensity((rl_cost_t){ 10, 4 }, NULL), -EINVAL);
    ck_assert_msg(fpb == 7.5, "a failed rl_intensity changed *fpb (now %g)", fpb);
}
MM_END_TEST

MM_TEST(test_ridge)
{
    double ridge = 0.0;
    MM_ASSERT_OK(rl_ridge(&roof, &ridge));
    ck_assert_msg(ridge == 10.0, "1000 GFLOP/s over 100 GB/s: ridge %g, expected 10", ridge);
    MM_ASSERT_OK(rl_ridge(&(rl_roof_t){ 2.5, 10.0 }, &ridge));
    ck_assert_msg(ridge == 0.25, "2.5 GFLOP/s over 10 GB/s: ridge %g, expected 0.25", ridge);
    mm_rng_t r = MM_RNG();
    for (int t = 0; t < 1000; t++) {
        rl_roof_t rf = random_roof(&r);
        MM_CHECK_OK(rl_ridge(&rf, &ridge));
        MM_CHECK(tu_near(ridge, rf.peak_gflops / rf.peak_gbs), "roof %.17g GFLOP/s, %.17g GB/s:"
                 " ridge %.17g, expected %.17g", rf.peak_gflops, rf.peak_gbs, ridge,
                 rf.peak_gflops / rf.peak_gbs);
    }
}
MM_END_TEST

MM_TEST(test_attainable)
{
    const struct { double fpb, want; const char *what; } cases[] = {
        { 0.0, 0.0, "no FLOPs at all" },
        { 1.0, 100.0, "1 FLOP/byte: memory-bound, 100 GB/s x 1" },
        { 9.5, 950.0, "just below the ridge" },
        { 10.0, 1000.0, "exactly at the ridge: both roofs agree" },
        { 10.5, 1000.0, "just above the ridge: compute-bound" },
        { 1e6, 1000.0, "far above the ridge" },
        { DBL_MAX, 1000.0, "the largest finite intensity" },
        { 0.015625, 1.5625, "a small intensity" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double g = -1.0;
        MM_ASSERT_OK(rl_attainable(&roof, cases[i].fpb, &g));
        ck_assert_msg(tu_near(g, cases[i].want), "roof 1000 GFLOP/s, 100 GB/s at %g FLOP/byte "
                      "(%s): %.17g GFLOP/s, expected %.17g", cases[i].fpb, cases[i].what, g,
                      cases[i].want);
    }
    mm_rng_t r = MM_RNG();
    for (int t = 0; t < 1000; t++) {
        rl_roof_t rf = random_roof(&r);
        double ridge = rf.peak_gflops / rf.peak_gbs, g = -1.0;
        double fpb = t % 4 == 0 ? ridge : ridge * 4.0 * mm_rng_unit(&r);
        MM_CHECK_OK(rl_attainable(&rf, fpb, &g));
        double want = fmin(rf.peak_gflops, rf.peak_gbs * fpb);
        MM_CHECK(tu_near(g, want), "roof %.17g GFLOP/s, %.17g GB/s at %.17g FLOP/byte (ridge "
                 "%.17g): %.17g, expected %.17g", rf.peak_gflops, rf.peak_gbs, fpb, ridge, g,
                 want);
    }
}
MM_END_TEST

MM_TEST(test_predict_ns)
{
    const struct { rl_cost_t c; double want; const char *what; } cases[] = {
        { { 2000, 1000 }, 10.0, "memory-bound: 1000 bytes at 100 GB/s (the FLOPs take 2 ns)" },
        { { 1000000, 1000 }, 1000.0, "compute-bound: 10^6 FLOPs at 1000 GFLOP/s" },
        { { 10000, 1000 }, 10.0, "at the ridge: both take 10 ns" },
        { { 0, 0 }, 0.0, "nothing to do" },
        { { 33554432, 67141632 }, 671416.32, "gemv 4096 x 4096" },
        { { 1, 0 }, 0.001, "one FLOP, no bytes" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double ns = -1.0;
        MM_ASSERT_OK(rl_predict_ns(&roof, cases[i].c, &ns));
        ck_assert_msg(tu_near(ns, cases[i].want), "%s: %.17g ns, expected %.17g", cases[i].what,
                      ns, cases[i].want);
    }
    mm_rng_t r = MM_RNG();
    for (int t = 0; t < 1000; t++) {
        rl_roof_t rf = random_roof(&r);
        rl_cost_t c = { mm_rng_next(&r) >> mm_rng_range(&r, 0, 63),
                        mm_rng_next(&r) >> mm_rng_range(&r, 0, 63) };
        double ns = -1.0, want = fmax((double)c.flops / rf.peak_gflops,
                                      (double)c.bytes / rf.peak_gbs);
        MM_CHECK_OK(rl_predict_ns(&rf, c, &ns));
        MM_CHECK(tu_near(ns, want), "%llu FLOPs, %llu bytes on %.17g GFLOP/s, %.17g GB/s: "
                 "%.17g ns, expected %.17g", (unsigned long long)c.flops,
                 (unsigned long long)c.bytes, rf.peak_gflops, rf.peak_gbs, ns, want);
    }
}
MM_END_TEST

MM_TEST(test_roof_bad_args)
{
    const double bad[] = { 0.0, -0.0, -1.0, -1e-300, NAN, -NAN, INFINITY, -INFINITY };
    const double bad_fpb[] = { -1.0, -1e-300, NAN, INFINITY, -INFINITY };
    const rl_cost_t c = { 1000, 100 };
    double out = 123.25;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        for (int side = 0; side < 2; side++) {
            rl_roof_t rf = roof;
            *(side ? &rf.peak_gbs : &rf.peak_gflops) = bad[i];
            MM_CHECK_ERR(rl_ridge(&rf, &out), -EINVAL);
            MM_CHECK_ERR(rl_attainable(&rf, 1.0, &out), -EINVAL);
            MM_CHECK_ERR(rl_predict_ns(&rf, c, &out), -EINVAL);
            MM_CHECK(same_bits(out, 123.25), "a refused roof (%s = %g) changed the output",
                     side ? "peak_gbs" : "peak_gflops", bad[i]);
        }
    for (size_t i = 0; i < sizeof bad_fpb / sizeof bad_fpb[0]; i++)
        MM_CHECK_ERR(rl_attainable(&roof, bad_fpb[i], &out), -EINVAL);
    ck_assert_msg(same_bits(out, 123.25), "a refused intensity changed *gflops");
    MM_ASSERT_ERR(rl_ridge(NULL, &out), -EINVAL);
    MM_ASSERT_ERR(rl_ridge(&roof, NULL), -EINVAL);
    MM_ASSERT_ERR(rl_attainable(NULL, 1.0, &out), -EINVAL);
    MM_ASSERT_ERR(rl_attainable(&roof, 1.0, NULL), -EINVAL);
    MM_ASSERT_ERR(rl_predict_ns(NULL, c, &out), -EINVAL);
    MM_ASSERT_ERR(rl_predict_ns(&roof, c, NULL), -EINVAL);
    ck_assert_msg(same_bits(out, 123.25), "a failed call changed its output");
}
MM_END_TEST
