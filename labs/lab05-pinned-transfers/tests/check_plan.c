/* Lab 05 tests, part B: the chunk planner and the request chooser. A plan's chunks are memory
 * of your process: they are read with mm_peek (support.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "plan.h"
#include "support.h"

#define MIB ((size_t)1 << 20)

static pt_plan_req_t good_req(void)
{
    return (pt_plan_req_t){ .total = 10 * MIB, .elem = 4, .align = 4096, .min_chunk = 4096,
                            .max_chunk = 4 * MIB, .streams = 2, .slots = 3, .budget = 64 * MIB };
}

/* A random request that pt_plan_make must accept (at most ~4096 chunks). */
static pt_plan_req_t random_req(mm_rng_t *r)
{
    pt_plan_req_t q;
    q.elem = (size_t)1 << mm_rng_range(r, 0, 6);
    q.align = q.elem << mm_rng_range(r, 0, 6);
    q.total = q.elem * mm_rng_range(r, 1, 1 << 16);
    q.streams = (unsigned)mm_rng_range(r, 1, PT_MAX_STREAMS);
    q.slots = (unsigned)mm_rng_range(r, 1, PT_MAX_SLOTS);
    q.max_chunk = q.align * mm_rng_range(r, 1, 64) + mm_rng_range(r, 0, q.align - 1);
    q.min_chunk = mm_rng_range(r, 1, q.align);
    q.budget = q.slots * (q.max_chunk + mm_rng_range(r, 0, 3 * q.max_chunk));
    if (q.total / q.align > 4096) /* keep the plan small */
        q.total = q.elem * (q.total / q.elem % (4096 * (q.align / q.elem)) + 1);
    return q;
}

/* The chunk length the rule gives. */
static size_t rule_chunk(const pt_plan_req_t *q)
{
    size_t c = q->max_chunk < q->budget / q->slots ? q->max_chunk : q->budget / q->slots;
    return c - c % q->align;
}

/* Chunk i of plan p, read from your process. */
static pt_chunk_t chunk_at(const pt_plan_t *p, size_t i)
{
    pt_chunk_t c;
    ck_assert_msg(i < p->n, "the plan has %zu chunks: there is no chunk %zu", p->n, i);
    ck_assert_msg(mm_peek(&p->chunks[i], &c, sizeof c) == 0, "chunk %zu at %p cannot be read: "
                  "not memory of your process", i, (void *)&p->chunks[i]);
    return c;
}

/* Every byte exactly once, in order; the last chunk ends at total. */
static void check_coverage(const pt_plan_req_t *q, const pt_plan_t *p)
{
    size_t next = 0;
    ck_assert_msg(p->n >= 1 && p->chunks != NULL, "a plan needs at least one chunk");
    pt_chunk_t *ch = peek_chunks(p);
    for (size_t i = 0; i < p->n; i++) {
        const pt_chunk_t *c = &ch[i];
        MM_CHECK(c->offset == next, "chunk %zu starts at %zu, expected %zu (gap or overlap)",
                 i, c->offset, next);
        MM_CHECK(c->len > 0, "chunk %zu is empty", i);
        next += c->len;
    }
    free(ch);
    ck_assert_msg(next == q->total, "the chunks cover %zu bytes of %zu", next, q->total);
    ck_assert_msg(p->total == q->total && p->elem == q->elem, "total/elem not copied into the plan");
}

