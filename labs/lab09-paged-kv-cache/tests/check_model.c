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

/* What the model checks after an operation, read in one call (the kv_state workload): the
 * statistics, every block's count, every live slot's block table (rows[s][0] its length,
 * rows[s][1..] its entries) and slot `read`'s tokens (read < 0: none). */
typedef struct {
    kv_state_head_t head;
    int32_t refs[NBLOCKS];
    uint32_t rows[SLOTS][ROW];
    kv_token_t tok[MAXLEN];
} state_t;

static void state_of(const model_t *m, int read, state_t *st)
{
    kv_state_in_t in = { { (uint64_t)(uintptr_t)m->c, SLOTS, ROW - 1, { 0 } }, NBLOCKS, MAXLEN,
                         read >= 0 ? m->id[read] : -1, 0 };
    for (int s = 0; s < SLOTS; s++)
        in.tables.id[s] = m->id[s];
    int rc = mm_call_work("kv_state", &in, sizeof in, st, sizeof *st);
    MM_CHECK(rc == 0, "the kv_state workload returned %d", rc);
    MM_CHECK(st->head.stats_rc == 0, "kv_get_stats returned %d", st->head.stats_rc);
}

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

/* One random operation on slot s (or t, for a fork); returns the call's result and writes the
 * call's name to *call. */
static int one_op(model_t *m, mm_rng_t *r, int s, int t, const char **call)
{
    int rc = 0;
    if (m->id[s] < 0 && m->id[t] >= 0 && mm_rng_range(r, 0, 1)) {
        *call = "kv_fork";
        if ((rc = kv_fork(m->c, m->id[t], &m->id[s])) == 0) {
            m->len[s] = m->len[t];
            memcpy(m->tok[s], m->tok[t], m->len[t] * sizeof(kv_token_t));
        }
    } else if (m->id[s] < 0) {
        kv_token_t p[MAXLEN];
        uint32_t n = make_prompt(m, r, p);
        *call = "kv_seq_add";
        if ((rc = kv_seq_add(m->c, p, n, &m->id[s])) == 0) {
            m->len[s] = n;
            memcpy(m->tok[s], p, n * sizeof *p);
        }
    } else if (mm_rng_range(r, 0, 7) == 0 || m->len[s] == MAXLEN) {
        *call = "kv_seq_free";
        rc = kv_seq_free(m->c, m->id[s]);
        m->id[s] = -1;
    } else {
        kv_token_t tok = (kv_token_t)mm_rng_range(r, 0, 2);
        *call = "kv_append";
        if ((rc = kv_append(m->c, m->id[s], tok)) == 0)
            m->tok[s][m->len[s]++] = tok;
    }
    return rc;
}

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
    static state_t now;
    kv_stats_t before = stats_of(m->c); /* then each op's state's: the last before each op */
    for (int op = 0; op < ops; op++) {
        int s = (int)mm_rng_range(r, 0, SLOTS - 1), t = (int)mm_rng_range(r, 0, SLOTS - 1);
        int32_t was = m->id[s];
        const char *call = "?";
        int rc = one_op(m, r, s, t, &call);
        MM_CHECK(rc == 0 || rc == -ENOMEM, "op %d: %s returned %d (%s), expected 0 or -ENOMEM",
                 op, call, rc, strerror(-rc));
        state_of(m, m->id[s] >= 0 ? s : -1, &now);
        if (rc == -ENOMEM) {
            char diff[400];
            MM_CHECK(stats_equal(&before, &now.head.stats), "op %d: %s failed with -ENOMEM but "
                     "changed the statistics: %s", op, call,
                     stats_diff(&before, &now.head.stats, diff, sizeof diff));
            MM_CHECK(m->id[s] == was, "op %d: %s failed with -ENOMEM but wrote the id %d",
                     op, call, m->id[s]);
        }
        if (m->id[s] >= 0)
            check_seq(m, &now, s, op);
        check_all(m, &now, op);
        before = now.head.stats;
    }
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
