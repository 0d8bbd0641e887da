/* Lab 08 tests, part B: the dynamic loss scaler and gradient unscaling. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "mm_call.h"
#include "mm_check.h"
#include "mp_convert.h"
#include "mp_scaler.h"
#include "../serve/mp_work.h"

static mp_scaler_opts_t opts_with(float init, uint32_t interval)
{
    mp_scaler_opts_t o;
    mp_scaler_defaults(&o);
    o.init_scale = init;
    o.growth_interval = interval;
    return o;
}

MM_TEST(test_scaler_init_defaults)
{
    mp_scaler_t s;
    MM_ASSERT_OK(mp_scaler_init(&s, NULL));
    ck_assert_msg(s.scale == 65536.0f, "the default first scale is 2^16 (PyTorch's), got %g",
                  (double)s.scale);
    ck_assert_msg(s.opts.growth_factor == 2.0f && s.opts.backoff_factor == 0.5f &&
                  s.opts.growth_interval == 2000 && s.opts.max_scale == 16777216.0f,
                  "init(NULL) must copy the defaults of mp_scaler_defaults into s->opts");
    ck_assert_msg(s.clean_steps == 0 && s.steps == 0 && s.skipped == 0, "counters start at 0");
    mp_scaler_opts_t o = opts_with(8.0f, 3);
    MM_ASSERT_OK(mp_scaler_init(&s, &o));
    ck_assert_msg(s.scale == 8.0f && s.opts.growth_interval == 3,
                  "init must use the options given");
}
MM_END_TEST

MM_TEST(test_scaler_backoff_skips)
{
    mp_scaler_t s;
    MM_ASSERT_OK(mp_scaler_init(&s, NULL));
    ck_assert_msg(mp_scaler_update(&s, 0) == 0, "a clean step is applied (0)");
    ck_assert_msg(mp_scaler_update(&s, 1) == 1,
                  "a step with inf/NaN gradients must be skipped (1)");
    ck_assert_msg(s.scale == 32768.0f, "an overflow halves the scale: got %g", (double)s.scale);
    ck_assert_msg(s.clean_steps == 0 && s.skipped == 1 && s.steps == 2,
                  "clean_steps %u (want 0), skipped %llu (1), steps %llu (2)", s.clean_steps,
                  (unsigned long long)s.skipped, (unsigned long long)s.steps);
    for (int i = 0; i < 30; i++)
        ck_assert_int_eq(mp_scaler_update(&s, 1), 1);
    ck_assert_msg(s.scale == 1.0f, "the scale must stop at min_scale 1.0, got %g", (double)s.scale);
}
MM_END_TEST

MM_TEST(test_scaler_growth)
{
    mp_scaler_t s;
    MM_ASSERT_OK(mp_scaler_init(&s, NULL));
    for (int i = 0; i < 1999; i++)
        ck_assert_int_eq(mp_scaler_update(&s, 0), 0);
    ck_assert_msg(s.scale == 65536.0f && s.clean_steps == 1999, "1999 clean steps: no growth yet");
    mp_scaler_update(&s, 0);
    ck_assert_msg(s.scale == 131072.0f && s.clean_steps == 0,
                  "the 2000th clean step doubles the scale and restarts the count (scale %g, "
                  "clean_steps %u)", (double)s.scale, s.clean_steps);
    mp_scaler_opts_t o = opts_with(4.0f, 3);
    MM_ASSERT_OK(mp_scaler_init(&s, &o));
    mp_scaler_update(&s, 0), mp_scaler_update(&s, 0), mp_scaler_update(&s, 1);
    mp_scaler_update(&s, 0), mp_scaler_update(&s, 0);
    ck_assert_msg(s.scale == 2.0f, "an overflow restarts the clean count: got scale %g",
                  (double)s.scale);
    o = opts_with(16777216.0f, 1);
    MM_ASSERT_OK(mp_scaler_init(&s, &o));
    mp_scaler_update(&s, 0);
    ck_assert_msg(s.scale == 16777216.0f, "the scale must stop at max_scale, got %g",
                  (double)s.scale);
}
MM_END_TEST

/* The contract of mp_scaler_update, step by step, in the same float arithmetic. */
typedef struct {
    float scale;
    uint32_t clean;
    uint64_t steps, skipped;
} model_t;