static void check_sizes(const pt_plan_req_t *q, const pt_plan_t *p)
{
    size_t c = rule_chunk(q);
    ck_assert_msg(p->chunk == c, "chunk length %zu; the rule gives %zu", p->chunk, c);
    ck_assert_msg(p->n == (q->total + c - 1) / c, "%zu chunks, expected %zu", p->n,
                  (q->total + c - 1) / c);
    size_t longest = c < q->total ? c : q->total;
    ck_assert_msg(p->slot_bytes == longest, "slot_bytes %zu, expected %zu", p->slot_bytes, longest);
    pt_chunk_t *ch = peek_chunks(p);
    for (size_t i = 0; i < p->n; i++) {
        const pt_chunk_t *k = &ch[i];
        MM_CHECK(k->offset % q->align == 0, "chunk %zu at %zu is not %zu-aligned", i,
                 k->offset, q->align);
        MM_CHECK(k->len % q->elem == 0, "chunk %zu splits an element", i);
        MM_CHECK(i + 1 == p->n || (k->len == c && k->len >= q->min_chunk),
                 "chunk %zu of %zu has length %zu: only the last may differ from %zu", i,
                 p->n, k->len, c);
    }
    free(ch);
}

static void check_assignment(const pt_plan_req_t *q, const pt_plan_t *p)
{
    ck_assert_msg(p->streams == q->streams && p->slots == q->slots, "streams/slots not copied");
    pt_chunk_t *ch = peek_chunks(p);
    for (size_t i = 0; i < p->n; i++) {
        const pt_chunk_t *c = &ch[i];
        long want = i >= q->slots ? (long)(i - q->slots) : -1;
        MM_CHECK(c->stream == i % q->streams && c->slot == i % q->slots,
                 "chunk %zu: stream %u slot %u, expected %zu and %zu (round robin)", i,
                 c->stream, c->slot, i % q->streams, i % q->slots);
        MM_CHECK(c->wait == want, "chunk %zu waits for %ld; the previous user of slot %u is "
                 "%ld", i, c->wait, c->slot, want);
    }
    free(ch);
}

MM_TEST(test_plan_worked_examples)
{
    pt_plan_req_t q = good_req();
    pt_plan_t p;
    MM_ASSERT_OK(pt_plan_make(&q, &p));
    ck_assert_msg(p.n == 3 && p.chunk == 4 * MIB && chunk_at(&p, 2).len == 2 * MIB,
                  "10 MiB in chunks of at most 4 MiB: 4 + 4 + 2 MiB");
    pt_chunk_t c = chunk_at(&p, 2);
    ck_assert_msg(c.stream == 0 && c.slot == 2 && c.wait == -1,
                  "3 slots, 2 streams: chunk 2 is on stream 0, slot 2, and waits for nothing");
    pt_plan_free(&p);
    q.slots = 2, q.budget = 5 * MIB; /* budget / slots = 2.5 MiB < max_chunk */
    MM_ASSERT_OK(pt_plan_make(&q, &p));
    ck_assert_msg(p.n == 4 && p.chunk == 2621440 && p.slot_bytes == 2621440,
                  "a 5 MiB budget over 2 slots: chunks of 2.5 MiB, 4 of them");
    ck_assert_msg(chunk_at(&p, 2).wait == 0 && chunk_at(&p, 3).wait == 1,
                  "2 slots: chunk 2 waits for chunk 0, chunk 3 for chunk 1");
    pt_plan_free(&p);
    q = (pt_plan_req_t){ 1000000, 8, 64, 64, 300000, 3, 2, MIB };
    MM_ASSERT_OK(pt_plan_make(&q, &p));
    ck_assert_msg(p.chunk == 299968 && p.n == 4 && chunk_at(&p, 3).len == 100096,
                  "max_chunk 300000 aligned down to 64 is 299968: 3 full chunks + 100096 bytes");
    c = chunk_at(&p, 3);
    ck_assert_msg(c.stream == 0 && c.slot == 1 && c.wait == 1,
                  "chunk 3 of 3 streams / 2 slots: stream 0, slot 1, waits for chunk 1");
    pt_plan_free(&p);
}
MM_END_TEST

MM_TEST(test_plan_covers_exactly_once)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 300; round++) {
        pt_plan_req_t q = random_req(&r);
        pt_plan_t p;
        MM_ASSERT_OK(pt_plan_make(&q, &p));
        check_coverage(&q, &p);
        pt_plan_free(&p);
    }
}
MM_END_TEST

