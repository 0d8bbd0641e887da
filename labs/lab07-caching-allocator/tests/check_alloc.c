/* Lab 07 tests, part C: allocation, caching, splitting, best fit and merging on the simulated
 * device, checked from the outside (device counters, addresses, fill/verify patterns). */
#include <errno.h>
#include <stdlib.h>
#include "allocator.h"
#include "mm_call.h"
#include "mm_check.h"
#include "support.h"

MM_TEST(test_alloc_bad_args)
{
    td_t t;
    td_open(&t, 8 * MIB);
    ca_allocator_t *other = NULL;
    ca_backend_t *half = mm_shared_alloc(sizeof *half);
    *half = *t.be;
    half->synchronize = NULL;
    MM_ASSERT_ERR(ca_create(NULL, t.be), -EINVAL);
    MM_ASSERT_ERR(ca_create(&other, NULL), -EINVAL);
    MM_ASSERT_ERR(ca_create(&other, half), -EINVAL);
    ck_assert_msg(other == NULL, "a failed ca_create must not set *out");
    void *p = &t, *q = NULL;
    MM_ASSERT_ERR(ca_alloc(NULL, 512, 0, &p), -EINVAL);
    MM_ASSERT_ERR(ca_alloc(t.a, 512, 0, NULL), -EINVAL);
    MM_ASSERT_ERR(ca_alloc(t.a, 512, CA_MAX_STREAMS, &p), -EINVAL);
    MM_ASSERT_ERR(ca_alloc(t.a, SIZE_MAX, 0, &p), -ENOMEM);
    MM_ASSERT_ERR(ca_alloc(t.a, CA_MAX_ALLOC + 1, 0, &p), -ENOMEM);
    ck_assert_msg(p == (void *)&t, "a failed ca_alloc must leave *out untouched");
    MM_ASSERT_OK(ca_alloc(t.a, 0, 0, &p));
    ck_assert_msg(p == NULL, "size 0 gives NULL (nothing is allocated, as in PyTorch)");
    ck_assert_msg(td_dev(&t).alloc_calls == 0, "none of these may reach the back end");
    MM_ASSERT_ERR(ca_record_stream(t.a, q, 1), -EINVAL);
    MM_ASSERT_ERR(ca_get_stats(t.a, NULL), -EINVAL);
    MM_ASSERT_ERR(ca_empty_cache(NULL), -EINVAL);
    td_close(&t);
}
MM_END_TEST

MM_TEST(test_free_bad_pointers)
{
    td_t t;
    td_open(&t, 8 * MIB);
    char local;
    unsigned char *p = td_alloc(&t, 4000, 0), *q = td_alloc(&t, 4000, 0);
    td_fill(&t, q, 4000, 7);
    MM_ASSERT_OK(ca_free(t.a, NULL));
    MM_ASSERT_ERR(ca_free(NULL, p), -EINVAL);
    MM_ASSERT_ERR(ca_free(t.a, &local), -EINVAL);
    MM_ASSERT_ERR(ca_free(t.a, p + 512), -EINVAL);
    ck_assert_msg(ca_block_size(t.a, p + 512) == 0, "an interior pointer is not a live block");
    MM_ASSERT_OK(ca_free(t.a, p));
    MM_ASSERT_ERR(ca_free(t.a, p), -EINVAL); /* double free */
    ck_assert_msg(ca_block_size(t.a, p) == 0, "a freed pointer is not a live block");
    ck_assert_msg(td_stats(&t).allocations.current == 1, "one allocation is still live");
    ck_assert_msg(td_intact(&t, q, 4000, 7), "bad frees must not disturb live memory");
    td_close(&t);
}
MM_END_TEST