static int model_update(model_t *m, const mp_scaler_opts_t *o, int inf)
{
    m->steps++;
    if (inf) {
        m->skipped++, m->clean = 0;
        m->scale = fmaxf(m->scale * o->backoff_factor, o->min_scale);
        return 1;
    }
    if (++m->clean == o->growth_interval) {
        m->clean = 0;
        m->scale = fminf(m->scale * o->growth_factor, o->max_scale);
    }
    return 0;
}

static mp_scaler_opts_t random_opts(mm_rng_t *r)
{
    static const float growth[3] = { 2.0f, 4.0f, 1.5f }, backoff[3] = { 0.5f, 0.25f, 0.75f };
    int lo = (int)mm_rng_range(r, 0, 10), init = lo + (int)mm_rng_range(r, 0, 10);
    mp_scaler_opts_t o = opts_with(ldexpf(1.0f, init), (uint32_t)mm_rng_range(r, 1, 50));
    o.growth_factor = growth[mm_rng_range(r, 0, 2)];
    o.backoff_factor = backoff[mm_rng_range(r, 0, 2)];
    o.min_scale = ldexpf(1.0f, lo);
    o.max_scale = ldexpf(1.0f, init + (int)mm_rng_range(r, 0, 10));
    return o;
}

/* Steps with overflows at random (probability p_inf) from the scaler s, made with options o, in
 * one call of the `scaler_run` workload; each step checked against the model. */
static void check_random_steps(mm_rng_t *r, const mp_scaler_t *s, const mp_scaler_opts_t *o,
                               double p_inf, int round)
{
    enum { STEPS = 2000 };
    static mp_work_scaler_t q;
    static mp_work_step_t got[STEPS];
    q.s = *s, q.n = STEPS;
    for (int k = 0; k < STEPS; k++)
        q.found_inf[k] = mm_rng_unit(r) < p_inf;
    MM_ASSERT_OK(mm_call_work("scaler_run", &q, sizeof q, got, sizeof got));
    model_t m = { o->init_scale, 0, 0, 0 };
    for (int k = 0; k < STEPS; k++) {
        const mp_scaler_t *g = &got[k].s;
        int inf = q.found_inf[k], want = model_update(&m, o, inf);
        MM_CHECK(got[k].ret == want && g->scale == m.scale && g->clean_steps == m.clean &&
                     g->steps == m.steps && g->skipped == m.skipped,
                 "round %d step %d (found_inf %d, interval %u, growth %g, backoff %g): "
                 "returned %d scale %g clean %u skipped %llu; want %d %g %u %llu",
                 round, k, inf, o->growth_interval, (double)o->growth_factor,
                 (double)o->backoff_factor, got[k].ret, (double)g->scale, g->clean_steps,
                 (unsigned long long)g->skipped, want, (double)m.scale, m.clean,
                 (unsigned long long)m.skipped);
    }
}

MM_TEST(test_scaler_random_model)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 50; round++) {
        mp_scaler_opts_t o = random_opts(&r);
        mp_scaler_t s;
        MM_ASSERT_OK(mp_scaler_init(&s, &o));
        check_random_steps(&r, &s, &o, mm_rng_unit(&r) * 0.3, round);
    }
}
MM_END_TEST

MM_TEST(test_scaler_bad_args)
{
    mp_scaler_opts_t bad[10];
    for (int i = 0; i < 10; i++)
        mp_scaler_defaults(&bad[i]);
    bad[0].growth_factor = 1.0f;
    bad[1].backoff_factor = 1.0f;
    bad[2].backoff_factor = 0.0f;
    bad[3].growth_interval = 0;
    bad[4].min_scale = 0.0f;
    bad[5].min_scale = 1e9f; /* above max_scale */
    bad[6].init_scale = 0.5f; /* below min_scale */
    bad[7].init_scale = NAN;
    bad[8].max_scale = INFINITY;
    bad[9].growth_factor = NAN;
    mp_scaler_t s, before;
    memset(&s, 0x5A, sizeof s);
    before = s;
    for (int i = 0; i < 10; i++)
        ck_assert_msg(mp_scaler_init(&s, &bad[i]) == -EINVAL, "bad option set %d must give -EINVAL",
                      i);
    ck_assert_msg(memcmp(&s, &before, sizeof s) == 0, "a rejected init must not touch *s");
    MM_ASSERT_ERR(mp_scaler_init(NULL, NULL), -EINVAL);
    MM_ASSERT_ERR(mp_scaler_update(NULL, 0), -EINVAL);
}
MM_END_TEST