MM_TEST(test_plan_aligned_chunks)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 300; round++) {
        pt_plan_req_t q = random_req(&r);
        pt_plan_t p;
        MM_ASSERT_OK(pt_plan_make(&q, &p));
        check_sizes(&q, &p);
        pt_plan_free(&p);
    }
}
MM_END_TEST

MM_TEST(test_plan_respects_budget)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 300; round++) {
        pt_plan_req_t q = random_req(&r);
        q.budget = mm_rng_range(&r, q.slots * q.align, q.slots * q.max_chunk + q.align);
        q.min_chunk = 1;
        pt_plan_t p;
        MM_ASSERT_OK(pt_plan_make(&q, &p));
        ck_assert_msg(q.slots * p.slot_bytes <= q.budget,
                      "%u slots of %zu bytes exceed the budget of %zu", q.slots, p.slot_bytes,
                      q.budget);
        ck_assert_msg(p.chunk == rule_chunk(&q), "chunk %zu: the largest allowed is %zu", p.chunk,
                      rule_chunk(&q));
        pt_plan_free(&p);
    }
}
MM_END_TEST

MM_TEST(test_plan_slot_waits)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 300; round++) {
        pt_plan_req_t q = random_req(&r);
        pt_plan_t p;
        MM_ASSERT_OK(pt_plan_make(&q, &p));
        check_assignment(&q, &p);
        pt_plan_free(&p);
    }
}
MM_END_TEST

MM_TEST(test_plan_single_chunk)
{
    pt_plan_req_t q = good_req();
    q.total = 12344;
    pt_plan_t p;
    MM_ASSERT_OK(pt_plan_make(&q, &p));
    ck_assert_msg(p.n == 1 && chunk_at(&p, 0).len == 12344 && chunk_at(&p, 0).wait == -1,
                  "a transfer shorter than a chunk is one chunk, shorter than min_chunk is fine");
    ck_assert_msg(p.slot_bytes == 12344, "slot_bytes is the longest chunk: %zu", p.slot_bytes);
    pt_plan_free(&p);
}
MM_END_TEST

MM_TEST(test_plan_no_space)
{
    pt_plan_req_t q = good_req();
    pt_plan_t p, before;
    memset(&p, 0xab, sizeof p);
    before = p;
    q.budget = 3 * 4096 - 1; /* 3 slots cannot get a 4096-byte chunk each */
    MM_ASSERT_ERR(pt_plan_make(&q, &p), -ENOSPC);
    q = good_req();
    q.min_chunk = 3 * MIB, q.budget = 6 * MIB; /* 2 MiB per slot < min_chunk */
    MM_ASSERT_ERR(pt_plan_make(&q, &p), -ENOSPC);
    q = good_req();
    q.max_chunk = 4095, q.min_chunk = 1; /* aligned down to 4096: 0 */
    MM_ASSERT_ERR(pt_plan_make(&q, &p), -ENOSPC);
    ck_assert_msg(memcmp(&p, &before, sizeof p) == 0, "a failed pt_plan_make must leave *out alone");
}
MM_END_TEST

MM_TEST(test_plan_too_many_chunks)
{
    pt_plan_req_t q = { (size_t)1 << 40, 1, 4096, 1, 4096, 2, 2, 1 << 20 };
    pt_plan_t p;
    MM_ASSERT_ERR(pt_plan_make(&q, &p), -E2BIG); /* 2^28 chunks */
    q.total = (size_t)PT_MAX_CHUNKS * 4096;      /* exactly the limit is fine */
    MM_ASSERT_OK(pt_plan_make(&q, &p));
    ck_assert_msg(p.n == PT_MAX_CHUNKS, "%zu chunks, expected PT_MAX_CHUNKS", p.n);
    pt_plan_free(&p);
}
MM_END_TEST

