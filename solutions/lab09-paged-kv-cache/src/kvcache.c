/* Lab 09: the paged KV cache (include/kvcache.h): physical blocks with reference counts, a free
 * queue and an evictable LRU list, per-sequence block tables, copy on write, and the prefix
 * cache (a hash table of registered full blocks, compared exactly). */
#include "kvcache.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX

/* One physical block's header (its slots are in c->slots). */
typedef struct {
    uint32_t ref;          /* sequences whose table holds it */
    uint32_t filled;       /* slots written */
    uint32_t prev, next;   /* links in the free queue or the LRU list (count 0 only) */
    uint32_t hnext;        /* next registered block in the same hash bucket */
    bool registered;
    uint64_t hash;         /* when registered: the chained hash of its tokens */
    uint64_t serial;       /* when registered: its identity, unique for the cache's life */
    uint64_t parent;       /* when registered: the identity of the full block before it */
} block_t;

typedef struct {
    uint32_t head, tail, count;
} queue_t;

typedef struct {
    bool live;
    uint32_t len, nblocks, cap;
    uint32_t *table;
    uint64_t chain_serial; /* identity of its last full block (0: none) */
    uint64_t chain_hash;   /* hash of its last full block (0: none) */
} seq_t;

struct kv_cache {
    uint32_t nb, bs;
    bool prefix;
    kv_hash_fn hash;
    block_t *blk;
    kv_token_t *slots;
    queue_t freeq, lru;
    uint32_t *bucket, mask;
    seq_t seq[KV_MAX_SEQS];
    uint32_t nseqs;
    uint64_t next_serial;
    uint64_t queries, hits, cow, evictions;
};

/* ---- queues (doubly linked through the block headers) ---------------------------------- */

static void q_push(kv_cache_t *c, queue_t *q, uint32_t b)
{
    c->blk[b].prev = q->tail;
    c->blk[b].next = NIL;
    if (q->tail != NIL)
        c->blk[q->tail].next = b;
    else
        q->head = b;
    q->tail = b;
    q->count++;
}

static void q_remove(kv_cache_t *c, queue_t *q, uint32_t b)
{
    block_t *x = &c->blk[b];
    if (x->prev != NIL)
        c->blk[x->prev].next = x->next;
    else
        q->head = x->next;
    if (x->next != NIL)
        c->blk[x->next].prev = x->prev;
    else
        q->tail = x->prev;
    x->prev = x->next = NIL;
    q->count--;
}

/* ---- the prefix cache's hash table ------------------------------------------------------- */

static kv_token_t *slots_of(const kv_cache_t *c, uint32_t b)
{
    return c->slots + (size_t)b * c->bs;
}

/* The registered block with this identity (hash is its index), or NIL. */
static uint32_t find(const kv_cache_t *c, uint64_t hash, uint64_t parent, const kv_token_t *tok)
{
    for (uint32_t b = c->bucket[hash & c->mask]; b != NIL; b = c->blk[b].hnext) {
        const block_t *x = &c->blk[b];
        if (x->hash == hash && x->parent == parent &&
            memcmp(slots_of(c, b), tok, c->bs * sizeof *tok) == 0)
            return b;
    }
    return NIL;
}

static void register_block(kv_cache_t *c, uint32_t b, uint64_t hash, uint64_t parent)
{
    block_t *x = &c->blk[b];
    x->registered = true;
    x->hash = hash;
    x->serial = ++c->next_serial;
    x->parent = parent;
    x->hnext = c->bucket[hash & c->mask];
    c->bucket[hash & c->mask] = b;
}

static void unregister_block(kv_cache_t *c, uint32_t b)
{
    uint32_t *link = &c->bucket[c->blk[b].hash & c->mask];
    while (*link != b)
        link = &c->blk[*link].hnext;
    *link = c->blk[b].hnext;
    c->blk[b].registered = false;
}

/* A sequence's block b has just become full: register it, or adopt the identity of the
 * registered block that has the same one. */
