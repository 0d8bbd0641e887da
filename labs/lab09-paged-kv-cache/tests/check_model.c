/* Lab 09 tests: a long random sequence of kv_seq_add, kv_append, kv_fork and kv_seq_free with
 * prefix caching on, against a model written here (each sequence's tokens), checking after every
 * operation what the model can tell: tokens read back, table lengths, reference counts equal to
 * the tables that hold each block, the statistics, and that a failed call changes nothing. */
#include <errno.h>
#include <stdlib.h>
#include "mm_call.h"
#include "../serve/kv_serve.h"
#include "support.h"

enum { SLOTS = 32, MAXLEN = 96, BS = 4, NBLOCKS = 160 };

typedef struct {
    kv_cache_t *c;
    int32_t id[SLOTS];
    uint32_t len[SLOTS];
    kv_token_t tok[SLOTS][MAXLEN];
    kv_token_t prefix[4][48];
} model_t;

enum { ROW = MAXLEN / BS + 2 }; /* a table's length, then its entries */

/* What the model checks after an operation (the kv_state the kv_ops workload writes after
 * each): the statistics, every block's count, every slot's block table (rows[s][0] its length,
 * rows[s][1..] its entries) and the op's slot's tokens. */
typedef struct {
    kv_state_head_t head;
    int32_t refs[NBLOCKS];
    uint32_t rows[SLOTS][ROW];
    kv_token_t tok[MAXLEN];
} state_t;

enum { BATCH = 200 }; /* ops per call of kv_ops */

/* Every block's count is the number of tables holding it; a shared block sits at the same
 * logical index everywhere; the statistics add up. */
static void check_all(const model_t *m, const state_t *now, int op)
{
    static int refs[NBLOCKS], at[NBLOCKS];
    static uint32_t filled[NBLOCKS];
    uint64_t logical = 0, tokens = 0, slots_used = 0;
    uint32_t seqs = 0, used = 0, shared = 0;
    memset(refs, 0, sizeof refs);
    for (int s = 0; s < SLOTS; s++) {
        if (m->id[s] < 0)
            continue;
        const uint32_t *tab = now->rows[s] + 1;
        int64_t n = (int32_t)now->rows[s][0];
        MM_CHECK(n == (m->len[s] + BS - 1) / BS, "op %d: seq %d has %lld blocks for %u tokens",
                 op, m->id[s], (long long)n, m->len[s]);
        for (int64_t i = 0; i < n; i++) {
            uint32_t b = tab[i];
            MM_CHECK(b < NBLOCKS, "op %d: block number %u out of range", op, b);
            MM_CHECK(refs[b] == 0 || at[b] == i, "op %d: block %u is logical block %d of one "
                     "table and %lld of another", op, b, at[b], (long long)i);
            refs[b]++;
            at[b] = (int)i;
            filled[b] = m->len[s] - (uint32_t)i * BS < BS ? m->len[s] - (uint32_t)i * BS : BS;
        }
        logical += (uint64_t)n;
        tokens += m->len[s];
        seqs++;
    }
    for (uint32_t b = 0; b < NBLOCKS; b++) {
        MM_CHECK(now->refs[b] == refs[b], "op %d: block %u has count %d, but %d tables hold it",
                 op, b, now->refs[b], refs[b]);
        used += refs[b] > 0;
        shared += refs[b] > 1;
        slots_used += refs[b] > 0 ? filled[b] : 0;
    }
    const kv_stats_t st = now->head.stats;
    MM_CHECK(st.used_blocks == used && st.shared_blocks == shared &&
             st.free_blocks + st.cached_blocks + st.used_blocks == NBLOCKS &&
             st.logical_blocks == logical && st.tokens == tokens && st.seqs == seqs &&
             st.slots_reserved == (uint64_t)used * BS && st.slots_used == slots_used &&
             st.prefix_hits <= st.prefix_queries,
             "op %d: statistics: used %u (want %u), shared %u (%u), free+cached+used %u (%u), "
             "logical %llu (%llu), tokens %llu (%llu), seqs %u (%u), slots used %llu (%llu)",
             op, st.used_blocks, used, st.shared_blocks, shared,
             st.free_blocks + st.cached_blocks + st.used_blocks, NBLOCKS,
             (unsigned long long)st.logical_blocks, (unsigned long long)logical,
             (unsigned long long)st.tokens, (unsigned long long)tokens, st.seqs, seqs,
             (unsigned long long)st.slots_used, (unsigned long long)slots_used);
}

static void check_seq(const model_t *m, const state_t *now, int s, int op)
{
    int64_t n = now->head.read_n;
    MM_CHECK(n == m->len[s], "op %d: seq %d has %lld tokens, the model %u", op, m->id[s],
             (long long)n, m->len[s]);
    for (uint32_t i = 0; i < m->len[s]; i++)
        MM_CHECK(now->tok[i] == m->tok[s][i], "op %d: seq %d reads %d at %u, the model %d", op,
                 m->id[s], now->tok[i], i, m->tok[s][i]);
}

/* A prompt: one of 4 prefixes cut at a random length, then tokens from a small alphabet. */
static uint32_t make_prompt(const model_t *m, mm_rng_t *r, kv_token_t *p)
{
    uint32_t cut = (uint32_t)mm_rng_range(r, 0, 48), n = cut + (uint32_t)mm_rng_range(r, 0, 20);
    memcpy(p, m->prefix[mm_rng_range(r, 0, 3)], cut * sizeof *p);
    for (uint32_t i = cut; i < n; i++)
        p[i] = (kv_token_t)mm_rng_range(r, 0, 2);
    return n;
}

