/* Lab 07 tests, part A: rounding, pools, segment sizes and the split rule, against PyTorch's
 * CUDACachingAllocator. */
#include <stdint.h>
#include "mm_check.h"
#include "sizes.h"
#include "support.h"

/* (request, rounded, pool, segment) as PyTorch's allocator computes them. */
static const struct {
    size_t size, rounded;
    ca_pool_t pool;
    size_t segment;
} ORACLE[] = {
    { 1, 512, CA_POOL_SMALL, 2 * MIB },
    { 513, 1024, CA_POOL_SMALL, 2 * MIB },
    { 1048576, 1048576, CA_POOL_SMALL, 2 * MIB },
    { 1048577, 1049088, CA_POOL_LARGE, 20 * MIB },
    { 5000000, 5000192, CA_POOL_LARGE, 20 * MIB },
    { 10485761, 10486272, CA_POOL_LARGE, 12582912 },
};

MM_TEST(test_round_size_oracle)
{
    for (size_t i = 0; i < sizeof ORACLE / sizeof ORACLE[0]; i++) {
        size_t r = ca_round_size(ORACLE[i].size);
        ck_assert_msg(r == ORACLE[i].rounded, "ca_round_size(%zu) = %zu, PyTorch rounds to %zu",
                      ORACLE[i].size, r, ORACLE[i].rounded);
        ck_assert_msg(ca_pool_for(r) == ORACLE[i].pool, "%zu bytes belong to the %s pool",
                      r, ORACLE[i].pool == CA_POOL_SMALL ? "small" : "large");
        ck_assert_msg(ca_segment_size(r) == ORACLE[i].segment,
                      "ca_segment_size(%zu) = %zu, PyTorch asks cudaMalloc for %zu", r,
                      ca_segment_size(r), ORACLE[i].segment);
    }
}
MM_END_TEST

MM_TEST(test_round_size_properties)
{
    mm_rng_t r = MM_RNG();
    ck_assert_msg(ca_round_size(0) == 512, "0 bytes round to the minimum block, 512");
    ck_assert_msg(ca_round_size(CA_MAX_ALLOC) == CA_MAX_ALLOC, "CA_MAX_ALLOC is allowed");
    ck_assert_msg(ca_round_size(CA_MAX_ALLOC + 1) == 0 && ca_round_size(SIZE_MAX) == 0,
                  "sizes above CA_MAX_ALLOC give 0 (and must not overflow)");
    for (int i = 0; i < 10000; i++) {
        size_t s = (size_t)mm_rng_range(&r, 1, (uint64_t)1 << mm_rng_range(&r, 1, 40));
        size_t got = ca_round_size(s);
        MM_CHECK(got % 512 == 0 && got >= s && got - s < 512,
                 "ca_round_size(%zu) = %zu: want the next multiple of 512", s, got);
    }
}
MM_END_TEST

MM_TEST(test_segment_size_rules)
{
    mm_rng_t r = MM_RNG();
    ck_assert_msg(ca_pool_for(CA_SMALL_SIZE) == CA_POOL_SMALL &&
                  ca_pool_for(CA_SMALL_SIZE + 512) == CA_POOL_LARGE,
                  "the small pool ends at exactly 1 MiB (inclusive)");
    ck_assert_msg(ca_segment_size(CA_MIN_LARGE_ALLOC - 512) == 20 * MIB,
                  "just below 10 MiB still gets a 20 MiB segment");
    ck_assert_msg(ca_segment_size(CA_MIN_LARGE_ALLOC) == 10 * MIB,
                  "10 MiB and up: own segment, rounded to 2 MiB");
    for (int i = 0; i < 10000; i++) {
        size_t s = ca_round_size((size_t)mm_rng_range(&r, 1, 64 * MIB));
        size_t seg = ca_segment_size(s), want = s <= MIB ? 2 * MIB
                                              : s < 10 * MIB ? 20 * MIB
                                                             : (s + 2 * MIB - 1) / (2 * MIB) * 2 * MIB;
        MM_CHECK(seg == want, "ca_segment_size(%zu) = %zu, want %zu", s, seg, want);
    }
}
MM_END_TEST

MM_TEST(test_split_rule)
{
    ck_assert_msg(ca_should_split(CA_POOL_SMALL, 2 * MIB, 512), "small: 2 MiB - 512 left: split");
    ck_assert_msg(ca_should_split(CA_POOL_SMALL, 1024, 512), "small: exactly 512 left: split");
    ck_assert_msg(!ca_should_split(CA_POOL_SMALL, 1024, 1024), "small: nothing left: no split");
    ck_assert_msg(!ca_should_split(CA_POOL_LARGE, 20 * MIB, 19 * MIB),
                  "large: exactly 1 MiB left: no split (must be MORE than 1 MiB)");
    ck_assert_msg(ca_should_split(CA_POOL_LARGE, 20 * MIB, 19 * MIB - 512),
                  "large: 1 MiB + 512 left: split");
    ck_assert_msg(!ca_should_split(CA_POOL_LARGE, 3 * MIB, 2621440),
                  "large: 0.5 MiB left: the whole block is handed out");
}
MM_END_TEST
