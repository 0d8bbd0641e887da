/* Lab 02 tests, part B: finding the level boundaries of a latency staircase. */
#include <errno.h>
#include <math.h>
#include "chase.h"
#include "mm_check.h"

enum { NPTS = 28, MAXK = 8 };

/* 16 KiB, 24 KiB, 32 KiB, 48 KiB, ... (steps of 1.5x and 4/3x), as the benchmark measures. */
static void half_steps(size_t *sizes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sizes[i] = (i % 2 ? (size_t)24 << 10 : (size_t)16 << 10) << (i / 2);
}

static void assert_knees(const size_t *sizes, const double *ns, size_t n, const size_t *want,
                         int nwant, const char *what)
{
    size_t got[MAXK] = { 0 };
    int k = el_find_knees(sizes, ns, n, got, MAXK);
    ck_assert_msg(k == nwant, "%s: found %d boundaries, expected %d", what, k, nwant);
    for (int i = 0; i < nwant; i++)
        ck_assert_msg(got[i] == want[i], "%s: boundary %d is %zu bytes, expected %zu", what, i,
                      got[i], want[i]);
}

MM_TEST(test_knees_header_example)
{
    size_t sizes[6];
    double ns[6] = { 1.2, 1.2, 1.4, 4.0, 4.1, 4.0 };
    size_t want[1] = { 32 << 10 };
    half_steps(sizes, 6);
    assert_knees(sizes, ns, 6, want, 1, "the example of chase.h");
}
MM_END_TEST

/* Two staircases measured on a 2-vCPU cloud VM (hwloc: L1 32 KiB, L2 1 MiB, L3 32 MiB; the L3
 * share this VM really gets is far smaller). */
MM_TEST(test_knees_measured_runs)
{
    size_t sizes[NPTS];
    half_steps(sizes, NPTS);
    double a[NPTS] = { 1.22, 1.79, 3.69, 3.98, 4.03,  4.05,  4.04,  4.34,  4.58,  5.33,
                       6.07, 11.08, 12.66, 14.52, 15.30, 19.07, 27.69, 154.0, 164.8, 164.1,
                       168.6, 166.2, 162.1, 163.4, 164.2, 170.6, 172.1, 173.0 };
    double b[NPTS] = { 1.13, 1.41, 3.22, 3.88,  3.92,  3.91,  3.87,  3.92,  3.89,  4.71,
                       5.90, 9.20, 13.04, 13.82, 16.02, 123.7, 128.0, 130.0, 148.8, 157.3,
                       162.7, 163.8, 169.4, 171.2, 163.1, 169.8, 171.4, 176.5 };
    size_t want_a[3] = { 24 << 10, 512 << 10, 4 << 20 };
    size_t want_b[3] = { 24 << 10, 512 << 10, 2 << 20 };
    assert_knees(sizes, a, NPTS, want_a, 3, "measured run A");
    assert_knees(sizes, b, NPTS, want_b, 3, "measured run B");
}
MM_END_TEST

/* A staircase with `levels` plateaus; each boundary is a jump of 2..8x, some of them in two
 * steps (a small one of 1.1..1.35x, then the steep one that marks the boundary); the plateaus
 * wobble by up to +-`noise`. */
static int synthetic(mm_rng_t *r, double noise, size_t *sizes, double *ns, size_t *want)
{
    half_steps(sizes, NPTS);
    int levels = (int)mm_rng_range(r, 1, 5), nk = 0;
    double lat = 0.5 + 2 * mm_rng_unit(r);
    size_t i = (size_t)mm_rng_range(r, 0, 3);
    for (size_t p = 0; p < i; p++)
        ns[p] = lat;
    for (int l = 0; l < levels; l++) {
        size_t len = (size_t)mm_rng_range(r, 3, 5);
        for (size_t p = 0; p < len && i < NPTS; p++)
            ns[i++] = lat;
        if (i + 3 >= NPTS || l == levels - 1)
            break;
        double jump = 2 + 6 * mm_rng_unit(r);
        if (mm_rng_range(r, 0, 1)) { /* two steps: a small one, then the steep one */
            jump = 3 + 5 * mm_rng_unit(r);
            ns[i++] = lat * (1.1 + 0.25 * mm_rng_unit(r));
        }
        want[nk++] = sizes[i - 1];
        lat *= jump;
    }
    for (; i < NPTS; i++)
        ns[i] = lat;
    for (size_t p = 0; p < NPTS; p++)
        ns[p] *= 1 + noise * (2 * mm_rng_unit(r) - 1);
    return nk;
}

