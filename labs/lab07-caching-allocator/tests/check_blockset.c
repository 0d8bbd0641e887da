/* Lab 07 tests, part B: the free-block set ordered by (stream, size, address) and best fit. */
#include <errno.h>
#include <stdlib.h>
#include "blockset.h"
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

static int before(const ca_block_t *x, const ca_block_t *y)
{
    if (x->stream != y->stream)
        return x->stream < y->stream;
    if (x->size != y->size)
        return x->size < y->size;
    return x->addr < y->addr;
}

/* The reference answer: scan everything in the set. */
static ca_block_t *brute_fit(ca_block_t *b, const int *in, ca_stream_t s, size_t size)
{
    ca_block_t *best = NULL;
    for (size_t i = 0; i < NB; i++)
        if (in[i] && b[i].stream == s && b[i].size >= size && (!best || before(&b[i], best)))
            best = &b[i];
    return best;
}

MM_TEST(test_blockset_best_fit)
{
    mm_rng_t r = MM_RNG();
    ca_block_t *b = malloc(NB * sizeof *b);
    ck_assert_ptr_nonnull(b);
    int in[NB] = { 0 };
    ca_blockset_t s;
    ca_blockset_init(&s);
    random_blocks(&r, b);
    for (size_t i = 0; i < NB; i++) {
        if (mm_rng_range(&r, 0, 3) == 0)
            continue;
        MM_ASSERT_OK(ca_blockset_insert(&s, &b[i]));
        in[i] = 1;
    }
    for (int q = 0; q < 2000; q++) {
        ca_stream_t st = (ca_stream_t)mm_rng_range(&r, 0, 4);
        size_t size = 512 * mm_rng_range(&r, 0, 42);
        ca_block_t *want = brute_fit(b, in, st, size), *got = ca_blockset_best_fit(&s, st, size);
        ck_assert_msg(got == want, "best fit for %zu bytes on stream %u: got the block at %#lx "
                      "(%zu bytes), want the one at %#lx (%zu bytes): smallest fit, then lowest "
                      "address, same stream only", size, st, got ? (unsigned long)got->addr : 0,
                      got ? got->size : 0, want ? (unsigned long)want->addr : 0,
                      want ? want->size : 0);
    }
    ca_blockset_destroy(&s);
    free(b);
}
MM_END_TEST

MM_TEST(test_blockset_order)
{
    mm_rng_t r = MM_RNG();
    ca_block_t *b = malloc(NB * sizeof *b);
    ck_assert_ptr_nonnull(b);
    ca_blockset_t s;
    ca_blockset_init(&s);
    random_blocks(&r, b);
    for (size_t i = 0; i < NB; i++)
        MM_ASSERT_OK(ca_blockset_insert(&s, &b[i]));
    ck_assert_msg(s.n == NB, "%d blocks inserted, the set holds %zu", NB, s.n);
    for (size_t i = 1; i < s.n; i++)
        ck_assert_msg(before(s.v[i - 1], s.v[i]), "v[%zu] and v[%zu] are out of (stream, size, "
                      "address) order", i - 1, i);
    ca_blockset_destroy(&s);
    ck_assert_msg(s.n == 0 && s.v == NULL, "destroy leaves an empty set");
    free(b);
}
MM_END_TEST

MM_TEST(test_blockset_insert_erase)
{
    ca_block_t b[3] = { { .addr = 4096, .size = 1024 }, { .addr = 8192, .size = 1024 },
                        { .addr = 512, .size = 2048, .stream = 1 } };
    ca_blockset_t s;
    ca_blockset_init(&s);
    MM_ASSERT_OK(ca_blockset_reserve(&s, 10));
    ck_assert_msg(s.cap >= 10, "reserve(10) must leave room for 10 blocks");
    for (int i = 0; i < 3; i++)
        MM_ASSERT_OK(ca_blockset_insert(&s, &b[i]));
    MM_ASSERT_ERR(ca_blockset_insert(&s, &b[1]), -EEXIST);
    MM_ASSERT_ERR(ca_blockset_insert(&s, NULL), -EINVAL);
    MM_ASSERT_OK(ca_blockset_erase(&s, &b[0]));
    MM_ASSERT_ERR(ca_blockset_erase(&s, &b[0]), -ENOENT);
    ck_assert_msg(s.n == 2 && ca_blockset_best_fit(&s, 0, 512) == &b[1],
                  "after erasing the lower block, best fit on stream 0 is the other one");
    ck_assert_msg(ca_blockset_best_fit(&s, 0, 1536) == NULL,
                  "the 2048-byte block is on stream 1: no fit on stream 0");
    ck_assert_msg(ca_blockset_best_fit(&s, 1, 1536) == &b[2], "stream 1 has the 2048-byte block");
    ca_blockset_destroy(&s);
}
MM_END_TEST
