/* Lab 05 tests, part C: the timeline simulator and the overlap efficiency. Costs are whole
 * numbers, so every time the model gives is exact in floating point. The plans are the tests'
 * own; each call gets a copy of their chunks in shared memory (sim_run), so that what the checks
 * read is what was asked, whatever your process does with its copy. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "plan.h"
#include "sim.h"
#include "support.h"

/* A round-robin plan of n chunks (the lengths do not matter to the simulator). */
static pt_plan_t rr_plan(size_t n, unsigned streams, unsigned slots)
{
    pt_plan_t p = { .total = n, .elem = 1, .chunk = 1, .slot_bytes = 1, .streams = streams,
                    .slots = slots, .n = n, .chunks = calloc(n, sizeof(pt_chunk_t)) };
    ck_assert_ptr_nonnull(p.chunks);
    for (size_t i = 0; i < n; i++)
        p.chunks[i] = (pt_chunk_t){ i, 1, (unsigned)(i % streams), (unsigned)(i % slots),
                                    i >= slots ? (long)(i - slots) : -1 };
    return p;
}

/* pt_sim_run on a copy of p whose chunks are in shared memory, where your process reads them
 * (costs and spans cross as copies: calls.toml). */
static int sim_run(const pt_plan_t *p, const pt_cost_t *c, pt_span_t *sp, pt_sim_t *out)
{
    if (!p)
        return pt_sim_run(NULL, c, sp, out);
    pt_plan_t q = *p;
    q.chunks = share(p->chunks, p->n * sizeof *p->chunks);
    return pt_sim_run(&q, c, sp, out);
}

static pt_cost_t *costs(size_t n, double h, double k, double d)
{
    pt_cost_t *c = calloc(n, sizeof *c);
    ck_assert_ptr_nonnull(c);
    for (size_t i = 0; i < n; i++)
        c[i] = (pt_cost_t){ { h, k, d } };
    return c;
}

static pt_cost_t *random_costs(mm_rng_t *r, size_t n)
{
    pt_cost_t *c = costs(n, 0, 0, 0);
    for (size_t i = 0; i < n; i++)
        for (int s = 0; s < PT_STAGES; s++)
            c[i].t[s] = (double)mm_rng_range(r, 0, 1000);
    return c;
}

MM_TEST(test_sim_one_stream_is_serial)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 20; round++) {
        size_t n = mm_rng_range(&r, 1, 100);
        unsigned slots = (unsigned)mm_rng_range(&r, 1, PT_MAX_SLOTS);
        pt_plan_t p = rr_plan(n, 1, slots);
        pt_cost_t *c = random_costs(&r, n);
        pt_sim_t s;
        MM_ASSERT_OK(sim_run(&p, c, NULL, &s));
        ck_assert_msg(s.makespan == s.serial, "one stream, %u slots, %zu chunks: makespan %g, but "
                      "stream order makes it serial: %g", slots, n, s.makespan, s.serial);
        free(c), free(p.chunks);
    }
}
MM_END_TEST

MM_TEST(test_sim_hand_timeline)
{
    /* 2 streams, 2 slots, 4 chunks of 1 + 1 + 1: chunk 2 waits for chunk 0's copy out. */
    static const double h[4] = { 0, 1, 3, 4 };
    pt_plan_t p = rr_plan(4, 2, 2);
    pt_cost_t *c = costs(4, 1, 1, 1);
    pt_span_t sp[4];
    pt_sim_t s;
    MM_ASSERT_OK(sim_run(&p, c, sp, &s));
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < PT_STAGES; k++)
            ck_assert_msg(sp[i].start[k] == h[i] + k && sp[i].end[k] == h[i] + k + 1,
                          "chunk %d stage %d runs [%g, %g], expected [%g, %g]", i, k,
                          sp[i].start[k], sp[i].end[k], h[i] + k, h[i] + k + 1);
    ck_assert_msg(s.makespan == 7 && s.serial == 12 && s.bound == 4,
                  "makespan %g serial %g bound %g, expected 7, 12, 4", s.makespan, s.serial,
                  s.bound);
    free(c), free(p.chunks);
}
MM_END_TEST

MM_TEST(test_sim_slot_wait_across_streams)
{
    /* 3 streams, 2 slots: chunk 2 is alone on stream 2 but must wait for chunk 0 (slot 0). */
    pt_plan_t p = rr_plan(3, 3, 2);
    pt_cost_t *c = costs(3, 1, 1, 1);
    c[0].t[PT_KERNEL] = 4;
    pt_span_t sp[3];
    pt_sim_t s;
    MM_ASSERT_OK(sim_run(&p, c, sp, &s));
    ck_assert_msg(sp[1].start[PT_H2D] == 1 && sp[1].start[PT_KERNEL] == 5,
                  "chunk 1 copies in at 1 but its kernel waits for the compute engine until 5; "
                  "got %g and %g", sp[1].start[PT_H2D], sp[1].start[PT_KERNEL]);
    ck_assert_msg(sp[2].start[PT_H2D] == 6, "chunk 2 reuses chunk 0's slot: its copy in must "
                  "wait for chunk 0's copy out to end at 6, not start at %g", sp[2].start[PT_H2D]);
    ck_assert_msg(s.makespan == 9, "makespan %g, expected 9", s.makespan);
    free(c), free(p.chunks);
}
MM_END_TEST

