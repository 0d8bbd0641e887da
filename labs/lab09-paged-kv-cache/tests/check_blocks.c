/* Lab 09 tests, Part A: blocks, block tables, append, free, the queries and every error case,
 * without sharing (no fork, no prefix caching). */
#include <errno.h>
#include <stdlib.h>
#include "mm_call.h"
#include "support.h"

MM_TEST(test_create_bad_args)
{
    kv_cache_t *c = (kv_cache_t *)&c;
    kv_config_t ok = { 8, 16, false, NULL };
    kv_config_t bad[] = { { 0, 16, false, NULL }, { KV_MAX_BLOCKS + 1, 16, false, NULL },
                          { 8, 0, false, NULL }, { 8, KV_MAX_BLOCK_SIZE + 1, false, NULL } };
    MM_ASSERT_ERR(kv_create(NULL, &ok), -EINVAL);
    MM_ASSERT_ERR(kv_create(&c, NULL), -EINVAL);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        MM_ASSERT_ERR(kv_create(&c, &bad[i]), -EINVAL);
    ck_assert_msg(c == (kv_cache_t *)&c, "a failed kv_create must leave *out untouched");
    kv_destroy(NULL);
    c = open_cache(8, 16, false, KV_HASH_DEFAULT);
    kv_stats_t st = stats_of(c);
    ck_assert_msg(st.num_blocks == 8 && st.block_size == 16 && st.free_blocks == 8 &&
                  st.cached_blocks == 0 && st.used_blocks == 0 && st.seqs == 0 &&
                  st.slots_reserved == 0 && st.tokens == 0,
                  "a new cache: every block free, nothing else");
    kv_destroy(c);
}
MM_END_TEST

MM_TEST(test_append_takes_block_only_when_full)
{
    kv_cache_t *c = open_cache(8, 4, false, KV_HASH_DEFAULT);
    kv_token_t tok[9];
    iota(tok, 9, 100);
    int32_t a = add_seq(c, NULL, 0);
    expect_table(c, a, NULL, 0, "an empty sequence");
    append_tok(c, a, tok[0]);
    TABLE(c, a, "after 1 token", 0);
    append_all(c, a, tok + 1, 3);
    TABLE(c, a, "after 4 tokens (block 0 full, no new block yet)", 0);
    append_tok(c, a, tok[4]);
    TABLE(c, a, "after 5 tokens", 0, 1);
    append_all(c, a, tok + 5, 4);
    TABLE(c, a, "after 9 tokens", 0, 1, 2);
    expect_tokens(c, a, tok, 9, "after 9 appends");
    kv_stats_t st = stats_of(c);
    ck_assert_msg(st.used_blocks == 3 && st.free_blocks == 5 && st.slots_reserved == 12 &&
                  st.slots_used == 9 && st.tokens == 9 && st.logical_blocks == 3 &&
                  st.seqs == 1 && st.shared_blocks == 0,
                  "9 tokens in 4-token blocks: 3 blocks used, 12 slots reserved, 9 used "
                  "(got used %u, free %u, reserved %llu, used slots %llu)", st.used_blocks,
                  st.free_blocks, (unsigned long long)st.slots_reserved,
                  (unsigned long long)st.slots_used);
    ck_assert_msg(kv_seq_len(c, a) == 9, "kv_seq_len is 9");
    kv_destroy(c);
}
MM_END_TEST

MM_TEST(test_seq_add_fills_in_order)
{
    kv_cache_t *c = open_cache(8, 4, false, KV_HASH_DEFAULT);
    kv_token_t p[13], q[5];
    iota(p, 12, 1);
    p[12] = 99;
    iota(q, 5, 50);
    int32_t a = add_seq(c, p, 10), b = add_seq(c, q, 4);
    ck_assert_msg(a == 0 && b == 1, "ids are the lowest not in use: 0 then 1 (got %d, %d)", a,
                  b);
    TABLE(c, a, "a 10-token prompt in 4-token blocks", 0, 1, 2);
    TABLE(c, b, "a 4-token prompt after it", 3);
    append_tok(c, b, q[4]);
    TABLE(c, b, "one more token: a new block", 3, 4);
    append_all(c, a, p + 10, 2);
    TABLE(c, a, "tokens 11 and 12 fill block 2", 0, 1, 2);
    append_tok(c, a, p[12]);
    TABLE(c, a, "token 13 needs a block: the next in the free queue", 0, 1, 2, 5);
    expect_tokens(c, b, q, 5, "the second sequence");
    expect_tokens(c, a, p, 13, "the first sequence");
    kv_destroy(c);
}
MM_END_TEST

