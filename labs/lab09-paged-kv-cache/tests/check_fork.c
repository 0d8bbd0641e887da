/* Lab 09 tests, Part B: fork and copy on write. Writing one fork never changes the other. */
#include <errno.h>
#include <stdlib.h>
#include "support.h"

MM_TEST(test_fork_shares_every_block)
{
    kv_cache_t *c = open_cache(8, 4, false, KV_HASH_DEFAULT);
    kv_token_t p[6];
    iota(p, 6, 10);
    int32_t a = add_seq(c, p, 6), b = fork_seq(c, a);
    ck_assert_msg(b == 1, "the fork gets the lowest free id, 1 (got %d)", b);
    TABLE(c, b, "the fork", 0, 1);
    expect_tokens(c, b, p, 6, "the fork reads its parent's tokens");
    ck_assert_msg(kv_block_ref(c, 0) == 2 && kv_block_ref(c, 1) == 2, "each block counted twice");
    kv_stats_t st = stats_of(c);
    ck_assert_msg(st.used_blocks == 2 && st.shared_blocks == 2 && st.logical_blocks == 4 &&
                  st.tokens == 12 && st.slots_used == 6 && st.cow_copies == 0 && st.seqs == 2,
                  "a fork takes no block: 2 used (both shared), 4 logical, 12 tokens in 6 "
                  "physical slots (got used %u, shared %u, logical %llu, slots used %llu)",
                  st.used_blocks, st.shared_blocks, (unsigned long long)st.logical_blocks,
                  (unsigned long long)st.slots_used);
    kv_destroy(c);
}
MM_END_TEST

MM_TEST(test_cow_copies_shared_partial_block)
{
    kv_cache_t *c = open_cache(8, 4, false, KV_HASH_DEFAULT);
    kv_token_t p[8], q[8];
    iota(p, 8, 10);
    int32_t a = add_seq(c, p, 6), b = fork_seq(c, a);
    memcpy(q, p, sizeof p);
    q[6] = 500;
    append_tok(c, b, 500);
    TABLE(c, b, "the fork wrote into the shared partial block: copied first", 0, 2);
    TABLE(c, a, "the parent keeps its blocks", 0, 1);
    expect_tokens(c, b, q, 7, "the fork after its write");
    expect_tokens(c, a, p, 6, "the parent after the fork's write");
    ck_assert_msg(kv_block_ref(c, 0) == 2 && kv_block_ref(c, 1) == 1 && kv_block_ref(c, 2) == 1,
                  "counts: block 0 shared, 1 the parent's, 2 the fork's copy");
    ck_assert_msg(stats_of(c).cow_copies == 1, "one copy on write");
    p[6] = 600;
    append_tok(c, a, 600);
    TABLE(c, a, "the parent's block 1 is its own now: written in place", 0, 1);
    expect_tokens(c, a, p, 7, "the parent after its own write");
    expect_tokens(c, b, q, 7, "the fork after the parent's write");
    ck_assert_msg(stats_of(c).cow_copies == 1, "still one copy: the parent wrote its own block");
    kv_destroy(c);
}
MM_END_TEST

MM_TEST(test_fork_full_last_block_no_copy)
{
    kv_cache_t *c = open_cache(8, 4, false, KV_HASH_DEFAULT);
    kv_token_t p[8];
    iota(p, 8, 1);
    int32_t a = add_seq(c, p, 8), b = fork_seq(c, a);
    append_tok(c, b, 70);
    append_tok(c, a, 80);
    TABLE(c, b, "full last block: the fork's next token goes to a new block", 0, 1, 2);
    TABLE(c, a, "and the parent's to another", 0, 1, 3);
    ck_assert_msg(stats_of(c).cow_copies == 0, "no copy: full blocks are never written");
    kv_destroy(c);
}
MM_END_TEST

MM_TEST(test_free_shared_keeps_other)
{
    kv_cache_t *c = open_cache(8, 4, false, KV_HASH_DEFAULT);
    kv_token_t p[6];
    iota(p, 6, 1);
    int32_t a = add_seq(c, p, 6), b = fork_seq(c, a);
    MM_ASSERT_OK(kv_seq_free(c, a));
    expect_counts(c, 6, 0, 2, "the parent freed, the fork still holds both blocks");
    expect_tokens(c, b, p, 6, "the fork after its parent was freed");
    append_tok(c, b, 9);
    TABLE(c, b, "the fork owns block 1 alone now: no copy", 0, 1);
    ck_assert_msg(stats_of(c).cow_copies == 0, "no copy after the other side was freed");
    MM_ASSERT_OK(kv_seq_free(c, b));
    expect_counts(c, 8, 0, 0, "both freed");
    kv_destroy(c);
}
MM_END_TEST

MM_TEST(test_cow_out_of_blocks)
{
    kv_cache_t *c = open_cache(2, 4, false, KV_HASH_DEFAULT);
    kv_token_t p[2] = { 1, 2 }, q[3] = { 1, 2, 3 };
    int32_t a = add_seq(c, p, 2), b = fork_seq(c, a), d = fork_seq(c, a);
    append_tok(c, b, 3);
    TABLE(c, b, "the first writer gets a copy", 1);
    MM_ASSERT_ERR(kv_append(c, d, 4), -ENOMEM);
    TABLE(c, d, "a copy on write with no block left fails and changes nothing", 0);
    expect_tokens(c, d, p, 2, "after the failed copy on write");
    expect_tokens(c, b, q, 3, "the other fork");
    ck_assert_msg(kv_block_ref(c, 0) == 2 && stats_of(c).cow_copies == 1,
                  "block 0 still shared by the parent and the failed fork; one copy made");
    kv_destroy(c);
}
MM_END_TEST

/* Random forks, appends and frees; every sequence must always read its own tokens. */
MM_TEST(test_cow_isolation_random)
{
    mm_rng_t r = MM_RNG();
    enum { SLOTS = 24, MAXLEN = 64, OPS = 4000 };
    kv_cache_t *c = open_cache(96, 4, false, KV_HASH_DEFAULT);
    kv_token_t want[SLOTS][MAXLEN];
    uint32_t len[SLOTS] = { 0 };
    int32_t id[SLOTS];
    for (int s = 0; s < SLOTS; s++)
        id[s] = -1;
    id[0] = add_seq(c, NULL, 0);
    for (int op = 0; op < OPS; op++) {
        int s = (int)mm_rng_range(&r, 0, SLOTS - 1), t = (int)mm_rng_range(&r, 0, SLOTS - 1);
        uint64_t what = mm_rng_range(&r, 0, 9);
        if (id[s] < 0) {
            if (id[t] >= 0) { /* fork t into slot s */
                id[s] = fork_seq(c, id[t]);
                len[s] = len[t];
                memcpy(want[s], want[t], len[t] * sizeof(kv_token_t));
            }
        } else if (what == 0) {
            MM_ASSERT_OK(kv_seq_free(c, id[s]));
            id[s] = -1;
        } else if (len[s] < MAXLEN) {
            kv_token_t tok = (kv_token_t)mm_rng_range(&r, 0, 31999);
            int rc = kv_append(c, id[s], tok);
            MM_CHECK(rc == 0 || rc == -ENOMEM, "op %d: kv_append returned %d", op, rc);
            if (rc == 0)
                want[s][len[s]++] = tok;
        }
        for (int k = 0; k < SLOTS; k++)
            if (id[k] >= 0 && (k == s || op % 97 == 0))
                expect_tokens(c, id[k], want[k], len[k], "random forks and appends");
    }
    kv_destroy(c);
}
MM_END_TEST
