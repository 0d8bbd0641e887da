/* Lab 09's workloads (serve/kv_serve.h): public code that runs in the student's process, around
 * the student's cache and scheduler. What they return is the student's word: the tests and the
 * benchmark check all of it. */
#include "kv_serve.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "trace.h"

/* A hash under which every block collides (tests of exact identity comparison). */
static uint64_t hash_all_collide(uint64_t parent, const kv_token_t *tokens, uint32_t n)
{
    (void)parent;
    (void)tokens;
    (void)n;
    return 42;
}

/* kv_create with the hash the harness names. Returns 0 (kv_create's result in out), -EINVAL. */
int serve_kv_open(const void *in, size_t in_len, void *out, size_t out_len)
{
    kv_open_in_t a;
    kv_open_out_t r = { 0, 0, 0 };
    if (in_len != sizeof a || out_len != sizeof r)
        return -EINVAL;
    memcpy(&a, in, sizeof a);
    if (a.hash != KV_HASH_DEFAULT && a.hash != KV_HASH_COLLIDE)
        return -EINVAL;
    kv_config_t cfg = { a.num_blocks, a.block_size, a.prefix_caching != 0,
                        a.hash == KV_HASH_COLLIDE ? hash_all_collide : NULL };
    kv_cache_t *c = NULL;
    r.rc = kv_create(&c, &cfg);
    r.cache = (uint64_t)(uintptr_t)c;
    memcpy(out, &r, sizeof r);
    return 0;
}

/* Every block's count: out[b] = kv_block_ref(cache, b). Returns 0, or -EINVAL. */
int serve_kv_refs(const void *in, size_t in_len, void *out, size_t out_len)
{
    kv_refs_in_t a;
    if (in_len != sizeof a)
        return -EINVAL;
    memcpy(&a, in, sizeof a);
    if (out_len != (size_t)a.n * sizeof(int32_t))
        return -EINVAL;
    const kv_cache_t *c = (const kv_cache_t *)(uintptr_t)a.cache;
    for (uint32_t b = 0; b < a.n; b++) {
        int32_t v = kv_block_ref(c, b);
        memcpy((char *)out + b * sizeof v, &v, sizeof v);
    }
    return 0;
}

/* Several block tables at once (one call instead of one per sequence). */
int serve_kv_tables(const void *in, size_t in_len, void *out, size_t out_len)
{
    kv_tables_in_t a;
    if (in_len != sizeof a)
        return -EINVAL;
    memcpy(&a, in, sizeof a);
    size_t row = (size_t)a.cap + 1;
    if (a.n > KV_TABLES_MAX || a.cap > KV_MAX_SEQ_LEN || out_len != a.n * row * sizeof(uint32_t))
        return -EINVAL;
    const kv_cache_t *c = (const kv_cache_t *)(uintptr_t)a.cache;
    uint32_t *o = out;
    memset(o, 0xff, out_len);
    for (uint32_t k = 0; k < a.n; k++)
        o[k * row] = (uint32_t)kv_block_table(c, a.id[k], o + k * row + 1, a.cap);
    return 0;
}

/* What the model test checks after an operation, in one call (kv_serve.h, kv_state). */
int serve_kv_state(const void *in, size_t in_len, void *out, size_t out_len)
{
    kv_state_in_t a;
    if (in_len != sizeof a)
        return -EINVAL;
    memcpy(&a, in, sizeof a);
    size_t refs = (size_t)a.nblocks * sizeof(int32_t);
    size_t rows = (size_t)a.tables.n * ((size_t)a.tables.cap + 1) * sizeof(uint32_t);
    size_t toks = (size_t)a.read_cap * sizeof(kv_token_t);
    if (a.read_cap > KV_MAX_SEQ_LEN ||
        out_len != kv_state_size(a.nblocks, a.tables.n, a.tables.cap, a.read_cap))
        return -EINVAL;
    kv_state_head_t h = { 0, 0, 0, { 0 } };
    const kv_cache_t *c = (const kv_cache_t *)(uintptr_t)a.tables.cache;
    char *o = out;
    h.stats_rc = kv_get_stats(c, &h.stats);
    kv_refs_in_t r = { a.tables.cache, a.nblocks, 0 };
    int rc = serve_kv_refs(&r, sizeof r, o + sizeof h, refs);
    if (rc == 0)
        rc = serve_kv_tables(&a.tables, sizeof a.tables, o + sizeof h + refs, rows);
    kv_token_t *t = (kv_token_t *)(void *)(o + sizeof h + refs + rows);
    memset(t, 0xff, toks);
    if (rc == 0 && a.read_id >= 0)
        h.read_n = kv_read(c, a.read_id, t, a.read_cap);
    memcpy(o, &h, sizeof h);
    return rc;
}

/* Runs one operation of a kv_ops batch on the slots; returns the call's result. */
static int run_op(kv_cache_t *c, const kv_op_t *op, int32_t *slot, uint32_t nslots)
{
    if (op->s >= nslots || (op->kind == KV_OP_FORK && op->t >= nslots) || op->n > KV_OP_TOKENS)
        return -EINVAL;
    int32_t *id = &slot[op->s];
    int rc = 0;
    switch (op->kind) {
    case KV_OP_READ:
        break;
    case KV_OP_ADD:
        rc = kv_seq_add(c, op->n ? op->tok : NULL, op->n, id);
        break;
    case KV_OP_APPEND:
        rc = kv_append(c, *id, op->tok[0]);
        break;
    case KV_OP_FORK:
        rc = kv_fork(c, slot[op->t], id);
        break;
    case KV_OP_FREE:
        rc = kv_seq_free(c, *id);
        *id = -1;
        break;
    default:
        return -EINVAL;
    }
    return rc;
}

/* The operation log (kv_serve.h, kv_ops): each op, then the state after it. */
int serve_kv_ops(const void *in, size_t in_len, void *out, size_t out_len)
{
    kv_ops_in_t a;
    (void)out;
    if (in_len != sizeof a || out_len != 0)
        return -EINVAL;
    memcpy(&a, in, sizeof a);
    const kv_op_t *op = (const kv_op_t *)(uintptr_t)a.op;
    kv_op_res_t *res = (kv_op_res_t *)(uintptr_t)a.res;
    int32_t *slot = (int32_t *)(uintptr_t)a.slot;
    char *state = (char *)(uintptr_t)a.state;
    size_t size = kv_state_size(a.nblocks, a.ntab, a.cap, a.read_cap);
    if (a.n > INT32_MAX || (a.n && (!op || !res || !slot)) || a.ntab > a.nslots ||
        a.ntab > KV_TABLES_MAX || a.cap > KV_MAX_SEQ_LEN || a.read_cap > KV_MAX_SEQ_LEN)
        return -EINVAL;
    kv_cache_t *c = (kv_cache_t *)(uintptr_t)a.cache;
    kv_state_in_t q = { { a.cache, a.ntab, a.cap, { 0 } }, a.nblocks, a.read_cap, -1, 0 };
    for (uint32_t k = 0; k < a.n; k++) {
        res[k].rc = run_op(c, &op[k], slot, a.nslots);
        res[k].id = op[k].s < a.nslots ? slot[op[k].s] : -1;
        if (state) {
            memcpy(q.tables.id, slot, a.ntab * sizeof *slot);
            q.read_id = res[k].id;
            int rc = serve_kv_state(&q, sizeof q, state + k * size, size);
            if (rc != 0)
                return rc;
        }
        if (res[k].rc != 0)
            return (int)k + 1;
    }
    return (int)a.n;
}
