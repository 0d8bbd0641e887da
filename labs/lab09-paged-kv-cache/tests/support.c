/* Lab 09 tests: the helpers of support.h. */
#include "support.h"
#include <stdio.h>
#include <stdlib.h>
#include "mm_call.h"

/* As MM_ASSERT_OK, but records nothing when it passes: these helpers run in long loops. */
#define MUST(call)                                                                    \
    do {                                                                              \
        long must_rc_ = (long)(call);                                                 \
        MM_CHECK(must_rc_ == 0, "%s returned %ld (%s), expected 0 (success)", #call,  \
                 must_rc_, strerror((int)-must_rc_));                                 \
    } while (0)

kv_cache_t *open_cache(uint32_t num_blocks, uint32_t block_size, bool prefix,
                       kv_hash_pick_t hash)
{
    kv_open_in_t in = { num_blocks, block_size, prefix, hash };
    kv_open_out_t out = { -1, 0, 0 };
    MUST(mm_call_work("kv_open", &in, sizeof in, &out, sizeof out));
    MM_CHECK(out.rc == 0, "kv_create (%u blocks of %u, prefix caching %s) returned %d (%s), "
             "expected 0 (success)", num_blocks, block_size, prefix ? "on" : "off", out.rc,
             strerror(-out.rc));
    MM_CHECK(out.cache != 0, "kv_create returned 0 but no cache");
    return (kv_cache_t *)(uintptr_t)out.cache;
}

void block_refs(const kv_cache_t *c, int32_t *refs, uint32_t n)
{
    kv_refs_in_t in = { (uint64_t)(uintptr_t)c, n, 0 };
    MUST(mm_call_work("kv_refs", &in, sizeof in, refs, n * sizeof *refs));
}

kv_stats_t stats_of(const kv_cache_t *c)
{
    kv_stats_t st;
    MUST(kv_get_stats(c, &st));
    return st;
}

bool stats_equal(const kv_stats_t *a, const kv_stats_t *b)
{
    return a->num_blocks == b->num_blocks && a->block_size == b->block_size &&
           a->free_blocks == b->free_blocks && a->cached_blocks == b->cached_blocks &&
           a->used_blocks == b->used_blocks && a->shared_blocks == b->shared_blocks &&
           a->seqs == b->seqs && a->slots_reserved == b->slots_reserved &&
           a->slots_used == b->slots_used && a->logical_blocks == b->logical_blocks &&
           a->tokens == b->tokens && a->prefix_queries == b->prefix_queries &&
           a->prefix_hits == b->prefix_hits && a->cow_copies == b->cow_copies &&
           a->evictions == b->evictions;
}

const char *stats_diff(const kv_stats_t *before, const kv_stats_t *after, char *buf, size_t cap)
{
#define KV_FIELD(f) { #f, before->f, after->f }
    const struct {
        const char *name;
        uint64_t was, is;
    } f[] = { KV_FIELD(num_blocks), KV_FIELD(block_size), KV_FIELD(free_blocks),
              KV_FIELD(cached_blocks), KV_FIELD(used_blocks), KV_FIELD(shared_blocks),
              KV_FIELD(seqs), KV_FIELD(slots_reserved), KV_FIELD(slots_used),
              KV_FIELD(logical_blocks), KV_FIELD(tokens), KV_FIELD(prefix_queries),
              KV_FIELD(prefix_hits), KV_FIELD(cow_copies), KV_FIELD(evictions) };
#undef KV_FIELD
    size_t used = 0;
    snprintf(buf, cap, "nothing");
    for (size_t i = 0; i < sizeof f / sizeof f[0] && used + 1 < cap; i++)
        if (f[i].was != f[i].is) {
            int w = snprintf(buf + used, cap - used, "%s%s %llu -> %llu", used ? ", " : "",
                             f[i].name, (unsigned long long)f[i].was,
                             (unsigned long long)f[i].is);
            used += w > 0 ? (size_t)w : 0;
        }
    return buf;
}

int32_t add_seq(kv_cache_t *c, const kv_token_t *prompt, uint32_t n)
{
    int32_t id = -1;
    MUST(kv_seq_add(c, prompt, n, &id));
    return id;
}

int32_t fork_seq(kv_cache_t *c, int32_t parent)
{
    int32_t id = -1;
    MUST(kv_fork(c, parent, &id));
    return id;
}

void append_tok(kv_cache_t *c, int32_t id, kv_token_t t)
{
    int rc = kv_append(c, id, t);
    MM_CHECK(rc == 0, "kv_append(seq %d, %d) returned %d, expected 0", id, t, rc);
}