MM_TEST(test_plan_bad_args)
{
    pt_plan_req_t bad[14];
    for (int i = 0; i < 14; i++)
        bad[i] = good_req();
    bad[0].total = 0, bad[1].elem = 0, bad[2].elem = 12, bad[3].elem = 8192;
    bad[4].total = 10 * MIB + 2;                   /* not a multiple of elem */
    bad[5].align = 0, bad[6].align = 3 * 4096, bad[7].align = 2; /* 2 < elem */
    bad[8].min_chunk = 0, bad[9].max_chunk = 4095; /* max < min */
    bad[10].streams = 0, bad[11].streams = PT_MAX_STREAMS + 1;
    bad[12].slots = PT_MAX_SLOTS + 1, bad[13].budget = 0;
    pt_plan_t p;
    memset(&p, 0xab, sizeof p);
    pt_plan_t before = p;
    pt_plan_req_t q = good_req();
    MM_ASSERT_ERR(pt_plan_make(NULL, &p), -EINVAL);
    MM_ASSERT_ERR(pt_plan_make(&q, NULL), -EINVAL);
    for (int i = 0; i < 14; i++)
        ck_assert_msg(pt_plan_make(&bad[i], &p) == -EINVAL, "bad request #%d must give -EINVAL", i);
    q.slots = 0;
    MM_ASSERT_ERR(pt_plan_make(&q, &p), -EINVAL);
    ck_assert_msg(memcmp(&p, &before, sizeof p) == 0, "a failed pt_plan_make must leave *out alone");
}
MM_END_TEST

MM_TEST(test_plan_free)
{
    pt_plan_req_t q = good_req();
    pt_plan_t p;
    MM_ASSERT_OK(pt_plan_make(&q, &p));
    pt_plan_free(&p);
    ck_assert_msg(p.chunks == NULL && p.n == 0, "pt_plan_free must zero the plan");
    pt_plan_free(&p); /* twice: harmless */
    pt_plan_free(NULL);
}
MM_END_TEST

MM_TEST(test_choose_makes_valid_plans)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 200; round++) {
        size_t elem = (size_t)1 << mm_rng_range(&r, 0, 12);
        size_t total = elem * mm_rng_range(&r, 1, ((size_t)1 << 30) / elem);
        size_t budget = mm_rng_range(&r, PT_MIN_BUDGET, (size_t)1 << 30);
        pt_plan_req_t q;
        pt_plan_t p;
        MM_ASSERT_OK(pt_plan_choose(total, elem, budget, &q));
        ck_assert_msg(q.total == total && q.elem == elem && q.budget <= budget,
                      "the request must keep total and elem and stay within the budget");
        int rc = pt_plan_make(&q, &p);
        ck_assert_msg(rc == 0, "pt_plan_make refuses your request for %zu bytes of %zu-byte "
                      "elements, budget %zu: %s", total, elem, budget, strerror(-rc));
        check_coverage(&q, &p);
        check_sizes(&q, &p);
        pt_plan_free(&p);
    }
}
MM_END_TEST

MM_TEST(test_choose_bad_args)
{
    pt_plan_req_t q;
    memset(&q, 0xab, sizeof q);
    pt_plan_req_t before = q;
    MM_ASSERT_ERR(pt_plan_choose(4096, 4, MIB, NULL), -EINVAL);
    MM_ASSERT_ERR(pt_plan_choose(0, 4, MIB, &q), -EINVAL);
    MM_ASSERT_ERR(pt_plan_choose(4096, 3, MIB, &q), -EINVAL);
    MM_ASSERT_ERR(pt_plan_choose(8192, 8192, MIB, &q), -EINVAL);
    MM_ASSERT_ERR(pt_plan_choose(4098, 4, MIB, &q), -EINVAL);
    MM_ASSERT_ERR(pt_plan_choose(4096, 4, PT_MIN_BUDGET - 1, &q), -ENOSPC);
    ck_assert_msg(memcmp(&q, &before, sizeof q) == 0, "a failed pt_plan_choose must leave *req alone");
}
MM_END_TEST