static void on_full(kv_cache_t *c, seq_t *s, uint32_t b)
{
    if (!c->prefix)
        return;
    uint64_t h = c->hash(s->chain_hash, slots_of(c, b), c->bs);
    uint32_t e = find(c, h, s->chain_serial, slots_of(c, b));
    if (e == NIL) {
        register_block(c, b, h, s->chain_serial);
        e = b;
    }
    s->chain_serial = c->blk[e].serial;
    s->chain_hash = h;
}

/* ---- blocks ------------------------------------------------------------------------------ */

/* A block for new contents (count 1, empty): the free queue's head, else the LRU head
 * (evicted), else NIL. */
static uint32_t take_block(kv_cache_t *c)
{
    uint32_t b = c->freeq.head;
    if (b != NIL) {
        q_remove(c, &c->freeq, b);
    } else if ((b = c->lru.head) != NIL) {
        q_remove(c, &c->lru, b);
        unregister_block(c, b);
        c->evictions++;
    } else {
        return NIL;
    }
    c->blk[b].ref = 1;
    c->blk[b].filled = 0;
    return b;
}

static void release_block(kv_cache_t *c, uint32_t b)
{
    if (--c->blk[b].ref == 0)
        q_push(c, c->blk[b].registered ? &c->lru : &c->freeq, b);
}

/* ---- sequences --------------------------------------------------------------------------- */

/* The live sequence id of c, or NULL (c NULL, id out of range or free); seen_seq for readers. */
static const seq_t *seen_seq(const kv_cache_t *c, int32_t id)
{
    if (!c || id < 0 || id >= KV_MAX_SEQS || !c->seq[id].live)
        return NULL;
    return &c->seq[id];
}

static seq_t *live_seq(kv_cache_t *c, int32_t id)
{
    return seen_seq(c, id) ? &c->seq[id] : NULL;
}

static int32_t lowest_free_id(const kv_cache_t *c)
{
    for (int32_t i = 0; i < KV_MAX_SEQS; i++)
        if (!c->seq[i].live)
            return i;
    return -1;
}

/* Makes room for `want` table entries; returns 0 or -ENOMEM. */
static int reserve_table(seq_t *s, uint32_t want)
{
    if (want <= s->cap)
        return 0;
    uint32_t cap = s->cap ? s->cap : 4;
    while (cap < want)
        cap *= 2;
    uint32_t *t = realloc(s->table, cap * sizeof *t);
    if (!t)
        return -ENOMEM;
    s->table = t;
    s->cap = cap;
    return 0;
}

/* Looks up the prompt's leading full blocks; writes them to out (may be NULL) and the number of
 * them with count 0 to *revive. Returns how many were found. */
static uint32_t match(const kv_cache_t *c, const kv_token_t *prompt, uint32_t n, uint32_t *out,
                      uint32_t *revive)
{
    uint32_t found = 0;
    uint64_t h = 0, serial = 0;
    *revive = 0;
    for (uint32_t i = 0; c->prefix && i < n / c->bs; i++, found++) {
        h = c->hash(h, prompt + (size_t)i * c->bs, c->bs);
        uint32_t b = find(c, h, serial, prompt + (size_t)i * c->bs);
        if (b == NIL)
            break;
        *revive += c->blk[b].ref == 0;
        serial = c->blk[b].serial;
        if (out)
            out[i] = b;
    }
    return found;
}

static uint32_t blocks_for(const kv_cache_t *c, uint32_t n)
{
    return n / c->bs + (n % c->bs != 0);
}

int64_t kv_blocks_needed(const kv_cache_t *c, const kv_token_t *prompt, uint32_t n)
{
    if (!c || (!prompt && n > 0) || n > KV_MAX_SEQ_LEN)
        return -EINVAL;
    uint32_t revive, hits = match(c, prompt, n, NULL, &revive);
    return (int64_t)blocks_for(c, n) - hits + revive;
}

/* Writes token t at the end of s, whose last block has room and is its own. */
static void put_token(kv_cache_t *c, seq_t *s, kv_token_t t)
{
    uint32_t b = s->table[s->nblocks - 1];
    slots_of(c, b)[s->len % c->bs] = t;
    s->len++;
    if (++c->blk[b].filled == c->bs)
        on_full(c, s, b);
}