MM_TEST(test_knees_synthetic_exact)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 300; round++) {
        size_t sizes[NPTS], want[MAXK];
        double ns[NPTS];
        int nk = synthetic(&r, 0.0, sizes, ns, want);
        assert_knees(sizes, ns, NPTS, want, nk, "a clean synthetic staircase");
    }
}
MM_END_TEST

MM_TEST(test_knees_synthetic_noisy)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 300; round++) {
        size_t sizes[NPTS], want[MAXK];
        double ns[NPTS];
        int nk = synthetic(&r, 0.04, sizes, ns, want);
        assert_knees(sizes, ns, NPTS, want, nk, "a synthetic staircase with +-4 % noise");
    }
}
MM_END_TEST

/* Under load, this VM's share of L3 shrinks and the climb out of L2 runs straight into the jump
 * to memory: one rise, 5.5 -> 16 ns before its steepest step (2 -> 3 MiB). Two boundaries. */
MM_TEST(test_knees_merged_levels)
{
    size_t sizes[NPTS];
    half_steps(sizes, NPTS);
    double ns[NPTS] = { 1.1, 1.1, 1.3, 3.9,  3.9,  4.0,   4.0,   4.1,   4.2,   4.6,
                        5.5, 7.5, 10.0, 12.6, 16.0, 131.0, 140.0, 146.0, 150.0, 156.0,
                        160.0, 163.0, 165.0, 168.0, 170.0, 171.0, 174.0, 176.0 };
    size_t want[3] = { 32 << 10, 512 << 10, 2 << 20 };
    assert_knees(sizes, ns, NPTS, want, 3, "L2 -> L3 -> memory in one rise");
}
MM_END_TEST

MM_TEST(test_knees_no_boundary)
{
    size_t sizes[NPTS];
    double flat[NPTS], creep[NPTS], small[NPTS];
    half_steps(sizes, NPTS);
    for (int i = 0; i < NPTS; i++) {
        flat[i] = 2.0 + (i % 3) * 0.05;
        creep[i] = 1.0 * pow(1.05, i); /* 3.7x in all, but never 10 % in one step */
        small[i] = i < 10 ? 3.0 : 4.2; /* one 1.4x step: not a level */
    }
    assert_knees(sizes, flat, NPTS, NULL, 0, "a flat staircase");
    assert_knees(sizes, creep, NPTS, NULL, 0, "a slow creep");
    assert_knees(sizes, small, NPTS, NULL, 0, "a single 1.4x step");
}
MM_END_TEST

MM_TEST(test_knees_bad_args)
{
    size_t sizes[4] = { 1024, 2048, 4096, 8192 }, unsorted[4] = { 1024, 4096, 2048, 8192 };
    double ns[4] = { 1, 1, 5, 5 }, zero[4] = { 1, 0, 5, 5 }, nan[4] = { 1, NAN, 5, 5 };
    size_t k[4];
    MM_ASSERT_ERR(el_find_knees(NULL, ns, 4, k, 4), -EINVAL);
    MM_ASSERT_ERR(el_find_knees(sizes, NULL, 4, k, 4), -EINVAL);
    MM_ASSERT_ERR(el_find_knees(sizes, ns, 4, NULL, 4), -EINVAL);
    MM_ASSERT_ERR(el_find_knees(sizes, ns, 1, k, 4), -EINVAL);
    MM_ASSERT_ERR(el_find_knees(unsorted, ns, 4, k, 4), -EINVAL);
    MM_ASSERT_ERR(el_find_knees(sizes, zero, 4, k, 4), -EINVAL);
    MM_ASSERT_ERR(el_find_knees(sizes, nan, 4, k, 4), -EINVAL);
    MM_ASSERT_ERR(el_find_knees(sizes, ns, 4, k, 0), -ENOSPC);
    MM_ASSERT_ERR(el_find_knees(sizes, ns, 4, NULL, 0), -ENOSPC);
}
MM_END_TEST
