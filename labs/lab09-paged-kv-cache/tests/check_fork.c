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
enum { COW_SLOTS = 24, COW_LEN = 64, COW_OPS = 4000, COW_BATCH = 128 };

typedef struct {
    int32_t id[COW_SLOTS];
    uint32_t len[COW_SLOTS];
    kv_token_t tok[COW_SLOTS][COW_LEN];
} cow_model_t;

/* What the kv_ops workload writes after each op here: the op's slot's tokens. */
typedef struct {
    kv_state_head_t head;
    kv_token_t tok[COW_LEN];
} cow_state_t;

/* Plans a batch as if each op succeeds: random forks, frees and appends (plan[] each slot's
 * length, -1 when empty), then a read of every slot. Returns the ops planned. */
static uint32_t plan_cow(const cow_model_t *m, mm_rng_t *r, kv_op_t *op)
{
    int64_t plan[COW_SLOTS];
    uint32_t n = 0;
    for (int s = 0; s < COW_SLOTS; s++)
        plan[s] = m->id[s] < 0 ? -1 : (int64_t)m->len[s];
    for (; n < COW_BATCH - COW_SLOTS; n++) {
        uint32_t s = (uint32_t)mm_rng_range(r, 0, COW_SLOTS - 1);
        uint32_t t = (uint32_t)mm_rng_range(r, 0, COW_SLOTS - 1);
        uint64_t what = mm_rng_range(r, 0, 9);
        op[n] = (kv_op_t){ KV_OP_READ, s, t, 0, { 0 } };
        if (plan[s] < 0 && plan[t] >= 0) {
            op[n].kind = KV_OP_FORK;
            plan[s] = plan[t];
        } else if (plan[s] >= 0 && what == 0) {
            op[n].kind = KV_OP_FREE;
            plan[s] = -1;
        } else if (plan[s] >= 0 && plan[s] < COW_LEN) {
            op[n].kind = KV_OP_APPEND;
            op[n].tok[0] = (kv_token_t)mm_rng_range(r, 0, 31999);
            plan[s]++;
        }
    }
    for (uint32_t s = 0; s < COW_SLOTS; s++)
        op[n++] = (kv_op_t){ KV_OP_READ, s, s, 0, { 0 } };
    return n;
}

/* Checks op `at` (batch entry k) and applies it to the model: forks and frees must succeed, an
 * append may run out of blocks, and the op's slot must read its tokens after it. */
static void check_cow(cow_model_t *m, const kv_batch_t *b, uint32_t k, int at)
{
    const kv_op_t *op = &b->op[k];
    int rc = b->res[k].rc;
    uint32_t s = op->s;
    const cow_state_t *now = batch_state(b, k);
    MM_CHECK(rc == 0 || (op->kind == KV_OP_APPEND && rc == -ENOMEM), "op %d: %s returned %d "
             "(%s)", at, op->kind == KV_OP_FORK ? "kv_fork" : op->kind == KV_OP_FREE ?
             "kv_seq_free" : "kv_append", rc, strerror(-rc));
    if (op->kind == KV_OP_FORK) {
        m->id[s] = b->res[k].id;
        m->len[s] = m->len[op->t];
        memcpy(m->tok[s], m->tok[op->t], m->len[s] * sizeof(kv_token_t));
    } else if (op->kind == KV_OP_FREE) {
        m->id[s] = -1;
    } else if (op->kind == KV_OP_APPEND && rc == 0) {
        m->tok[s][m->len[s]++] = op->tok[0];
    }
    if (m->id[s] < 0)
        return;
    MM_CHECK(now->head.read_n == m->len[s], "op %d, random forks and appends: seq %d has %lld "
             "tokens, expected %u", at, m->id[s], (long long)now->head.read_n, m->len[s]);
    for (uint32_t i = 0; i < m->len[s]; i++)
        MM_CHECK(now->tok[i] == m->tok[s][i], "op %d, random forks and appends: seq %d reads %d "
                 "at position %u, expected %d", at, m->id[s], now->tok[i], i, m->tok[s][i]);
}

MM_TEST(test_cow_isolation_random)
{
    mm_rng_t r = MM_RNG();
    cow_model_t *m = calloc(1, sizeof *m);
    ck_assert_msg(m != NULL, "test out of memory");
    kv_cache_t *c = open_cache(96, 4, false, KV_HASH_DEFAULT);
    for (int s = 0; s < COW_SLOTS; s++)
        m->id[s] = -1;
    m->id[0] = add_seq(c, NULL, 0);
    kv_batch_t b;
    batch_open(&b, c, COW_BATCH, COW_SLOTS, 0, 0, 0, COW_LEN);
    MM_CHECK(b.state_size == sizeof(cow_state_t), "cow_state_t is not kv_state's layout");
    for (int done = 0; done < COW_OPS;) {
        uint32_t n = plan_cow(m, &r, b.op);
        int ran = batch_run(&b, m->id, n);
        for (uint32_t k = 0; k < (uint32_t)ran; k++)
            check_cow(m, &b, k, done + (int)k);
        done += ran;
    }
    batch_close(&b);
    kv_destroy(c);
    free(m);
}
MM_END_TEST
