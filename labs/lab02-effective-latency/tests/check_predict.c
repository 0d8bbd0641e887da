/* Lab 02 tests, part D: hit rates of a simulated hierarchy and the predicted average latency. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "mm_check.h"
#include "predict.h"
#include "walk.h"

static void assert_near(double got, double want, const char *what)
{
    ck_assert_msg(fabs(got - want) <= 1e-9 * fmax(1.0, fabs(want)), "%s: got %.12g, expected %.12g",
                  what, got, want);
}

/* L1: one set of 2 ways; L2: 2 sets of 2 ways; 16-byte lines. Loads of lines 0 1 0 2 0 1 3 1:
 *   L1: m m h m h m m h     (the 2-way set keeps the two most recently used lines)
 *   L2:     m m   m   h m   (sees only L1's misses: lines 0 1 2 1 3; line 1 is still in set 1)
 * L1 hits 3 of 8; L2 1 of 5. Counting from the third load: L1 3 of 6, L2 1 of 3. */
static const el_geom_t two_levels[2] = { { 1, 2, 16 }, { 2, 2, 16 } };
static const uint64_t hand_trace[8] = { 0, 16, 0, 32, 0, 16, 48, 16 };

MM_TEST(test_hit_rates_hand_trace)
{
    double hit[2] = { -1, -1 };
    MM_ASSERT_OK(el_sim_hit_rates(hand_trace, 8, 1, 0, two_levels, 2, hit));
    assert_near(hit[0], 3.0 / 8, "L1 hit rate of the hand trace");
    assert_near(hit[1], 1.0 / 5, "L2 local hit rate (hits / accesses that reached L2)");
}
MM_END_TEST

MM_TEST(test_hit_rates_warmup)
{
    double hit[2] = { -1, -1 };
    MM_ASSERT_OK(el_sim_hit_rates(hand_trace, 8, 1, 2, two_levels, 2, hit));
    assert_near(hit[0], 3.0 / 6, "L1 hit rate without the 2 warm-up loads");
    assert_near(hit[1], 1.0 / 3, "L2 hit rate without the 2 warm-up loads");
}
MM_END_TEST

MM_TEST(test_hit_rates_line_split)
{
    /* 8-byte loads at 12 (bytes 12..19: lines 0 and 1) and at 16 (line 1 only): 3 accesses. */
    const uint64_t trace[2] = { 12, 16 };
    const el_geom_t g[2] = { { 1, 4, 16 }, { 1, 8, 16 } };
    double hit[2] = { -1, -1 };
    MM_ASSERT_OK(el_sim_hit_rates(trace, 2, 8, 0, g, 2, hit));
    assert_near(hit[0], 1.0 / 3, "L1: a load that crosses a line is one access per line");
    assert_near(hit[1], 0.0, "L2 sees two first-time lines");
}
MM_END_TEST

MM_TEST(test_predict_hand_trace)
{
    double lat[3] = { 1, 10, 100 }, hit[2] = { -1, -1 }, ns = -1;
    MM_ASSERT_OK(el_predict_ns(hand_trace, 8, 1, 0, two_levels, lat, 2, hit, &ns));
    assert_near(ns, 3.0 / 8 * 1 + 5.0 / 8 * (0.2 * 10 + 0.8 * 100), "predicted latency");
    assert_near(hit[0], 3.0 / 8, "the hit rates written with the prediction");
    MM_ASSERT_OK(el_predict_ns(hand_trace, 8, 1, 0, two_levels, lat, 2, NULL, &ns));
}
MM_END_TEST

MM_TEST(test_predict_extremes)
{
    enum { N = 1000 };
    static uint64_t loop[N], stream[N];
    for (int i = 0; i < N; i++) {
        loop[i] = (uint64_t)(i % 100) * 64; /* 100 lines, 10 laps */
        stream[i] = (uint64_t)i * 64;       /* a new line every time */
    }
    const el_geom_t g[2] = { { 64, 8, 64 }, { 1024, 8, 64 } };
    double lat[3] = { 1.5, 5, 120 }, hit[2], ns = -1;
    MM_ASSERT_OK(el_predict_ns(loop, N, 8, 100, g, lat, 2, hit, &ns));
    assert_near(ns, 1.5, "100 lines in a 32 KiB L1, after a warm-up lap: L1 latency");
    assert_near(hit[0], 1.0, "L1 hit rate of the warm loop");
    assert_near(hit[1], 0.0, "no access reaches L2: its hit rate is reported as 0");
    MM_ASSERT_OK(el_predict_ns(stream, N, 8, 0, g, lat, 2, hit, &ns));
    assert_near(ns, 120, "a stream of new lines: memory latency");
}
MM_END_TEST