MM_TEST(test_sim_three_slots_pipeline)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 20; round++) {
        size_t n = mm_rng_range(&r, 3, 60);
        double a = (double)mm_rng_range(&r, 1, 100), eff = 0;
        pt_plan_t p = rr_plan(n, 3, 3);
        pt_cost_t *c = costs(n, a, a, a);
        pt_sim_t s;
        MM_ASSERT_OK(sim_run(&p, c, NULL, &s));
        ck_assert_msg(s.makespan == (double)(n + 2) * a, "3 streams, 3 slots, %zu equal chunks "
                      "of %g: every engine busy from fill to drain: %g, got %g", n, a,
                      (double)(n + 2) * a, s.makespan);
        MM_ASSERT_OK(pt_overlap_efficiency(s.makespan, s.serial, s.bound, &eff));
        ck_assert_msg(fabs(eff - (1 - 1.0 / (double)n)) < 1e-12, "efficiency %g, expected 1 - 1/n",
                      eff);
        free(c), free(p.chunks);
    }
}
MM_END_TEST

/* Chunk i's stage k starts exactly when the model lets it: engine, stream, stage, slot. */
static void check_model(const pt_plan_t *p, const pt_cost_t *c, const pt_span_t *sp)
{
    double engine[PT_STAGES] = { 0 }, stream[PT_MAX_STREAMS] = { 0 };
    for (size_t i = 0; i < p->n; i++) {
        const pt_chunk_t *k = &p->chunks[i];
        double ready = stream[k->stream];
        if (k->wait >= 0)
            ready = fmax(ready, sp[k->wait].end[PT_D2H]);
        for (int s = 0; s < PT_STAGES; s++) {
            double want = fmax(ready, engine[s]);
            MM_CHECK(sp[i].start[s] == want && sp[i].end[s] == want + c[i].t[s],
                     "chunk %zu stage %d runs [%g, %g]; the model says [%g, %g]", i, s,
                     sp[i].start[s], sp[i].end[s], want, want + c[i].t[s]);
            ready = engine[s] = sp[i].end[s];
        }
        stream[k->stream] = ready;
    }
}

MM_TEST(test_sim_model_random)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 100; round++) {
        size_t n = mm_rng_range(&r, 1, 200);
        pt_plan_t p = rr_plan(n, (unsigned)mm_rng_range(&r, 1, PT_MAX_STREAMS),
                              (unsigned)mm_rng_range(&r, 1, PT_MAX_SLOTS));
        pt_cost_t *c = random_costs(&r, n);
        pt_span_t *sp = calloc(n, sizeof *sp);
        pt_sim_t s;
        MM_ASSERT_OK(sim_run(&p, c, sp, &s));
        check_model(&p, c, sp);
        ck_assert_msg(s.bound <= s.makespan && s.makespan <= s.serial,
                      "makespan %g outside [bound %g, serial %g]", s.makespan, s.bound, s.serial);
        free(sp), free(c), free(p.chunks);
    }
}
MM_END_TEST

MM_TEST(test_sim_totals)
{
    mm_rng_t r = MM_RNG();
    size_t n = 77;
    pt_plan_t p = rr_plan(n, 2, 3);
    pt_cost_t *c = random_costs(&r, n);
    double busy[PT_STAGES] = { 0 };
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < PT_STAGES; k++)
            busy[k] += c[i].t[k];
    pt_sim_t s;
    MM_ASSERT_OK(sim_run(&p, c, NULL, &s));
    for (int k = 0; k < PT_STAGES; k++)
        ck_assert_msg(s.busy[k] == busy[k], "engine %d busy %g, expected %g", k, s.busy[k], busy[k]);
    ck_assert_msg(s.serial == busy[0] + busy[1] + busy[2], "serial is the sum of all three");
    ck_assert_msg(s.bound == fmax(busy[0], fmax(busy[1], busy[2])), "bound is the busiest engine");
    free(c), free(p.chunks);
}
MM_END_TEST

