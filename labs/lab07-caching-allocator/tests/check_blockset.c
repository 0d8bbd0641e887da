/* Lab 07 tests, part B: the free-block set ordered by (stream, size, address) and best fit. The
 * set and its blocks are in memory shared with your process (your code keeps pointers to them);
 * the harness judges by its own copy of the blocks and reads the set's array with mm_peek. */
#include <errno.h>
#include <stdlib.h>
#include "blockset.h"
#include "mm_call.h"
#include "mm_check.h"
#include "support.h"

enum { NB = 300 };

/* NB blocks with random streams (0..3) and sizes (few distinct, so ties happen), distinct
 * addresses. */
static void random_blocks(mm_rng_t *r, ca_block_t *b)
{
    for (size_t i = 0; i < NB; i++)
        b[i] = (ca_block_t){ .addr = 0x10000000u + i * 0x100000u + 512 * mm_rng_range(r, 0, 7),
                             .size = 512 * mm_rng_range(r, 1, 40),
                             .stream = (ca_stream_t)mm_rng_range(r, 0, 3) };
    for (size_t i = NB - 1; i > 0; i--) { /* shuffle, so addresses come in random order */
        size_t j = (size_t)mm_rng_range(r, 0, i);
        ca_block_t t = b[i];
        b[i] = b[j];
        b[j] = t;
    }
}

/* The blocks: the harness's copy (mine) and the one your code sees (shared). */
typedef struct {
    ca_block_t mine[NB], *shared;
} blocks_t;

static void blocks_open(blocks_t *k, mm_rng_t *r)
{
    random_blocks(r, k->mine);
    k->shared = mm_shared_alloc(NB * sizeof *k->shared);
    memcpy(k->shared, k->mine, NB * sizeof *k->shared);
}

/* Which block a pointer from your code names: its index, or -1 if it is none of them. */
static long index_of(const blocks_t *k, const ca_block_t *p)
{
    uintptr_t at = (uintptr_t)p, base = (uintptr_t)k->shared;
    if (at < base || (at - base) % sizeof *p != 0 || (at - base) / sizeof *p >= NB)
        return -1;
    return (long)((at - base) / sizeof *p);
}

static int before(const ca_block_t *x, const ca_block_t *y)
{
    if (x->stream != y->stream)
        return x->stream < y->stream;
    if (x->size != y->size)
        return x->size < y->size;
    return x->addr < y->addr;
}

/* The reference answer: scan everything in the set. Returns an index, or -1. */
static long brute_fit(const ca_block_t *b, const int *in, ca_stream_t s, size_t size)
{
    long best = -1;
    for (size_t i = 0; i < NB; i++)
        if (in[i] && b[i].stream == s && b[i].size >= size && (best < 0 || before(&b[i], &b[best])))
            best = (long)i;
    return best;
}

/* The set's first n pointers (s->v[0..n), in your process's memory) into v. Asserts. */
static void peek_set(const ca_blockset_t *s, ca_block_t **v, size_t n)
{
    ck_assert_msg(mm_peek(s->v, v, n * sizeof *v) == 0, "the set's array at %p (%zu blocks) is "
                  "not readable memory of your process", (void *)s->v, n);
}