MM_TEST(test_unscale)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 20; round++) {
        size_t n = (size_t)mm_rng_range(&r, 1, 5000);
        float *g = malloc(n * sizeof *g), *want = malloc(n * sizeof *want);
        ck_assert(g && want);
        float scale = ldexpf(1.0f, (int)mm_rng_range(&r, 0, 24));
        for (size_t i = 0; i < n; i++) {
            g[i] = (float)((mm_rng_unit(&r) - 0.5) * ldexp(1.0, (int)mm_rng_range(&r, 0, 40)));
            want[i] = g[i] * (1.0f / scale);
        }
        int found = round & 1, poison = round % 4 == 3;
        size_t at = (size_t)mm_rng_range(&r, 0, n - 1);
        if (poison)
            g[at] = round % 8 == 3 ? NAN : -INFINITY, want[at] = g[at];
        MM_ASSERT_OK(mp_unscale(g, n, scale, &found));
        ck_assert_msg(found == ((round & 1) || poison),
                      "found_inf = %d: it must become 1 when a gradient is inf/NaN and otherwise "
                      "keep its value (%d)", found, round & 1);
        for (size_t i = 0; i < n; i++)
            MM_CHECK(i == at && poison ? !isfinite(g[i]) : g[i] == want[i],
                     "g[%zu] = %g after unscaling by %g, want %g", i, (double)g[i],
                     (double)scale, (double)want[i]);
        free(g), free(want);
    }
}
MM_END_TEST

MM_TEST(test_unscale_bad_args)
{
    float g[2] = { 2.0f, 4.0f };
    int found = 0;
    MM_ASSERT_ERR(mp_unscale(g, 2, 2.0f, NULL), -EINVAL);
    MM_ASSERT_ERR(mp_unscale(NULL, 2, 2.0f, &found), -EINVAL);
    MM_ASSERT_ERR(mp_unscale(g, 2, 0.0f, &found), -EINVAL);
    MM_ASSERT_ERR(mp_unscale(g, 2, -4.0f, &found), -EINVAL);
    MM_ASSERT_ERR(mp_unscale(g, 2, INFINITY, &found), -EINVAL);
    MM_ASSERT_ERR(mp_unscale(g, 2, NAN, &found), -EINVAL);
    ck_assert_msg(g[0] == 2.0f && g[1] == 4.0f && found == 0, "a rejected call changes nothing");
    MM_ASSERT_OK(mp_unscale(NULL, 0, 2.0f, &found));
    MM_ASSERT_OK(mp_unscale(g, 2, 2.0f, &found));
    ck_assert_msg(g[0] == 1.0f && g[1] == 2.0f, "2 and 4 unscaled by 2 are 1 and 2");
}
MM_END_TEST

/* Why loss scaling exists: small gradients vanish in fp16 unless scaled first. */
MM_TEST(test_scaling_rescues_small_grads)
{
    mm_rng_t r = MM_RNG();
    enum { N = 2000 };
    float g[N], back[N];
    int lost = 0, found = 0;
    for (int i = 0; i < N; i++) {
        g[i] = ldexpf((float)(1.0 + mm_rng_unit(&r)), -(int)mm_rng_range(&r, 20, 30));
        lost += mp_f32_to_f16(g[i]) == 0;
        back[i] = mp_f16_to_f32(mp_f32_to_f16(g[i] * 65536.0f));
    }
    ck_assert_msg(lost > N / 4, "gradients of 2^-30..2^-20 should often underflow in fp16 "
                  "(below 2^-25), yet only %d of %d became 0", lost, N);
    MM_ASSERT_OK(mp_unscale(back, N, 65536.0f, &found));
    for (int i = 0; i < N; i++)
        ck_assert_msg(fabsf(back[i] - g[i]) <= ldexpf(fabsf(g[i]), -11),
                      "g = %g scaled by 2^16, stored in fp16 and unscaled gives %g: more than "
                      "half an fp16 ulp off", (double)g[i], (double)back[i]);
    ck_assert_msg(found == 0, "no gradient overflowed here");
}
MM_END_TEST
