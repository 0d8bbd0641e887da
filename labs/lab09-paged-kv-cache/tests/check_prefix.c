/* Lab 09 tests, Part C: prefix caching: full blocks shared across sequences by identity (their
 * tokens and the identity of the block before), the LRU list of cached blocks, eviction, and
 * hash collisions. */
#include <errno.h>
#include <stdlib.h>
#include "support.h"

MM_TEST(test_prefix_hit_shares_full_blocks)
{
    kv_cache_t *c = open_cache(16, 4, true, KV_HASH_DEFAULT);
    kv_token_t p[10];
    iota(p, 10, 1);
    int32_t a = add_seq(c, p, 10);
    TABLE(c, a, "the first prompt", 0, 1, 2);
    kv_stats_t st = stats_of(c);
    ck_assert_msg(st.prefix_queries == 2 && st.prefix_hits == 0,
                  "10 tokens in 4-token blocks: 2 full blocks looked up, none found");
    ck_assert_msg(kv_blocks_needed(c, p, 10) == 1,
                  "the same prompt again needs one block (its partial last one), got %lld",
                  (long long)kv_blocks_needed(c, p, 10));
    int32_t b = add_seq(c, p, 10);
    TABLE(c, b, "the same prompt again: its two full blocks are shared", 0, 1, 3);
    expect_tokens(c, b, p, 10, "the second sequence");
    st = stats_of(c);
    ck_assert_msg(st.prefix_queries == 4 && st.prefix_hits == 2 && st.shared_blocks == 2 &&
                  st.used_blocks == 4,
                  "4 queries, 2 hits, 2 shared blocks, 4 used (got %llu, %llu, %u, %u)",
                  (unsigned long long)st.prefix_queries, (unsigned long long)st.prefix_hits,
                  st.shared_blocks, st.used_blocks);
    append_all(c, b, (kv_token_t[]){ 7, 7, 7 }, 3);
    TABLE(c, b, "appending after a shared prefix touches no shared block", 0, 1, 3, 4);
    ck_assert_msg(stats_of(c).cow_copies == 0, "no copy: shared full blocks are never written");
    expect_tokens(c, a, p, 10, "the first sequence after the second's appends");
    kv_destroy(c);
}
MM_END_TEST