int kv_seq_add(kv_cache_t *c, const kv_token_t *prompt, uint32_t n, int32_t *id)
{
    if (!c || !id || (!prompt && n > 0) || n > KV_MAX_SEQ_LEN)
        return -EINVAL;
    int32_t i = lowest_free_id(c);
    if (i < 0)
        return -ENOSPC;
    seq_t *s = &c->seq[i];
    *s = (seq_t){ 0 };
    if (reserve_table(s, blocks_for(c, n)))
        return -ENOMEM;
    uint32_t revive, hits = match(c, prompt, n, s->table, &revive);
    if (blocks_for(c, n) - hits + revive > c->freeq.count + c->lru.count) {
        free(s->table);
        *s = (seq_t){ 0 };
        return -ENOMEM;
    }
    for (uint32_t k = 0; k < hits; k++) {
        block_t *x = &c->blk[s->table[k]];
        if (x->ref++ == 0)
            q_remove(c, &c->lru, s->table[k]);
        s->chain_serial = x->serial;
        s->chain_hash = x->hash;
    }
    s->live = true;
    s->nblocks = hits;
    s->len = hits * c->bs;
    for (uint32_t pos = s->len; pos < n; pos++) {
        if (pos % c->bs == 0)
            s->table[s->nblocks++] = take_block(c); /* counted above: cannot fail */
        put_token(c, s, prompt[pos]);
    }
    if (c->prefix) {
        c->queries += n / c->bs;
        c->hits += hits;
    }
    c->nseqs++;
    *id = i;
    return 0;
}

int kv_append(kv_cache_t *c, int32_t id, kv_token_t t)
{
    seq_t *s = live_seq(c, id);
    if (!s || s->len >= KV_MAX_SEQ_LEN)
        return -EINVAL;
    uint32_t used = s->len % c->bs;
    if (used == 0) {
        if (reserve_table(s, s->nblocks + 1))
            return -ENOMEM;
        uint32_t b = take_block(c);
        if (b == NIL)
            return -ENOMEM;
        s->table[s->nblocks++] = b;
    } else if (c->blk[s->table[s->nblocks - 1]].ref > 1) {
        uint32_t old = s->table[s->nblocks - 1], b = take_block(c);
        if (b == NIL)
            return -ENOMEM;
        memcpy(slots_of(c, b), slots_of(c, old), used * sizeof(kv_token_t));
        c->blk[b].filled = used;
        c->blk[old].ref--;
        s->table[s->nblocks - 1] = b;
        c->cow++;
    }
    put_token(c, s, t);
    return 0;
}

int kv_fork(kv_cache_t *c, int32_t parent, int32_t *child)
{
    seq_t *p = live_seq(c, parent);
    if (!p || !child)
        return -EINVAL;
    int32_t i = lowest_free_id(c);
    if (i < 0)
        return -ENOSPC;
    seq_t *s = &c->seq[i];
    *s = (seq_t){ 0 };
    if (reserve_table(s, p->nblocks))
        return -ENOMEM;
    for (uint32_t k = 0; k < p->nblocks; k++) {
        s->table[k] = p->table[k];
        c->blk[p->table[k]].ref++;
    }
    s->live = true;
    s->len = p->len;
    s->nblocks = p->nblocks;
    s->chain_serial = p->chain_serial;
    s->chain_hash = p->chain_hash;
    c->nseqs++;
    *child = i;
    return 0;
}

int kv_seq_free(kv_cache_t *c, int32_t id)
{
    seq_t *s = live_seq(c, id);
    if (!s)
        return -EINVAL;
    for (uint32_t k = s->nblocks; k-- > 0;)
        release_block(c, s->table[k]);
    free(s->table);
    *s = (seq_t){ 0 };
    c->nseqs--;
    return 0;
}

/* ---- queries ----------------------------------------------------------------------------- */

int64_t kv_seq_len(const kv_cache_t *c, int32_t id)
{
    const seq_t *s = seen_seq(c, id);
    return s ? (int64_t)s->len : -EINVAL;
}