MM_TEST(test_free_releases_last_block_first)
{
    kv_cache_t *c = open_cache(6, 2, false, KV_HASH_DEFAULT);
    kv_token_t p[8];
    iota(p, 8, 1);
    int32_t a = add_seq(c, p, 6), b = add_seq(c, p, 2);
    TABLE(c, a, "6 tokens", 0, 1, 2);
    TABLE(c, b, "2 tokens", 3);
    MM_ASSERT_OK(kv_seq_free(c, a));
    expect_counts(c, 5, 0, 1, "after freeing the 3-block sequence");
    /* the free queue is now 4 5 2 1 0: a's blocks went to its tail, last logical block first */
    int32_t d = add_seq(c, p, 8);
    ck_assert_msg(d == 0, "the freed id 0 is reused (got %d)", d);
    TABLE(c, d, "8 tokens after the free: the free queue's order", 4, 5, 2, 1);
    MM_ASSERT_OK(kv_seq_free(c, b));
    MM_ASSERT_OK(kv_seq_free(c, d));
    expect_counts(c, 6, 0, 0, "everything freed");
    kv_destroy(c);
}
MM_END_TEST

MM_TEST(test_out_of_blocks_changes_nothing)
{
    kv_cache_t *c = open_cache(3, 4, false, KV_HASH_DEFAULT);
    kv_token_t p[13];
    iota(p, 13, 7);
    int32_t a = add_seq(c, p, 8), id = 77;
    kv_stats_t before = stats_of(c);
    MM_ASSERT_ERR(kv_seq_add(c, p, 9, &id), -ENOMEM);
    ck_assert_msg(id == 77, "a failed kv_seq_add must leave *id untouched");
    kv_stats_t after = stats_of(c);
    char diff[400];
    ck_assert_msg(stats_equal(&before, &after),
                  "a failed kv_seq_add must change no statistic; changed: %s",
                  stats_diff(&before, &after, diff, sizeof diff));
    append_all(c, a, p + 8, 4);
    TABLE(c, a, "12 tokens: three blocks", 0, 1, 2);
    MM_ASSERT_ERR(kv_append(c, a, 5), -ENOMEM);
    ck_assert_msg(kv_seq_len(c, a) == 12, "a failed kv_append must not change the length");
    TABLE(c, a, "after the failed append", 0, 1, 2);
    expect_tokens(c, a, p, 12, "after the failed append");
    int32_t e = add_seq(c, NULL, 0);
    MM_ASSERT_ERR(kv_append(c, e, 1), -ENOMEM);
    expect_table(c, e, NULL, 0, "an empty sequence whose first append failed");
    kv_destroy(c);
}
MM_END_TEST

MM_TEST(test_bad_ids_and_args)
{
    kv_cache_t *c = open_cache(4, 4, false, KV_HASH_DEFAULT);
    kv_token_t p[4] = { 1, 2, 3, 4 }, out[4];
    uint32_t tab[4];
    int32_t id = 5, a = add_seq(c, p, 3), gone = add_seq(c, p, 1);
    MM_ASSERT_OK(kv_seq_free(c, gone));
    MM_ASSERT_ERR(kv_seq_add(NULL, p, 1, &id), -EINVAL);
    MM_ASSERT_ERR(kv_seq_add(c, p, 1, NULL), -EINVAL);
    MM_ASSERT_ERR(kv_seq_add(c, NULL, 1, &id), -EINVAL);
    /* n tokens readable, shared: the call hands your process their address, not a copy */
    kv_token_t *big = mm_shared_alloc((KV_MAX_SEQ_LEN + 1) * sizeof *big);
    MM_ASSERT_ERR(kv_seq_add(c, big, KV_MAX_SEQ_LEN + 1, &id), -EINVAL);
    MM_ASSERT_ERR(kv_blocks_needed(NULL, p, 1), -EINVAL);
    MM_ASSERT_ERR(kv_blocks_needed(c, NULL, 1), -EINVAL);
    MM_ASSERT_ERR(kv_blocks_needed(c, big, KV_MAX_SEQ_LEN + 1), -EINVAL);
    int32_t bad[] = { -1, gone, 17, KV_MAX_SEQS, KV_MAX_SEQS + 5 };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        MM_ASSERT_ERR(kv_append(c, bad[i], 1), -EINVAL);
        MM_ASSERT_ERR(kv_fork(c, bad[i], &id), -EINVAL);
        MM_ASSERT_ERR(kv_seq_free(c, bad[i]), -EINVAL);
        MM_ASSERT_ERR(kv_seq_len(c, bad[i]), -EINVAL);
        MM_ASSERT_ERR(kv_block_table(c, bad[i], tab, 4), -EINVAL);
        MM_ASSERT_ERR(kv_read(c, bad[i], out, 4), -EINVAL);
    }
    MM_ASSERT_ERR(kv_append(NULL, a, 1), -EINVAL);
    MM_ASSERT_ERR(kv_fork(NULL, a, &id), -EINVAL);
    MM_ASSERT_ERR(kv_fork(c, a, NULL), -EINVAL);
    MM_ASSERT_ERR(kv_seq_free(NULL, a), -EINVAL);
    MM_ASSERT_ERR(kv_seq_len(NULL, a), -EINVAL);
    MM_ASSERT_ERR(kv_block_table(NULL, a, tab, 4), -EINVAL);
    MM_ASSERT_ERR(kv_block_table(c, a, NULL, 1), -EINVAL);
    MM_ASSERT_ERR(kv_read(NULL, a, out, 4), -EINVAL);
    MM_ASSERT_ERR(kv_read(c, a, NULL, 1), -EINVAL);
    MM_ASSERT_ERR(kv_block_ref(NULL, 0), -EINVAL);
    MM_ASSERT_ERR(kv_block_ref(c, 4), -EINVAL);
    MM_ASSERT_ERR(kv_get_stats(NULL, &(kv_stats_t){ 0 }), -EINVAL);
    MM_ASSERT_ERR(kv_get_stats(c, NULL), -EINVAL);
    ck_assert_msg(id == 5, "failed calls must leave *id untouched");
    ck_assert_msg(kv_block_table(c, a, NULL, 0) == 1 && kv_read(c, a, NULL, 0) == 3,
                  "with cap 0, out may be NULL: the length alone");
    ck_assert_msg(kv_block_ref(c, 0) == 1 && kv_block_ref(c, 1) == 0,
                  "block 0 is a's (count 1); block 1 was freed (count 0)");
    MM_ASSERT_ERR(kv_seq_free(c, gone), -EINVAL); /* double free */
    expect_tokens(c, a, p, 3, "after all those bad calls");
    kv_destroy(c);
}
MM_END_TEST