MM_TEST(test_alloc_oracle_segments)
{
    static const struct { size_t size, rounded, segment; } row[] = {
        { 1, 512, 2 * MIB },          { 513, 1024, 2 * MIB },
        { 1048576, 1048576, 2 * MIB }, { 1048577, 1049088, 20 * MIB },
        { 5000000, 5000192, 20 * MIB }, { 10485761, 10486272, 12582912 },
    };
    for (size_t i = 0; i < sizeof row / sizeof row[0]; i++) {
        td_t t;
        td_open(&t, 32 * MIB);
        void *p = td_alloc(&t, row[i].size, 0);
        ca_simdev_stats_t d = td_dev(&t);
        ck_assert_msg(d.alloc_calls == 1 && d.live_bytes == row[i].segment,
                      "ca_alloc(%zu) must make one raw_alloc of %zu bytes (made %llu, holding %zu)",
                      row[i].size, row[i].segment, (unsigned long long)d.alloc_calls,
                      d.live_bytes);
        ck_assert_msg(ca_block_size(t.a, p) == row[i].rounded,
                      "ca_alloc(%zu): block of %zu bytes, want %zu (the segment is split)",
                      row[i].size, ca_block_size(t.a, p), row[i].rounded);
        ca_stats_t s = td_stats(&t);
        int pool = row[i].rounded <= MIB ? CA_STAT_SMALL : CA_STAT_LARGE;
        ck_assert_msg(s.allocated_bytes[pool].current == row[i].rounded &&
                      s.reserved_bytes[pool].current == row[i].segment,
                      "ca_alloc(%zu): stats must show it in the %s pool", row[i].size,
                      pool == CA_STAT_SMALL ? "small" : "large");
        td_close(&t);
    }
}
MM_END_TEST

/* Interval check from the outside: no two of n blocks [p[i], p[i] + size[i]) share a byte. */
static void assert_disjoint(unsigned char **p, const size_t *size, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (p[i] && p[j])
                MM_CHECK(p[i] + size[i] <= p[j] || p[j] + size[j] <= p[i],
                         "live blocks %p (%zu bytes) and %p (%zu bytes) overlap", (void *)p[i],
                         size[i], (void *)p[j], size[j]);
}

MM_TEST(test_live_blocks_never_overlap)
{
    enum { N = 160 };
    mm_rng_t r = MM_RNG();
    td_t t;
    td_open(&t, 512 * MIB);
    unsigned char *p[N] = { 0 };
    size_t size[N];
    for (int round = 0; round < 3; round++) {
        for (size_t i = 0; i < N; i++) {
            if (p[i] && mm_rng_range(&r, 0, 1)) {
                ck_assert_msg(td_intact(&t, p[i], size[i], (uint32_t)i),
                              "block %zu was overwritten", i);
                td_free(&t, p[i]);
                p[i] = NULL;
            }
            if (!p[i]) {
                size[i] = (size_t)mm_rng_range(&r, 1, (uint64_t)1 << mm_rng_range(&r, 1, 23));
                p[i] = td_alloc(&t, size[i], (ca_stream_t)mm_rng_range(&r, 0, 1));
                td_fill(&t, p[i], size[i], (uint32_t)i);
            }
        }
        assert_disjoint(p, size, N);
        for (size_t i = 0; i < N; i++)
            ck_assert_msg(td_intact(&t, p[i], size[i], (uint32_t)i),
                          "block %zu (%zu bytes) was overwritten by another block", i, size[i]);
    }
    td_close(&t);
}
MM_END_TEST

static unsigned long long sim_raw_calls(const void *dev)
{
    ca_simdev_stats_t s;
    ca_simdev_stats((const ca_simdev_t *)dev, &s);
    return s.alloc_calls + s.free_calls;
}

/* What test_cuda_alloc_free does on a GPU, on the simulated device (addresses only): 24 blocks
 * of 1 byte to 24 MiB, all freed, then each size again, alone, from the cache. */
static void reuse_random_sizes(void)
{
    enum { N = 24 };
    mm_rng_t r = MM_RNG();
    ca_simdev_config_t cfg = { 1024 * MIB, 0, 0 };
    td_t t;
    td_open_cfg(&t, &cfg);
    void *p[N];
    size_t size[N];
    for (int i = 0; i < N; i++) {
        size[i] = (size_t)mm_rng_range(&r, 1, 24 * MIB);
        p[i] = td_alloc(&t, size[i], 0);
    }
    for (int i = 0; i < N; i++)
        td_free(&t, p[i]);
    td_reuse_each_size(t.a, size, N, sim_raw_calls, t.dev);
    td_close(&t);
}