MM_TEST(test_blockset_best_fit)
{
    mm_rng_t r = MM_RNG();
    blocks_t *k = malloc(sizeof *k);
    ck_assert_ptr_nonnull(k);
    int in[NB] = { 0 };
    ca_blockset_t *s = mm_shared_alloc(sizeof *s);
    ca_blockset_init(s);
    blocks_open(k, &r);
    for (size_t i = 0; i < NB; i++) {
        if (mm_rng_range(&r, 0, 3) == 0)
            continue;
        MM_ASSERT_OK(ca_blockset_insert(s, &k->shared[i]));
        in[i] = 1;
    }
    for (int q = 0; q < 2000; q++) {
        ca_stream_t st = (ca_stream_t)mm_rng_range(&r, 0, 4);
        size_t size = 512 * mm_rng_range(&r, 0, 42);
        ca_block_t *p = ca_blockset_best_fit(s, st, size);
        long want = brute_fit(k->mine, in, st, size), got = index_of(k, p);
        ck_assert_msg(p == NULL || got >= 0, "best fit returned %p: none of the set's blocks",
                      (void *)p);
        const ca_block_t *g = p ? &k->mine[got] : NULL, *w = want >= 0 ? &k->mine[want] : NULL;
        ck_assert_msg(g == w, "best fit for %zu bytes on stream %u: got the block at %#lx "
                      "(%zu bytes), want the one at %#lx (%zu bytes): smallest fit, then lowest "
                      "address, same stream only", size, st, g ? (unsigned long)g->addr : 0,
                      g ? g->size : 0, w ? (unsigned long)w->addr : 0, w ? w->size : 0);
    }
    ca_blockset_destroy(s);
    free(k);
}
MM_END_TEST

MM_TEST(test_blockset_order)
{
    mm_rng_t r = MM_RNG();
    blocks_t *k = malloc(sizeof *k);
    ck_assert_ptr_nonnull(k);
    ca_blockset_t *s = mm_shared_alloc(sizeof *s);
    ca_blockset_init(s);
    blocks_open(k, &r);
    for (size_t i = 0; i < NB; i++)
        MM_ASSERT_OK(ca_blockset_insert(s, &k->shared[i]));
    ck_assert_msg(s->n == NB, "%d blocks inserted, the set holds %zu", NB, s->n);
    ca_block_t *v[NB];
    peek_set(s, v, NB);
    long at[NB];
    for (size_t i = 0; i < NB; i++) {
        at[i] = index_of(k, v[i]);
        ck_assert_msg(at[i] >= 0, "v[%zu] = %p: none of the inserted blocks", i, (void *)v[i]);
    }
    for (size_t i = 1; i < NB; i++)
        ck_assert_msg(before(&k->mine[at[i - 1]], &k->mine[at[i]]), "v[%zu] and v[%zu] are out "
                      "of (stream, size, address) order", i - 1, i);
    ca_blockset_destroy(s);
    ck_assert_msg(s->n == 0 && s->v == NULL, "destroy leaves an empty set");
    free(k);
}
MM_END_TEST

MM_TEST(test_blockset_insert_erase)
{
    ca_block_t *b = mm_shared_alloc(3 * sizeof *b);
    b[0] = (ca_block_t){ .addr = 4096, .size = 1024 };
    b[1] = (ca_block_t){ .addr = 8192, .size = 1024 };
    b[2] = (ca_block_t){ .addr = 512, .size = 2048, .stream = 1 };
    ca_blockset_t *s = mm_shared_alloc(sizeof *s);
    ca_blockset_init(s);
    MM_ASSERT_OK(ca_blockset_reserve(s, 10));
    ck_assert_msg(s->cap >= 10, "reserve(10) must leave room for 10 blocks");
    for (int i = 0; i < 3; i++)
        MM_ASSERT_OK(ca_blockset_insert(s, &b[i]));
    MM_ASSERT_ERR(ca_blockset_insert(s, &b[1]), -EEXIST);
    MM_ASSERT_ERR(ca_blockset_insert(s, NULL), -EINVAL);
    MM_ASSERT_OK(ca_blockset_erase(s, &b[0]));
    MM_ASSERT_ERR(ca_blockset_erase(s, &b[0]), -ENOENT);
    ck_assert_msg(s->n == 2 && ca_blockset_best_fit(s, 0, 512) == &b[1],
                  "after erasing the lower block, best fit on stream 0 is the other one");
    ck_assert_msg(ca_blockset_best_fit(s, 0, 1536) == NULL,
                  "the 2048-byte block is on stream 1: no fit on stream 0");
    ck_assert_msg(ca_blockset_best_fit(s, 1, 1536) == &b[2], "stream 1 has the 2048-byte block");
    ca_blockset_destroy(s);
}
MM_END_TEST