MM_TEST(test_sim_spans_optional)
{
    mm_rng_t r = MM_RNG();
    size_t n = 50;
    pt_plan_t p = rr_plan(n, 3, 4);
    pt_cost_t *c = random_costs(&r, n);
    pt_span_t sp[50];
    pt_sim_t a, b;
    MM_ASSERT_OK(sim_run(&p, c, sp, &a));
    MM_ASSERT_OK(sim_run(&p, c, NULL, &b));
    ck_assert_msg(memcmp(&a, &b, sizeof a) == 0, "spans == NULL must not change the result");
    ck_assert_msg(a.makespan == sp[n - 1].end[PT_D2H], "the last chunk ends last here");
    free(c), free(p.chunks);
}
MM_END_TEST

MM_TEST(test_sim_bad_args)
{
    pt_plan_t p = rr_plan(4, 2, 2);
    pt_cost_t *c = costs(4, 1, 1, 1);
    pt_sim_t s, before;
    memset(&s, 0xab, sizeof s);
    before = s;
    MM_ASSERT_ERR(sim_run(NULL, c, NULL, &s), -EINVAL);
    MM_ASSERT_ERR(sim_run(&p, NULL, NULL, &s), -EINVAL);
    MM_ASSERT_ERR(sim_run(&p, c, NULL, NULL), -EINVAL);
    p.chunks[1].stream = 2, p.chunks[1].slot = 1;
    MM_ASSERT_ERR(sim_run(&p, c, NULL, &s), -EINVAL);
    p.chunks[1].stream = 1, p.chunks[3].slot = 2;
    MM_ASSERT_ERR(sim_run(&p, c, NULL, &s), -EINVAL);
    p.chunks[3].slot = 1, p.chunks[2].wait = 2; /* a chunk cannot wait for itself */
    MM_ASSERT_ERR(sim_run(&p, c, NULL, &s), -EINVAL);
    p.chunks[2].wait = -2;
    MM_ASSERT_ERR(sim_run(&p, c, NULL, &s), -EINVAL);
    p.chunks[2].wait = 0, c[3].t[PT_D2H] = -1;
    MM_ASSERT_ERR(sim_run(&p, c, NULL, &s), -EINVAL);
    c[3].t[PT_D2H] = NAN;
    MM_ASSERT_ERR(sim_run(&p, c, NULL, &s), -EINVAL);
    c[3].t[PT_D2H] = 1, p.streams = PT_MAX_STREAMS + 1;
    MM_ASSERT_ERR(sim_run(&p, c, NULL, &s), -EINVAL);
    p.streams = 2, p.n = 0;
    MM_ASSERT_ERR(sim_run(&p, c, NULL, &s), -EINVAL);
    ck_assert_msg(memcmp(&s, &before, sizeof s) == 0, "a failed pt_sim_run must leave *out alone");
    free(c), free(p.chunks);
}
MM_END_TEST

MM_TEST(test_overlap_efficiency_formula)
{
    double e = -1;
    MM_ASSERT_OK(pt_overlap_efficiency(12, 12, 4, &e));
    ck_assert_msg(e == 0, "a pipeline as slow as its stages back to back: 0, got %g", e);
    MM_ASSERT_OK(pt_overlap_efficiency(4, 12, 4, &e));
    ck_assert_msg(e == 1, "a pipeline as fast as its busiest engine: 1, got %g", e);
    MM_ASSERT_OK(pt_overlap_efficiency(7, 12, 4, &e));
    ck_assert_msg(e == 0.625, "the hand timeline (7 of serial 12, bound 4): 0.625, got %g", e);
    MM_ASSERT_OK(pt_overlap_efficiency(13, 12, 4, &e));
    ck_assert_msg(e == -0.125, "slower than serial gives a negative value (no clamping): %g", e);
}
MM_END_TEST

MM_TEST(test_overlap_efficiency_bad_args)
{
    double e = -7;
    MM_ASSERT_ERR(pt_overlap_efficiency(7, 12, 4, NULL), -EINVAL);
    MM_ASSERT_ERR(pt_overlap_efficiency(0, 12, 4, &e), -EINVAL);
    MM_ASSERT_ERR(pt_overlap_efficiency(7, -12, 4, &e), -EINVAL);
    MM_ASSERT_ERR(pt_overlap_efficiency(7, 12, 0, &e), -EINVAL);
    MM_ASSERT_ERR(pt_overlap_efficiency(NAN, 12, 4, &e), -EINVAL);
    MM_ASSERT_ERR(pt_overlap_efficiency(7, INFINITY, 4, &e), -EINVAL);
    MM_ASSERT_ERR(pt_overlap_efficiency(7, 4, 12, &e), -EINVAL);
    MM_ASSERT_ERR(pt_overlap_efficiency(7, 4, 4, &e), -EDOM);
    ck_assert_msg(e == -7, "a failed pt_overlap_efficiency must leave *eff alone");
}
MM_END_TEST
