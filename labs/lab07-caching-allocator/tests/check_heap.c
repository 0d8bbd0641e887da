/* Lab 07 tests, part D: ca_check, the heap checker. It must say 0 after every operation of long
 * random sequences, and name what is wrong when a test corrupts a block header on purpose
 * (through ca_test_block), the first broken rule of the contract's list. The headers are in your
 * process: the harness reads and writes them with mm_peek / mm_poke. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "allocator.h"
#include "mm_call.h"
#include "mm_check.h"
#include "support.h"

/* A copy of the block header at h (a pointer into your process). Asserts it is readable. */
static ca_block_t peek_block(const ca_block_t *h)
{
    ca_block_t b;
    ck_assert_msg(h != NULL, "ca_test_block returned NULL where a block starts");
    ck_assert_msg(mm_peek(h, &b, sizeof b) == 0, "ca_test_block returned %p: not readable "
                  "memory of your process", (const void *)h);
    return b;
}

/* Writes n bytes at `at` in your process (a header field). Asserts it is writable. */
static void poke(void *at, const void *v, size_t n)
{
    ck_assert_msg(mm_poke(at, v, n) == 0, "cannot write a block header at %p", at);
}

/* Sets header h's `field`, in your process. */
#define SET_FIELD(h, field, value)                                                    \
    do {                                                                              \
        __typeof__(((ca_block_t *)0)->field) v_ = (value);                            \
        poke((char *)(h) + offsetof(ca_block_t, field), &v_, sizeof v_);              \
    } while (0)

MM_TEST(test_check_clean_states)
{
    MM_ASSERT_ERR(ca_check(NULL), -EINVAL);
    ck_assert_msg(ca_test_block(NULL, NULL) == NULL, "ca_test_block(NULL, ...) is NULL");
    td_t t;
    td_open(&t, 64 * MIB);
    MM_ASSERT_OK(ca_check(t.a));
    unsigned char *p = td_alloc(&t, 1000, 0), *q = td_alloc(&t, 3000000, 1);
    MM_ASSERT_OK(ca_check(t.a));
    ca_block_t b = peek_block(ca_test_block(t.a, p));
    ck_assert_msg(b.addr == (uintptr_t)p && b.allocated, "ca_test_block finds a live block");
    ck_assert_msg(ca_test_block(t.a, p + 512) == NULL, "no block starts at p + 512 (p's block "
                  "is 1024 bytes): ca_test_block returns NULL");
    ck_assert_msg(!peek_block(ca_test_block(t.a, p + 1024)).allocated,
                  "ca_test_block finds the free rest of p's segment in the free set");
    MM_ASSERT_OK(ca_record_stream(t.a, q, 2));
    ca_simdev_launch(t.dev, 2);
    td_free(&t, q);
    MM_ASSERT_OK(ca_check(t.a));
    ck_assert_msg(peek_block(ca_test_block(t.a, q)).pending_events == 1,
                  "ca_test_block finds a block waiting for an event");
    td_free(&t, p);
    MM_ASSERT_OK(ca_check(t.a));
    MM_ASSERT_OK(ca_empty_cache(t.a));
    MM_ASSERT_OK(ca_check(t.a));
    td_close(&t);
}
MM_END_TEST

/* ---- random sequences, ca_check after every operation ---- */

enum { RS_STREAMS = 4, RS_LIVE = 64, RS_OPS = 3000 };

typedef struct {
    td_t t;
    mm_rng_t r;
    void *live[RS_LIVE];
    size_t nlive;
    unsigned long op;
} rs_t;

static void rs_alloc(rs_t *m)
{
    size_t size = (size_t)mm_rng_range(&m->r, 1, (uint64_t)1 << mm_rng_range(&m->r, 1, 24));
    if (mm_rng_range(&m->r, 0, 99) == 0)
        size = 300 * MIB; /* more than the device has: fails, after a release and a retry */
    ca_stream_t s = (ca_stream_t)mm_rng_range(&m->r, 0, RS_STREAMS - 2);
    void *p = NULL;
    int rc = ca_alloc(m->t.a, size, s, &p);
    MM_CHECK(rc == 0 || rc == -ENOMEM, "op %lu: ca_alloc(%zu) returned %d", m->op, size, rc);
    if (rc == 0)
        m->live[m->nlive++] = p;
}

