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
    if (a.read_cap > KV_MAX_SEQ_LEN || out_len != sizeof(kv_state_head_t) + refs + rows + toks)
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