MM_TEST(test_prefix_needs_same_parent)
{
    kv_cache_t *c = open_cache(16, 4, true, KV_HASH_DEFAULT);
    kv_token_t xy[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, zy[8] = { 9, 9, 9, 9, 5, 6, 7, 8 };
    int32_t a = add_seq(c, xy, 8), b = add_seq(c, zy, 8), d = add_seq(c, xy + 4, 4);
    TABLE(c, a, "X Y", 0, 1);
    TABLE(c, b, "Z Y: Y after another block is another identity", 2, 3);
    TABLE(c, d, "Y alone: Y as logical block 0 is another identity", 4);
    int32_t e = add_seq(c, zy, 8);
    TABLE(c, e, "Z Y again: both found", 2, 3);
    kv_stats_t st = stats_of(c);
    ck_assert_msg(st.prefix_hits == 2 && st.prefix_queries == 7,
                  "hits only for the repeated Z Y (2 of 7 queries), got %llu of %llu",
                  (unsigned long long)st.prefix_hits, (unsigned long long)st.prefix_queries);
    kv_destroy(c);
}
MM_END_TEST

MM_TEST(test_prefix_lru_and_eviction)
{
    kv_cache_t *c = open_cache(4, 2, true, KV_HASH_DEFAULT);
    kv_token_t p[4] = { 1, 2, 3, 4 }, q[2] = { 5, 6 }, r[4] = { 7, 8, 9, 10 };
    int32_t a = add_seq(c, p, 4), id = 9;
    MM_ASSERT_OK(kv_seq_free(c, a));
    expect_counts(c, 2, 2, 0, "a freed registered block goes to the LRU list, not the free queue");
    int64_t need_p = kv_blocks_needed(c, p, 4), need_q = kv_blocks_needed(c, q, 2);
    ck_assert_msg(need_p == 2 && need_q == 1,
                  "a cached block shared again still comes out of the LRU list: it counts. "
                  "kv_blocks_needed says %lld for {1 2 3 4} (its 2 blocks cached: 2 expected) and "
                  "%lld for {5 6} (a new block: 1 expected)", (long long)need_p,
                  (long long)need_q);
    int32_t b = add_seq(c, q, 2);
    TABLE(c, b, "the free queue is used before any cached block is evicted", 2);
    int32_t d = add_seq(c, r, 4);
    TABLE(c, d, "free queue empty: the LRU head (the last block freed first) is evicted", 3, 1);
    kv_stats_t st = stats_of(c);
    ck_assert_msg(st.evictions == 1 && st.cached_blocks == 1, "one eviction, block 0 cached");
    kv_stats_t before = stats_of(c);
    MM_ASSERT_ERR(kv_seq_add(c, p, 4, &id), -ENOMEM); /* block 0 found, 1 evicted: needs 2 */
    kv_stats_t after = stats_of(c);
    char diff[400];
    ck_assert_msg(stats_equal(&before, &after), "the failed kv_seq_add changed the "
                  "statistics: %s", stats_diff(&before, &after, diff, sizeof diff));
    ck_assert_msg(id == 9, "the failed kv_seq_add wrote the id %d", id);
    MM_ASSERT_OK(kv_seq_free(c, b)); /* block 2 (registered) to the LRU tail: LRU = 0 2 */
    int32_t e = add_seq(c, p, 4);
    TABLE(c, e, "block 0 revived from the LRU list, block 2 evicted for the rest", 0, 2);
    expect_tokens(c, e, p, 4, "the revived prompt");
    st = stats_of(c);
    ck_assert_msg(st.evictions == 2 && st.prefix_hits == 1 && st.prefix_queries == 7,
                  "2 evictions, 1 hit of 7 queries (got %llu, %llu, %llu)",
                  (unsigned long long)st.evictions, (unsigned long long)st.prefix_hits,
                  (unsigned long long)st.prefix_queries);
    kv_destroy(c);
}
MM_END_TEST

/* The same scenario under two hashes: one that spreads and one under which everything
 * collides (KV_HASH_COLLIDE). Identities are compared exactly, so the tables must be the same. */
static void collision_scenario(kv_hash_pick_t h, const char *hname, uint32_t tables[6][3],
                               int64_t len[6])
{
    kv_cache_t *c = open_cache(16, 2, true, h);
    static const kv_token_t pr[6][4] = { { 1, 2, 3, 4 }, { 1, 2, 9, 9 }, { 9, 9 },
                                         { 1, 2, 3, 4 }, { 3, 4 }, { 9, 9, 9, 9 } };
    static const uint32_t n[6] = { 4, 4, 2, 4, 2, 4 };
    for (int k = 0; k < 6; k++) {
        int32_t id = add_seq(c, pr[k], n[k]);
        len[k] = kv_block_table(c, id, tables[k], 3);
        expect_tokens(c, id, pr[k], n[k], hname);
    }
    kv_stats_t st = stats_of(c);
    ck_assert_msg(st.prefix_hits == 4, "%s: hits: 1 (1 2), 2 (1 2 3 4), 1 (9 9 as block 0): 4, "
                  "got %llu", hname, (unsigned long long)st.prefix_hits);
    kv_destroy(c);
}

MM_TEST(test_prefix_collisions_compared_exactly)
{
    uint32_t t1[6][3], t2[6][3];
    int64_t l1[6], l2[6];
    collision_scenario(KV_HASH_DEFAULT, "the default hash", t1, l1);
    collision_scenario(KV_HASH_COLLIDE, "KV_HASH_COLLIDE (every block's hash is 42: every "
                       "lookup must compare tokens and parent)", t2, l2);
    static const uint32_t want[6][2] = { { 0, 1 }, { 0, 2 }, { 3 }, { 0, 1 }, { 4 }, { 3, 5 } };
    static const int64_t want_len[6] = { 2, 2, 1, 2, 1, 2 };
    for (int k = 0; k < 6; k++) {
        MM_CHECK(l1[k] == want_len[k] && l2[k] == want_len[k], "prompt %d: a block table of "
                 "%lld blocks under KV_HASH_COLLIDE (every hash colliding), %lld under the "
                 "default hash, expected %lld", k, (long long)l2[k], (long long)l1[k],
                 (long long)want_len[k]);
        for (int i = 0; i < want_len[k]; i++)
            MM_CHECK(t2[k][i] == want[k][i] && t1[k][i] == t2[k][i],
                     "prompt %d, logical block %d: physical %u under KV_HASH_COLLIDE (every "
                     "hash colliding), %u under the default hash, expected %u", k, i,
                     t2[k][i], t1[k][i], want[k][i]);
    }
}
MM_END_TEST

MM_TEST(test_prefix_off_never_shares)
{
    kv_cache_t *c = open_cache(8, 2, false, KV_HASH_DEFAULT);
    kv_token_t p[4] = { 1, 2, 3, 4 };
    int32_t a = add_seq(c, p, 4), b = add_seq(c, p, 4);
    TABLE(c, b, "prefix caching off: the same prompt gets its own blocks", 2, 3);
    MM_ASSERT_OK(kv_seq_free(c, a));
    expect_counts(c, 6, 0, 2, "prefix caching off: freed blocks go to the free queue");
    kv_stats_t st = stats_of(c);
    ck_assert_msg(st.prefix_queries == 0 && st.prefix_hits == 0 && st.evictions == 0,
                  "no lookups, no hits, no evictions without prefix caching (prefix_queries "
                  "stays 0): got prefix_queries %llu, prefix_hits %llu, evictions %llu",
                  (unsigned long long)st.prefix_queries, (unsigned long long)st.prefix_hits,
                  (unsigned long long)st.evictions);
    int64_t need = kv_blocks_needed(c, p, 4);
    ck_assert_msg(need == 2, "without prefix caching every block is needed: kv_blocks_needed "
                  "of a 2-block prompt already in the cache says %lld, expected 2",
                  (long long)need);
    kv_destroy(c);
}
MM_END_TEST

MM_TEST(test_full_block_by_append_is_registered)
{
    kv_cache_t *c = open_cache(16, 4, true, KV_HASH_DEFAULT);
    kv_token_t p[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    int32_t a = add_seq(c, p, 3);
    append_tok(c, a, 4);
    int32_t b = add_seq(c, p, 5);
    TABLE(c, b, "a block filled by kv_append is registered and found", 0, 1);
    int32_t d = add_seq(c, p, 3);
    append_tok(c, d, 4); /* same identity as block 0: not registered again */
    append_all(c, d, p + 4, 4); /* its next full block is registered after block 0's identity */
    TABLE(c, d, "the duplicate", 2, 3);
    MM_ASSERT_OK(kv_seq_free(c, b));
    int32_t e = add_seq(c, p, 8);
    TABLE(c, e, "found: block 0, then the duplicate's second block (its parent is block 0's "
          "identity)", 0, 3);
    MM_ASSERT_OK(kv_seq_free(c, d)); /* block 2 is not registered: to the free queue */
    expect_counts(c, 14, 0, 2, "the duplicate block and b's partial block were never "
                  "registered: freed, they go to the free queue");
    kv_destroy(c);
}
MM_END_TEST

/* A registered block's parent is an identity, never a physical block number: evicting the
 * parent frees its number for other contents, and a lookup that reaches the stale child through
 * the new contents must miss. Every hash collides, so only the parent comparison can tell. */
MM_TEST(test_prefix_stale_parent_never_matches)
{
    kv_cache_t *c = open_cache(4, 2, true, KV_HASH_COLLIDE);
    kv_token_t x[2] = { 1, 2 }, w[2] = { 7, 7 }, z[2] = { 9, 9 }, zy[4] = { 9, 9, 3, 4 };
    MM_ASSERT_OK(kv_seq_free(c, add_seq(c, x, 2))); /* X registered in block 0, then cached */
    int32_t d = add_seq(c, x, 1);
    append_all(c, d, (kv_token_t[]){ 2, 3, 4 }, 3); /* X again (a private copy), then Y */
    TABLE(c, d, "X filled by kv_append (a duplicate of cached block 0), then Y after X", 1, 2);
    int32_t e = add_seq(c, w, 2), f = add_seq(c, z, 2);
    TABLE(c, f, "free queue empty: X (block 0) evicted, its number reused for Z", 0);
    MM_ASSERT_OK(kv_seq_free(c, e)); /* W (block 3) to the LRU list */
    int64_t need = kv_blocks_needed(c, zy, 4);
    ck_assert_msg(need == 1, "Z Y: Z is found (block 0), but Y (block 2) was registered after X, "
                  "whose block 0 was evicted: kv_blocks_needed must say 1 (Y new), got %lld",
                  (long long)need);
    int32_t g = add_seq(c, zy, 4);
    TABLE(c, g, "Z Y: block 2's parent is X's identity, not Z's, though both were block 0", 0,
          3);
    kv_stats_t st = stats_of(c);
    ck_assert_msg(kv_block_ref(c, 2) == 1 && st.prefix_hits == 1 && st.evictions == 2,
                  "block 2 not shared (count %d, expected 1), 1 hit (got %llu), 2 evictions (X "
                  "and W; got %llu)", kv_block_ref(c, 2), (unsigned long long)st.prefix_hits,
                  (unsigned long long)st.evictions);
    kv_destroy(c);
}
MM_END_TEST

/* kv_blocks_needed says exactly how many blocks kv_seq_add takes, on random prompts made of a
 * few shared prefixes. */
MM_TEST(test_blocks_needed_matches_use)
{
    mm_rng_t r = MM_RNG();
    kv_cache_t *c = open_cache(64, 4, true, KV_HASH_DEFAULT);
    kv_token_t pre[3][24], prompt[40];
    int32_t live[16];
    int nlive = 0;
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 24; i++)
            pre[k][i] = (kv_token_t)mm_rng_range(&r, 0, 31999);
    for (int op = 0; op < 600; op++) {
        if (nlive == 16 || (nlive > 0 && mm_rng_range(&r, 0, 2) == 0)) {
            int k = (int)mm_rng_range(&r, 0, (uint64_t)nlive - 1);
            MM_ASSERT_OK(kv_seq_free(c, live[k]));
            live[k] = live[--nlive];
            continue;
        }
        uint32_t plen = (uint32_t)mm_rng_range(&r, 0, 24), n = plen + (uint32_t)mm_rng_range(&r, 0, 16);
        memcpy(prompt, pre[mm_rng_range(&r, 0, 2)], plen * sizeof *prompt);
        for (uint32_t i = plen; i < n; i++)
            prompt[i] = (kv_token_t)mm_rng_range(&r, 0, 3); /* small alphabet: repeats */
        kv_stats_t st = stats_of(c);
        int64_t need = kv_blocks_needed(c, prompt, n);
        int32_t id;
        int rc = kv_seq_add(c, prompt, n, &id);
        kv_stats_t after = stats_of(c);
        uint32_t avail = st.free_blocks + st.cached_blocks;
        MM_CHECK(rc == (need <= avail ? 0 : -ENOMEM), "op %d: kv_seq_add returned %d with %lld "
                 "blocks needed and %u available", op, rc, (long long)need, avail);
        if (rc == 0) {
            MM_CHECK(avail - (after.free_blocks + after.cached_blocks) == need,
                     "op %d: kv_blocks_needed said %lld, kv_seq_add took %u", op,
                     (long long)need, avail - (after.free_blocks + after.cached_blocks));
            expect_tokens(c, id, prompt, n, "a random prompt");
            live[nlive++] = id;
        }
    }
    kv_destroy(c);
}
MM_END_TEST