MM_TEST(test_cache_reuse_no_raw_calls)
{
    static const size_t sizes[] = { 700, 4096, 300000, 1 << 20, 3000000, 9000000, 15000000 };
    enum { N = sizeof sizes / sizeof sizes[0] };
    td_t t;
    td_open(&t, 128 * MIB);
    void *p[N];
    for (int i = 0; i < N; i++)
        p[i] = td_alloc(&t, sizes[i], 0);
    for (int i = N; i-- > 0;)
        td_free(&t, p[i]);
    ca_simdev_stats_t before = td_dev(&t);
    ck_assert_msg(before.free_calls == 0, "ca_free must keep the memory cached, not raw_free it");
    for (int i = 0; i < N; i++)
        p[i] = td_alloc(&t, sizes[i], 0);
    ck_assert_msg(td_dev(&t).alloc_calls == before.alloc_calls,
                  "the same sizes again come from the cache: no raw_alloc");
    ck_assert_msg(td_stats(&t).reserved_bytes[CA_STAT_ALL].current == before.live_bytes,
                  "reserved_bytes is what the device handed out");
    td_close(&t);
    reuse_random_sizes();
}
MM_END_TEST

MM_TEST(test_split_small)
{
    td_t t;
    td_open(&t, 8 * MIB);
    unsigned char *p = td_alloc(&t, 512, 0), *q = td_alloc(&t, 1000, 0);
    unsigned char *r = td_alloc(&t, 600, 0);
    ck_assert_msg(q == p + 512 && r == q + 1024,
                  "one 2 MiB segment, split in address order: want p, p+512, p+1536");
    td_free(&t, q);
    ck_assert_msg(td_alloc(&t, 1024, 0) == q, "best fit for 1024 is q's freed 1024-byte block");
    unsigned char *big = td_alloc(&t, MIB - 512, 0), *last = td_alloc(&t, MIB - 2560, 0);
    ck_assert_msg(big == r + 1024 && last == big + MIB - 512, "the rest of the segment, in order");
    ck_assert_msg(ca_block_size(t.a, last) == MIB - 2560,
                  "small pool: the 512 bytes left (>= 512) are split off");
    ck_assert_msg(td_alloc(&t, 300, 0) == last + MIB - 2560, "and serve the next 300 bytes");
    ck_assert_msg(td_dev(&t).alloc_calls == 1, "all of this fits the first 2 MiB segment");
    td_close(&t);
}
MM_END_TEST

MM_TEST(test_split_large_rule)
{
    td_t t;
    td_open(&t, 64 * MIB);
    unsigned char *p = td_alloc(&t, 1048577, 0);
    size_t rest = 20 * MIB - 1049088; /* the free remainder of the 20 MiB segment */
    unsigned char *q = td_alloc(&t, rest - MIB, 0);
    ck_assert_msg(q == p + 1049088, "the remainder of p's segment serves q (best fit)");
    ck_assert_msg(ca_block_size(t.a, q) == rest, "1 MiB would be left: not more than 1 MiB, so "
                  "the large block is not split (block %zu, want %zu)", ca_block_size(t.a, q), rest);
    ck_assert_msg(td_stats(&t).allocated_bytes[CA_STAT_ALL].current == 20 * MIB,
                  "allocated_bytes counts whole blocks: the full segment here");
    td_free(&t, q);
    q = td_alloc(&t, rest - MIB - 512, 0);
    ck_assert_msg(ca_block_size(t.a, q) == rest - MIB - 512,
                  "1 MiB + 512 left: more than 1 MiB, so it is split");
    ck_assert_msg(td_dev(&t).alloc_calls == 1, "everything fits the first segment");
    td_close(&t);
}
MM_END_TEST