int64_t kv_block_table(const kv_cache_t *c, int32_t id, uint32_t *out, uint32_t cap)
{
    const seq_t *s = seen_seq(c, id);
    if (!s || (!out && cap > 0))
        return -EINVAL;
    uint32_t n = s->nblocks < cap ? s->nblocks : cap;
    if (n)
        memcpy(out, s->table, n * sizeof *out);
    return s->nblocks;
}

int64_t kv_read(const kv_cache_t *c, int32_t id, kv_token_t *out, uint32_t cap)
{
    const seq_t *s = seen_seq(c, id);
    if (!s || (!out && cap > 0))
        return -EINVAL;
    uint32_t n = s->len < cap ? s->len : cap;
    for (uint32_t pos = 0, i = 0; pos < n; pos += c->bs, i++) /* block by block */
        memcpy(out + pos, slots_of(c, s->table[i]),
               (n - pos < c->bs ? n - pos : c->bs) * sizeof *out);
    return s->len;
}

int kv_block_ref(const kv_cache_t *c, uint32_t b)
{
    if (!c || b >= c->nb)
        return -EINVAL;
    return (int)c->blk[b].ref;
}

int kv_get_stats(const kv_cache_t *c, kv_stats_t *st)
{
    if (!c || !st)
        return -EINVAL;
    *st = (kv_stats_t){ .num_blocks = c->nb, .block_size = c->bs,
                        .free_blocks = c->freeq.count, .cached_blocks = c->lru.count,
                        .seqs = c->nseqs, .prefix_queries = c->queries,
                        .prefix_hits = c->hits, .cow_copies = c->cow,
                        .evictions = c->evictions };
    st->used_blocks = c->nb - c->freeq.count - c->lru.count;
    st->slots_reserved = (uint64_t)st->used_blocks * c->bs;
    for (uint32_t b = 0; b < c->nb; b++) {
        st->shared_blocks += c->blk[b].ref >= 2;
        st->slots_used += c->blk[b].ref ? c->blk[b].filled : 0;
    }
    for (int32_t i = 0; i < KV_MAX_SEQS; i++) {
        st->logical_blocks += c->seq[i].nblocks;
        st->tokens += c->seq[i].len;
    }
    return 0;
}

/* ---- life -------------------------------------------------------------------------------- */

int kv_create(kv_cache_t **out, const kv_config_t *cfg)
{
    if (!out || !cfg || cfg->num_blocks == 0 || cfg->num_blocks > KV_MAX_BLOCKS ||
        cfg->block_size == 0 || cfg->block_size > KV_MAX_BLOCK_SIZE)
        return -EINVAL;
    kv_cache_t *c = calloc(1, sizeof *c);
    if (!c)
        return -ENOMEM;
    c->nb = cfg->num_blocks;
    c->bs = cfg->block_size;
    c->prefix = cfg->prefix_caching;
    c->hash = cfg->hash ? cfg->hash : kv_hash_default;
    uint32_t nbuckets = 1;
    while (nbuckets < c->nb)
        nbuckets *= 2;
    c->mask = nbuckets - 1;
    c->blk = calloc(c->nb, sizeof *c->blk);
    c->slots = calloc((size_t)c->nb * c->bs, sizeof *c->slots);
    c->bucket = malloc(nbuckets * sizeof *c->bucket);
    if (!c->blk || !c->slots || !c->bucket) {
        kv_destroy(c);
        return -ENOMEM;
    }
    memset(c->bucket, 0xff, nbuckets * sizeof *c->bucket);
    c->freeq = c->lru = (queue_t){ NIL, NIL, 0 };
    for (uint32_t b = 0; b < c->nb; b++)
        q_push(c, &c->freeq, b);
    *out = c;
    return 0;
}

void kv_destroy(kv_cache_t *c)
{
    if (!c)
        return;
    for (int32_t i = 0; i < KV_MAX_SEQS; i++)
        free(c->seq[i].table);
    free(c->blk);
    free(c->slots);
    free(c->bucket);
    free(c);
}