/* The lab's kernel: a walk that stays in its 16 KiB hot tier hits L1 every time once warm; one
 * that jumps around an 8 MiB cold tier almost never does. */
MM_TEST(test_hit_rates_walk_kernel)
{
    enum { STEPS = 60000, WARM = 20000 };
    el_walk_t *w = NULL;
    MM_ASSERT_OK(el_walk_create(&w, 16 << 10, 64 << 10, 8 << 20));
    uint64_t *trace = malloc(STEPS * sizeof *trace);
    ck_assert_ptr_nonnull(trace);
    const el_geom_t g[2] = { { 64, 8, 64 }, { 1024, 16, 64 } };
    double hit[2];
    MM_ASSERT_OK(el_walk_trace(w, (el_walk_mix_t){ 16, 0 }, 7, STEPS, trace));
    MM_ASSERT_OK(el_sim_hit_rates(trace, STEPS, EL_WALK_LOAD, WARM, g, 2, hit));
    assert_near(hit[0], 1.0, "the hot tier (16 KiB) in a 32 KiB 8-way L1");
    MM_ASSERT_OK(el_walk_trace(w, (el_walk_mix_t){ 0, 0 }, 7, STEPS, trace));
    MM_ASSERT_OK(el_sim_hit_rates(trace, STEPS, EL_WALK_LOAD, WARM, g, 2, hit));
    ck_assert_msg(hit[0] < 0.01 && hit[1] < 0.2, "random jumps over 8 MiB: L1 hit rate %.3f, "
                  "L2 %.3f; both should be near 0", hit[0], hit[1]);
    free(trace);
    el_walk_destroy(w);
}
MM_END_TEST

MM_TEST(test_predict_bad_args)
{
    const el_geom_t bad[2] = { { 3, 2, 16 }, { 2, 2, 16 } };
    double hit[2] = { -1, -1 }, lat[3] = { 1, 10, 100 }, zero_lat[3] = { 1, 0, 100 }, ns = -1;
    MM_ASSERT_ERR(el_sim_hit_rates(NULL, 8, 1, 0, two_levels, 2, hit), -EINVAL);
    MM_ASSERT_ERR(el_sim_hit_rates(hand_trace, 8, 1, 0, NULL, 2, hit), -EINVAL);
    MM_ASSERT_ERR(el_sim_hit_rates(hand_trace, 8, 1, 0, two_levels, 2, NULL), -EINVAL);
    MM_ASSERT_ERR(el_sim_hit_rates(hand_trace, 8, 0, 0, two_levels, 2, hit), -EINVAL);
    MM_ASSERT_ERR(el_sim_hit_rates(hand_trace, 8, EL_MAX_ACCESS + 1, 0, two_levels, 2, hit),
                  -EINVAL);
    MM_ASSERT_ERR(el_sim_hit_rates(hand_trace, 8, 1, 8, two_levels, 2, hit), -EINVAL);
    MM_ASSERT_ERR(el_sim_hit_rates(hand_trace, 8, 1, 0, two_levels, 0, hit), -EINVAL);
    el_geom_t many[EL_MAX_LEVELS + 1]; /* arrays as long as nlevels says: the call copies them */
    double many_hit[EL_MAX_LEVELS + 1];
    for (int i = 0; i < EL_MAX_LEVELS + 1; i++) {
        many[i] = two_levels[1];
        many_hit[i] = -1;
    }
    MM_ASSERT_ERR(el_sim_hit_rates(hand_trace, 8, 1, 0, many, EL_MAX_LEVELS + 1, many_hit),
                  -EINVAL);
    MM_ASSERT_ERR(el_sim_hit_rates(hand_trace, 8, 1, 0, bad, 2, hit), -EINVAL);
    ck_assert_msg(hit[0] == -1 && hit[1] == -1 && many_hit[0] == -1,
                  "a rejected call must not write hit[]");
    MM_ASSERT_ERR(el_predict_ns(hand_trace, 8, 1, 0, two_levels, zero_lat, 2, hit, &ns), -EINVAL);
    MM_ASSERT_ERR(el_predict_ns(hand_trace, 8, 1, 0, two_levels, NULL, 2, hit, &ns), -EINVAL);
    MM_ASSERT_ERR(el_predict_ns(hand_trace, 8, 1, 0, two_levels, lat, 2, hit, NULL), -EINVAL);
    ck_assert_msg(ns == -1 && hit[0] == -1, "a rejected prediction must not write *ns or hit[]");
}
MM_END_TEST