/* Plans one random operation on slot s (or from t, for a fork) as if every earlier one in the
 * batch succeeds: plan[] is each slot's length, or -1 when it is empty. */
static void plan_op(const model_t *m, int64_t *plan, mm_rng_t *r, kv_op_t *op)
{
    uint32_t s = (uint32_t)mm_rng_range(r, 0, SLOTS - 1);
    uint32_t t = (uint32_t)mm_rng_range(r, 0, SLOTS - 1);
    *op = (kv_op_t){ KV_OP_APPEND, s, t, 0, { 0 } };
    if (plan[s] < 0 && plan[t] >= 0 && mm_rng_range(r, 0, 1)) {
        op->kind = KV_OP_FORK;
        plan[s] = plan[t];
    } else if (plan[s] < 0) {
        op->kind = KV_OP_ADD;
        op->n = make_prompt(m, r, op->tok);
        plan[s] = op->n;
    } else if (mm_rng_range(r, 0, 7) == 0 || plan[s] == MAXLEN) {
        op->kind = KV_OP_FREE;
        plan[s] = -1;
    } else {
        op->tok[0] = (kv_token_t)mm_rng_range(r, 0, 2);
        plan[s]++;
    }
}

static const char *const op_name[] = { "kv_read", "kv_seq_add", "kv_append", "kv_fork",
                                       "kv_seq_free" };

/* The model after an op that returned rc: the slot's new id, length and tokens. */
static void apply_op(model_t *m, const kv_op_t *op, const kv_op_res_t *res)
{
    uint32_t s = op->s, t = op->t;
    if (op->kind == KV_OP_FREE)
        m->id[s] = -1;
    if (res->rc != 0 || op->kind == KV_OP_FREE)
        return;
    if (op->kind == KV_OP_FORK) {
        m->len[s] = m->len[t];
        memcpy(m->tok[s], m->tok[t], m->len[t] * sizeof(kv_token_t));
    } else if (op->kind == KV_OP_ADD) {
        m->len[s] = op->n;
        memcpy(m->tok[s], op->tok, op->n * sizeof(kv_token_t));
    } else {
        m->tok[s][m->len[s]++] = op->tok[0];
    }
    if (op->kind != KV_OP_APPEND)
        m->id[s] = res->id;
}

/* Checks op number `at` (batch entry k) against the model, then applies it. */
static void check_op(model_t *m, const kv_batch_t *b, int k, int at, kv_stats_t *before)
{
    const kv_op_t *op = &b->op[k];
    const kv_op_res_t *res = &b->res[k];
    const state_t *now = batch_state(b, (uint32_t)k);
    const char *call = op_name[op->kind];
    int32_t was = m->id[op->s];
    MM_CHECK(res->rc == 0 || res->rc == -ENOMEM, "op %d: %s returned %d (%s), expected 0 or "
             "-ENOMEM", at, call, res->rc, strerror(-res->rc));
    MM_CHECK(now->head.stats_rc == 0, "op %d: kv_get_stats returned %d", at, now->head.stats_rc);
    if (res->rc == -ENOMEM) {
        char diff[400];
        MM_CHECK(stats_equal(before, &now->head.stats), "op %d: %s failed with -ENOMEM but "
                 "changed the statistics: %s", at, call,
                 stats_diff(before, &now->head.stats, diff, sizeof diff));
        MM_CHECK(res->id == was, "op %d: %s failed with -ENOMEM but wrote the id %d", at, call,
                 res->id);
    }
    apply_op(m, op, res);
    if (m->id[op->s] >= 0)
        check_seq(m, now, (int)op->s, at);
    check_all(m, now, at);
    *before = now->head.stats;
}

/* ops random operations, planned a batch at a time and run in one call each (kv_ops); a batch
 * stops at an op that fails, and the next is planned from the model after it. */
static void run_model(mm_rng_t *r, kv_hash_pick_t h, int ops)
{
    model_t *m = calloc(1, sizeof *m);
    ck_assert_msg(m != NULL, "test out of memory");
    m->c = open_cache(NBLOCKS, BS, true, h);
    for (int s = 0; s < SLOTS; s++)
        m->id[s] = -1;
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 48; i++)
            m->prefix[k][i] = (kv_token_t)mm_rng_range(r, 0, 2);
    kv_batch_t b;
    batch_open(&b, m->c, BATCH, SLOTS, NBLOCKS, SLOTS, ROW - 1, MAXLEN);
    MM_CHECK(b.state_size == sizeof(state_t), "state_t is not kv_state's layout");
    kv_stats_t before = stats_of(m->c); /* then each op's state's: the last before each op */
    for (int done = 0; done < ops;) {
        int64_t plan[SLOTS];
        int n = ops - done < BATCH ? ops - done : BATCH;
        for (int s = 0; s < SLOTS; s++)
            plan[s] = m->id[s] < 0 ? -1 : (int64_t)m->len[s];
        for (int k = 0; k < n; k++)
            plan_op(m, plan, r, &b.op[k]);
        int ran = batch_run(&b, m->id, (uint32_t)n);
        for (int k = 0; k < ran; k++)
            check_op(m, &b, k, done + k, &before);
        done += ran;
    }
    batch_close(&b);
    kv_destroy(m->c);
    free(m);
}

MM_TEST(test_random_ops_against_model)
{
    mm_rng_t r = MM_RNG();
    run_model(&r, KV_HASH_DEFAULT, 6000);
}
MM_END_TEST

MM_TEST(test_random_ops_colliding_hash)
{
    mm_rng_t r = MM_RNG();
    run_model(&r, KV_HASH_COLLIDE, 2000);
}
MM_END_TEST