void append_all(kv_cache_t *c, int32_t id, const kv_token_t *tok, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        append_tok(c, id, tok[i]);
}

static void format_table(char *buf, size_t cap, const uint32_t *t, int64_t n)
{
    size_t used = 0;
    buf[0] = 0;
    for (int64_t i = 0; i < n && used + 16 < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%u", i ? " " : "", t[i]);
}

void expect_table(const kv_cache_t *c, int32_t id, const uint32_t *want, uint32_t n,
                  const char *what)
{
    uint32_t got[64];
    int64_t len = kv_block_table(c, id, got, 64);
    char gs[400], ws[400];
    format_table(gs, sizeof gs, got, len < 64 ? len : 64);
    format_table(ws, sizeof ws, want, n);
    MM_CHECK(len == (int64_t)n && (n == 0 || memcmp(got, want, n * sizeof *want) == 0),
                  "%s: seq %d's block table is [%s] (length %lld), expected [%s]", what, id, gs,
                  (long long)len, ws);
}

void expect_tokens(const kv_cache_t *c, int32_t id, const kv_token_t *want, uint32_t n,
                   const char *what)
{
    kv_token_t *got = calloc(n + 1, sizeof *got);
    MM_CHECK(got != NULL, "test out of memory");
    int64_t len = kv_read(c, id, got, n);
    MM_CHECK(len == (int64_t)n, "%s: seq %d has %lld tokens, expected %u", what, id,
                  (long long)len, n);
    for (uint32_t i = 0; i < n; i++)
        MM_CHECK(got[i] == want[i], "%s: seq %d reads %d at position %u, expected %d", what, id,
                 got[i], i, want[i]);
    free(got);
}

void expect_counts(const kv_cache_t *c, uint32_t free_blocks, uint32_t cached, uint32_t used,
                   const char *what)
{
    kv_stats_t st = stats_of(c);
    MM_CHECK(st.free_blocks == free_blocks && st.cached_blocks == cached &&
                  st.used_blocks == used,
                  "%s: free/cached/used blocks %u/%u/%u, expected %u/%u/%u", what,
                  st.free_blocks, st.cached_blocks, st.used_blocks, free_blocks, cached, used);
}

void iota(kv_token_t *tok, uint32_t n, kv_token_t base)
{
    for (uint32_t i = 0; i < n; i++)
        tok[i] = base + (kv_token_t)i;
}

void batch_open(kv_batch_t *b, const kv_cache_t *c, uint32_t max, uint32_t nslots,
                uint32_t nblocks, uint32_t ntab, uint32_t cap, uint32_t read_cap)
{
    size_t size = kv_state_size(nblocks, ntab, cap, read_cap);
    bool states = nblocks || ntab || cap || read_cap;
    b->op = calloc(max, sizeof *b->op);
    b->res = calloc(max, sizeof *b->res);
    b->state = states ? calloc(max, size) : NULL;
    MM_CHECK(b->op && b->res && (b->state || !states), "test out of memory");
    b->state_size = states ? size : 0;
    b->max = max;
    b->in = (kv_ops_in_t){ (uint64_t)(uintptr_t)c,
                           (uintptr_t)mm_shared_alloc(max * sizeof *b->op),
                           (uintptr_t)mm_shared_alloc(max * sizeof *b->res),
                           (uintptr_t)mm_shared_alloc(nslots * sizeof(int32_t)),
                           states ? (uintptr_t)mm_shared_alloc(max * size) : 0, 0, nslots,
                           nblocks, ntab, cap, read_cap };
}

int batch_run(kv_batch_t *b, const int32_t *id, uint32_t n)
{
    ck_assert_msg(n >= 1 && n <= b->max, "a batch of %u ops (room for %u)", n, b->max);
    memcpy((void *)(uintptr_t)b->in.op, b->op, n * sizeof *b->op);
    memcpy((void *)(uintptr_t)b->in.slot, id, b->in.nslots * sizeof *id);
    b->in.n = n;
    int ran = mm_call_work("kv_ops", &b->in, sizeof b->in, NULL, 0);
    MM_CHECK(ran >= 1 && (uint32_t)ran <= n, "the kv_ops workload returned %d for %u ops", ran,
             n);
    memcpy(b->res, (const void *)(uintptr_t)b->in.res, (size_t)ran * sizeof *b->res);
    if (b->state)
        memcpy(b->state, (const void *)(uintptr_t)b->in.state, (size_t)ran * b->state_size);
    return ran;
}

void batch_close(kv_batch_t *b)
{
    free(b->op);
    free(b->res);
    free(b->state);
}