static void rs_free(rs_t *m)
{
    size_t i = (size_t)mm_rng_range(&m->r, 0, m->nlive - 1);
    if (mm_rng_range(&m->r, 0, 2) == 0) { /* used on another stream too, still running */
        ca_stream_t u = (ca_stream_t)mm_rng_range(&m->r, 0, RS_STREAMS - 1);
        MM_CHECK(ca_record_stream(m->t.a, m->live[i], u) == 0, "op %lu: record_stream", m->op);
        ca_simdev_launch(m->t.dev, u);
    }
    MM_CHECK(ca_free(m->t.a, m->live[i]) == 0, "op %lu: ca_free failed", m->op);
    m->live[i] = m->live[--m->nlive];
}

static void rs_other(rs_t *m)
{
    unsigned k = (unsigned)mm_rng_range(&m->r, 0, 9);
    if (k < 6)
        ca_simdev_complete(m->t.dev, (ca_stream_t)mm_rng_range(&m->r, 0, RS_STREAMS - 1));
    else if (k < 9)
        MM_CHECK(ca_process_events(m->t.a) == 0, "op %lu: ca_process_events failed", m->op);
    else
        MM_CHECK(ca_empty_cache(m->t.a) == 0, "op %lu: ca_empty_cache failed", m->op);
}

MM_TEST(test_check_random_sequences)
{
    rs_t *m = calloc(1, sizeof *m);
    ck_assert_ptr_nonnull(m);
    m->r = MM_RNG();
    td_open(&m->t, 128 * MIB);
    for (m->op = 0; m->op < RS_OPS + RS_LIVE; m->op++) {
        unsigned k = (unsigned)mm_rng_range(&m->r, 0, 99);
        if (m->op >= RS_OPS && m->nlive == 0)
            break;
        if (m->op < RS_OPS && (m->nlive == 0 || (k < 45 && m->nlive < RS_LIVE)))
            rs_alloc(m);
        else if (m->op >= RS_OPS || k < 85)
            rs_free(m);
        else
            rs_other(m);
        int rc = ca_check(m->t.a);
        MM_CHECK(rc == 0, "op %lu: ca_check returned %d (%s) on a correct sequence (replay "
                 "with MLMEM_SEED=%llu)", m->op, rc, strerror(-rc),
                 (unsigned long long)mm_test_seed());
    }
    MM_ASSERT_OK(ca_empty_cache(m->t.a));
    MM_ASSERT_OK(ca_check(m->t.a));
    td_close(&m->t);
    free(m);
}
MM_END_TEST

/* ---- deliberate corruption ---- */

/* A scene with every kind of place. Small segment: p live | x pending (stream 2 still runs) |
 * rest free. Large segment: q live | rest free. Two whole free 20 MiB segments, streams 1, 2.
 * The pointers are the headers' addresses in your process. */
typedef struct {
    td_t t;
    ca_block_t *p, *x, *rest, *q, *qrest, *w1, *w2;
} scene_t;

static ca_block_t *header(scene_t *s, const void *addr)
{
    ca_block_t *b = ca_test_block(s->t.a, addr);
    ck_assert_msg(b != NULL && peek_block(b).addr == (uintptr_t)addr,
                  "ca_test_block(%p) must return the header of the block starting there", addr);
    return b;
}

static void scene_open(scene_t *s)
{
    td_open(&s->t, 128 * MIB);
    unsigned char *p = td_alloc(&s->t, 1000, 0), *q = td_alloc(&s->t, 3000000, 0);
    unsigned char *x = td_alloc(&s->t, 2048, 0);
    MM_ASSERT_OK(ca_record_stream(s->t.a, x, 2));
    ca_simdev_launch(s->t.dev, 2);
    td_free(&s->t, x);
    void *w1 = td_alloc(&s->t, 5 * MIB, 1), *w2 = td_alloc(&s->t, 5 * MIB, 2);
    td_free(&s->t, w1);
    td_free(&s->t, w2);
    s->p = header(s, p), s->x = header(s, x), s->q = header(s, q);
    s->w1 = header(s, w1), s->w2 = header(s, w2);
    s->rest = header(s, x + 2048), s->qrest = header(s, q + 3000320);
    ca_block_t bp = peek_block(s->p), bx = peek_block(s->x), br = peek_block(s->rest);
    ca_block_t bq = peek_block(s->q), bqr = peek_block(s->qrest);
    ca_block_t b1 = peek_block(s->w1), b2 = peek_block(s->w2);
    ck_assert_msg(bp.next == s->x && bx.next == s->rest && !br.next && bq.next == s->qrest &&
                  !bqr.next && !b1.prev && !b1.next && b1.size == 20 * MIB &&
                  b2.size == 20 * MIB,
                  "the scene: p | x | rest in one 2 MiB segment, q | rest in a 20 MiB one, "
                  "and two whole free 20 MiB segments");
    MM_ASSERT_OK(ca_check(s->t.a));
}