MM_TEST(test_best_fit_choice)
{
    td_t t;
    td_open(&t, 64 * MIB);
    /* one 20 MiB segment: A 4 MiB | s1 2 MiB | B 2 MiB | s2 2 MiB | C 3 MiB | s3 2 MiB | 5 MiB */
    unsigned char *A = td_alloc(&t, 4 * MIB, 0), *s1 = td_alloc(&t, 2 * MIB, 0);
    unsigned char *B = td_alloc(&t, 2 * MIB, 0), *s2 = td_alloc(&t, 2 * MIB, 0);
    unsigned char *C = td_alloc(&t, 3 * MIB, 0), *s3 = td_alloc(&t, 2 * MIB, 0);
    ck_assert_msg(s3 == A + 13 * MIB, "the six blocks must be consecutive in one segment");
    td_free(&t, A);
    td_free(&t, B);
    td_free(&t, C);
    ck_assert_msg(td_alloc(&t, 2 * MIB - 100, 0) == B, "2 MiB: B is the exact fit");
    ck_assert_msg(td_alloc(&t, 2621440, 0) == C, "2.5 MiB: C (3 MiB) is the smallest that fits");
    ck_assert_msg(ca_block_size(t.a, C) == 3 * MIB, "C keeps its 0.5 MiB rest (<= 1 MiB)");
    ck_assert_msg(td_alloc(&t, 3670016, 0) == A, "3.5 MiB: A (4 MiB) is the smallest that fits");
    ck_assert_msg(td_alloc(&t, 4 * MIB, 0) == s3 + 2 * MIB, "4 MiB: the 5 MiB tail");
    ck_assert_msg(td_dev(&t).alloc_calls == 1, "all of it from the first segment");
    (void)s1, (void)s2;
    td_close(&t);
}
MM_END_TEST

MM_TEST(test_merge_neighbours)
{
    static const int order[3][3] = { { 0, 2, 1 }, { 1, 0, 2 }, { 2, 1, 0 } };
    for (int o = 0; o < 3; o++) {
        td_t t;
        td_open(&t, 64 * MIB);
        unsigned char *b[3];
        for (int i = 0; i < 3; i++)
            b[i] = td_alloc(&t, 5 * MIB, 0);
        for (int i = 0; i < 3; i++)
            td_free(&t, b[order[o][i]]);
        unsigned char *all = td_alloc(&t, 19 * MIB, 0);
        ck_assert_msg(all == b[0] && td_dev(&t).alloc_calls == 1,
                      "freed in order %d%d%d, the three blocks and the tail must merge back into "
                      "one 20 MiB block", order[o][0], order[o][1], order[o][2]);
        td_free(&t, all);
        MM_ASSERT_OK(ca_empty_cache(t.a));
        ck_assert_msg(td_dev(&t).free_calls == 1 && td_dev(&t).live_bytes == 0,
                      "a fully merged segment is released by empty_cache");
        td_close(&t);
    }
}
MM_END_TEST

MM_TEST(test_merge_only_same_segment)
{
    td_t t;
    td_open(&t, 64 * MIB);
    unsigned char *x = td_alloc(&t, 12 * MIB, 0), *y = td_alloc(&t, 12 * MIB, 0);
    ck_assert_msg(y == x + 12 * MIB, "(the device places the two segments side by side)");
    td_free(&t, x);
    td_free(&t, y);
    unsigned char *z = td_alloc(&t, 24 * MIB, 0);
    ck_assert_msg(z >= y + 12 * MIB, "two adjacent segments must never merge into one block");
    MM_ASSERT_OK(ca_empty_cache(t.a));
    ca_simdev_stats_t d = td_dev(&t);
    ck_assert_msg(d.free_calls == 2 && d.free_errors == 0 && d.live_bytes == 24 * MIB,
                  "empty_cache returns both 12 MiB segments, each by its own raw_free");
    td_close(&t);
}
MM_END_TEST
