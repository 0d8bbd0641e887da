/* Lab 02 tests, part A: the AMAT formula. */
#include <errno.h>
#include <math.h>
#include "amat.h"
#include "mm_check.h"

static void assert_near(double got, double want, const char *what)
{
    ck_assert_msg(fabs(got - want) <= 1e-9 * fmax(1.0, fabs(want)), "%s: got %.12g, expected %.12g",
                  what, got, want);
}

MM_TEST(test_amat_seed_example)
{
    double hit[3] = { 0.6, 0.7, 0.4 }, lat[4] = { 4, 12, 40, 250 }, t = 0;
    MM_ASSERT_OK(el_amat(hit, lat, 3, &t));
    assert_near(t, 25.68, "hit rates 60/70/40 %, latencies 4/12/40/250 cycles "
                          "(2.4 + 3.36 + 1.92 + 18)");
}
MM_END_TEST

MM_TEST(test_amat_better_l1)
{
    double hit[3] = { 0.95, 0.7, 0.4 }, lat[4] = { 4, 12, 40, 250 }, t = 0;
    MM_ASSERT_OK(el_amat(hit, lat, 3, &t));
    assert_near(t, 6.71, "the same hierarchy with a 95 % L1 hit rate (3.8 + 0.42 + 0.24 + 2.25)");
}
MM_END_TEST

MM_TEST(test_amat_edges)
{
    double lat[4] = { 4, 12, 40, 250 }, t = 0;
    double all[3] = { 1, 1, 1 }, none[3] = { 0, 0, 0 }, l2[3] = { 0.5, 1, 0 };
    MM_ASSERT_OK(el_amat(NULL, lat, 0, &t));
    assert_near(t, 4, "no caches: every load is served by 'memory', lat[0]");
    MM_ASSERT_OK(el_amat(all, lat, 3, &t));
    assert_near(t, 4, "every load hits L1");
    MM_ASSERT_OK(el_amat(none, lat, 3, &t));
    assert_near(t, 250, "every load misses every cache");
    MM_ASSERT_OK(el_amat(l2, lat, 3, &t));
    assert_near(t, 8, "half hit L1, the rest all hit L2: nothing reaches L3 or memory");
}
MM_END_TEST

/* The same model written bottom-up: what a load that reached level i costs on average is
 * hit[i] * lat[i] + (1 - hit[i]) * (what a load that reached level i + 1 costs). */
static double amat_bottom_up(const double *hit, const double *lat, size_t n)
{
    double below = lat[n];
    for (size_t i = n; i-- > 0;)
        below = hit[i] * lat[i] + (1 - hit[i]) * below;
    return below;
}

MM_TEST(test_amat_random_hierarchies)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 1000; round++) {
        size_t n = (size_t)mm_rng_range(&r, 0, EL_MAX_LEVELS);
        double hit[EL_MAX_LEVELS], lat[EL_MAX_LEVELS + 1], t = -1;
        lat[0] = 0.5 + 4 * mm_rng_unit(&r);
        for (size_t i = 0; i < n; i++) {
            hit[i] = mm_rng_range(&r, 0, 9) == 0 ? (double)mm_rng_range(&r, 0, 1) : mm_rng_unit(&r);
            lat[i + 1] = lat[i] * (1 + 5 * mm_rng_unit(&r));
        }
        MM_ASSERT_OK(el_amat(hit, lat, n, &t));
        assert_near(t, amat_bottom_up(hit, lat, n), "a random hierarchy");
    }
}
MM_END_TEST

MM_TEST(test_amat_bad_args)
{
    double hit[2] = { 0.5, 0.5 }, lat[3] = { 1, 10, 100 }, t = -7;
    double big[EL_MAX_LEVELS + 1] = { 0 }, biglat[EL_MAX_LEVELS + 2];
    for (int i = 0; i < EL_MAX_LEVELS + 2; i++)
        biglat[i] = 1;
    MM_ASSERT_ERR(el_amat(NULL, lat, 2, &t), -EINVAL);
    MM_ASSERT_ERR(el_amat(hit, NULL, 2, &t), -EINVAL);
    MM_ASSERT_ERR(el_amat(hit, lat, 2, NULL), -EINVAL);
    MM_ASSERT_ERR(el_amat(big, biglat, EL_MAX_LEVELS + 1, &t), -EINVAL);
    double bad_hit[] = { -0.1, 1.5, NAN, INFINITY };
    for (int i = 0; i < 4; i++) {
        double h[2] = { 0.5, bad_hit[i] };
        MM_ASSERT_ERR(el_amat(h, lat, 2, &t), -EINVAL);
    }
    double bad_lat[] = { 0, -3, NAN, INFINITY };
    for (int i = 0; i < 4; i++) {
        double l[3] = { 1, 10, bad_lat[i] };
        MM_ASSERT_ERR(el_amat(hit, l, 2, &t), -EINVAL);
    }
    ck_assert_msg(t == -7, "a rejected call must not write *out (it wrote %g)", t);
}
MM_END_TEST