/* KV_MAX_SEQS adds of empty prompts in one batch (kv_ops), then one too many. */
MM_TEST(test_seq_ids_lowest_free)
{
    enum { N = KV_MAX_SEQS + 1 };
    static int32_t empty[N];
    kv_cache_t *c = open_cache(4, 4, false, KV_HASH_DEFAULT);
    kv_batch_t b;
    batch_open(&b, c, N, N, 0, 0, 0, 0);
    for (uint32_t k = 0; k < N; k++) {
        b.op[k] = (kv_op_t){ KV_OP_ADD, k, k, 0, { 0 } };
        empty[k] = -1;
    }
    int ran = batch_run(&b, empty, N);
    for (int32_t i = 0; i < ran && i < KV_MAX_SEQS; i++) {
        MM_CHECK(b.res[i].rc == 0, "kv_seq_add of sequence %d (an empty prompt) returned %d "
                 "(%s), expected 0", i, b.res[i].rc, strerror(-b.res[i].rc));
        MM_CHECK(b.res[i].id == i, "sequence %d got id %d: ids are the lowest not in use", i,
                 b.res[i].id);
    }
    MM_CHECK(b.res[N - 1].rc == -ENOSPC, "kv_seq_add with KV_MAX_SEQS sequences live returned "
             "%d, expected -ENOSPC", b.res[N - 1].rc);
    int32_t id = -1;
    MM_ASSERT_ERR(kv_fork(c, 0, &id), -ENOSPC);
    ck_assert_msg(stats_of(c).seqs == KV_MAX_SEQS, "KV_MAX_SEQS live sequences");
    MM_ASSERT_OK(kv_seq_free(c, 17));
    MM_ASSERT_OK(kv_seq_free(c, 3));
    ck_assert_msg(add_seq(c, NULL, 0) == 3 && fork_seq(c, 9) == 17,
                  "freed ids come back lowest first (3, then 17)");
    batch_close(&b);
    kv_destroy(c);
}
MM_END_TEST

MM_TEST(test_read_gathers_through_table)
{
    mm_rng_t r = MM_RNG();
    kv_cache_t *c = open_cache(256, 3, false, KV_HASH_DEFAULT);
    enum { SEQS = 6, LEN = 90 };
    kv_token_t want[SEQS][LEN], got[LEN + 1];
    int32_t id[SEQS];
    uint32_t len[SEQS] = { 0 };
    for (int s = 0; s < SEQS; s++)
        id[s] = add_seq(c, NULL, 0);
    for (int k = 0; k < SEQS * LEN; k++) { /* appends interleaved at random */
        int s = (int)mm_rng_range(&r, 0, SEQS - 1);
        while (len[s] == LEN)
            s = (s + 1) % SEQS;
        want[s][len[s]] = (kv_token_t)mm_rng_range(&r, 0, 31999);
        append_tok(c, id[s], want[s][len[s]++]);
    }
    for (int s = 0; s < SEQS; s++)
        expect_tokens(c, id[s], want[s], LEN, "interleaved appends");
    got[7] = -5;
    ck_assert_msg(kv_read(c, id[0], got, 7) == LEN && got[7] == -5 &&
                  memcmp(got, want[0], 7 * sizeof *got) == 0,
                  "kv_read with cap 7 writes 7 tokens and returns the whole length");
    uint32_t tab[4];
    tab[2] = 12345;
    ck_assert_msg(kv_block_table(c, id[1], tab, 2) == LEN / 3 && tab[2] == 12345,
                  "kv_block_table with cap 2 writes 2 entries and returns the whole length");
    kv_destroy(c);
}
MM_END_TEST