static void scene_close(scene_t *s)
{
    MM_ASSERT_OK(ca_check(s->t.a)); /* every corruption was undone */
    td_close(&s->t);
}

/* Sets header h's `field` to `value`, expects ca_check to return `err`, puts the old value
 * back. */
#define CORRUPT(s, h, field, value, err, why)                                         \
    do {                                                                              \
        ca_block_t saved_ = peek_block(h);                                            \
        SET_FIELD(h, field, value);                                                   \
        int rc_ = ca_check((s)->t.a);                                                 \
        SET_FIELD(h, field, saved_.field);                                            \
        ck_assert_msg(rc_ == (err), "%s: ca_check returned %d (%s), expected %s", why, \
                      rc_, rc_ ? strerror(-rc_) : "success", #err);                   \
    } while (0)

MM_TEST(test_check_detects_bad_segments)
{
    scene_t s;
    scene_open(&s);
    ca_block_t p = peek_block(s.p);
    CORRUPT(&s, s.p, size, p.size + 512, -EFAULT, "p's size grown: p runs into x");
    CORRUPT(&s, s.x, prev, NULL, -EFAULT, "x->prev cut: p->next->prev != p");
    CORRUPT(&s, s.qrest, stream, 3, -EFAULT, "q's rest on another stream than q");
    CORRUPT(&s, s.p, addr, p.addr + 8, -EFAULT, "p's address not a multiple of 512");
    /* p | x | rest closed into a ring: every link is mutual, but no block is first */
    SET_FIELD(s.p, prev, s.rest);
    SET_FIELD(s.rest, next, s.p);
    int rc = ca_check(s.t.a);
    SET_FIELD(s.p, prev, NULL);
    SET_FIELD(s.rest, next, NULL);
    MM_ASSERT_ERR(rc, -EFAULT);
    scene_close(&s);
}
MM_END_TEST

MM_TEST(test_check_detects_misplaced_blocks)
{
    scene_t s;
    scene_open(&s);
    /* a block appended to q's segment that no place knows of (shared: your code reads it) */
    ca_block_t qrest = peek_block(s.qrest), *stray = mm_shared_alloc(sizeof *stray);
    *stray = (ca_block_t){ .addr = qrest.addr + qrest.size, .size = 512, .stream = 0,
                           .pool = CA_POOL_LARGE, .allocated = true, .prev = s.qrest };
    CORRUPT(&s, s.qrest, next, stray, -ENOENT, "a block in q's segment in no place");
    CORRUPT(&s, s.p, allocated, false, -EEXIST, "live p marked not allocated");
    CORRUPT(&s, s.p, pending_events, 1, -EEXIST, "live p with a pending event");
    CORRUPT(&s, s.rest, allocated, true, -EEXIST, "a free block marked allocated");
    CORRUPT(&s, s.x, pending_events, 2, -EEXIST, "x waits for 1 event, claims 2");
    CORRUPT(&s, s.x, allocated, true, -EEXIST, "pending x marked allocated");
    scene_close(&s);
}
MM_END_TEST

MM_TEST(test_check_detects_bad_order_and_stats)
{
    scene_t s;
    scene_open(&s);
    CORRUPT(&s, s.w1, pool, CA_POOL_SMALL, -EILSEQ, "a small-pool block in the large set");
    CORRUPT(&s, s.w1, stream, 3, -EILSEQ, "a stream-3 block before a stream-2 block in the set");
    CORRUPT(&s, s.w1, size, 22 * MIB, -EDOM, "a segment grown by 2 MiB: reserved_bytes too low");
    /* two whole free 12 MiB segments on stream 3, tied into one segment as if a merge was due */
    void *u = td_alloc(&s.t, 12 * MIB, 3), *v = td_alloc(&s.t, 12 * MIB, 3);
    td_free(&s.t, u);
    td_free(&s.t, v);
    ca_block_t *lo = header(&s, u < v ? u : v), *hi = header(&s, u < v ? v : u);
    ca_block_t l = peek_block(lo), h = peek_block(hi);
    SET_FIELD(lo, next, hi);
    SET_FIELD(hi, prev, lo);
    SET_FIELD(hi, addr, l.addr + l.size);
    int rc = ca_check(s.t.a);
    SET_FIELD(lo, next, NULL);
    SET_FIELD(hi, prev, NULL);
    SET_FIELD(hi, addr, h.addr);
    ck_assert_msg(rc == -EILSEQ, "two free neighbours in one segment (a missed merge): "
                  "ca_check returned %d (%s), expected -EILSEQ", rc, strerror(-rc));
    scene_close(&s);
}
MM_END_TEST
