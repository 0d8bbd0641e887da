/* Lab 09, Parts A-C: the paged KV cache (include/kvcache.h): physical blocks with reference
 * counts, a free queue and an evictable LRU list, per-sequence block tables, copy on write, and
 * the prefix cache (registered full blocks found by hash, compared exactly).
 *
 * Part A: kv_create, kv_destroy, kv_seq_add (without prefix caching), kv_append (no sharing
 *         yet), kv_seq_free and the queries (kv_seq_len, kv_block_table, kv_read, kv_block_ref,
 *         kv_get_stats).
 * Part B: kv_fork and copy on write in kv_append.
 * Part C: prefix caching: registering full blocks, the lookup in kv_seq_add, kv_blocks_needed,
 *         the LRU list and eviction. */
#include "kvcache.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A sketch of the state; change it as you like (nothing outside this file sees it).
 *
 *   per physical block: its reference count, how many of its slots are written, links for the
 *     queue it is in (free queue or LRU list: a doubly linked list through the headers lets you
 *     take a block out of the middle of the LRU list when a prompt shares it again), and, when
 *     registered, its hash, its identity and its parent's identity, and a link to the next
 *     registered block of its hash bucket;
 *   per sequence: live or not, length, block table (a growable array), and what the next full
 *     block's registration needs (the identity and the hash of its last full block);
 *   the cache: the configuration, the block headers, the simulated device (num_blocks *
 *     block_size tokens), the two queues, the hash buckets, the sequences (KV_MAX_SEQS of them),
 *     a counter that gives identities, and the statistics' counters. */
struct kv_cache {
    kv_config_t cfg;
    /* YOUR CODE HERE */
};

int kv_create(kv_cache_t **out, const kv_config_t *cfg)
{
    (void)out;
    (void)cfg;
    /* YOUR CODE HERE (Part A): check the arguments, allocate the headers, the device and the
     * buckets, queue every block in the free queue, block 0 first. */
    return -ENOSYS;
}

void kv_destroy(kv_cache_t *c)
{
    /* YOUR CODE HERE (Part A) */
    free(c);
}

int64_t kv_blocks_needed(const kv_cache_t *c, const kv_token_t *prompt, uint32_t n)
{
    (void)c;
    (void)prompt;
    (void)n;
    /* YOUR CODE HERE (Part C; without prefix caching, the blocks that n tokens fill) */
    return -ENOSYS;
}

int kv_seq_add(kv_cache_t *c, const kv_token_t *prompt, uint32_t n, int32_t *id)
{
    (void)c;
    (void)prompt;
    (void)n;
    (void)id;
    /* YOUR CODE HERE (Part A; the prefix lookup is Part C). Check everything that can fail
     * BEFORE changing anything: a failed call changes nothing. */
    return -ENOSYS;
}

int kv_append(kv_cache_t *c, int32_t id, kv_token_t t)
{
    (void)c;
    (void)id;
    (void)t;
    /* YOUR CODE HERE (Part A; copy on write is Part B, registering a full block Part C) */
    return -ENOSYS;
}

int kv_fork(kv_cache_t *c, int32_t parent, int32_t *child)
{
    (void)c;
    (void)parent;
    (void)child;
    /* YOUR CODE HERE (Part B) */
    return -ENOSYS;
}

int kv_seq_free(kv_cache_t *c, int32_t id)
{
    (void)c;
    (void)id;
    /* YOUR CODE HERE (Part A; the LRU list is Part C) */
    return -ENOSYS;
}

int64_t kv_seq_len(const kv_cache_t *c, int32_t id)
{
    (void)c;
    (void)id;
    /* YOUR CODE HERE (Part A) */
    return -ENOSYS;
}

int64_t kv_block_table(const kv_cache_t *c, int32_t id, uint32_t *out, uint32_t cap)
{
    (void)c;
    (void)id;
    (void)out;
    (void)cap;
    /* YOUR CODE HERE (Part A) */
    return -ENOSYS;
}

int64_t kv_read(const kv_cache_t *c, int32_t id, kv_token_t *out, uint32_t cap)
{
    (void)c;
    (void)id;
    (void)out;
    (void)cap;
    /* YOUR CODE HERE (Part A): token pos of the sequence is in slot pos % block_size of the
     * physical block its table maps logical block pos / block_size to. */
    return -ENOSYS;
}

int kv_block_ref(const kv_cache_t *c, uint32_t b)
{
    (void)c;
    (void)b;
    /* YOUR CODE HERE (Part A) */
    return -ENOSYS;
}

int kv_get_stats(const kv_cache_t *c, kv_stats_t *st)
{
    (void)c;
    (void)st;
    /* YOUR CODE HERE (Part A) */
    return -ENOSYS;
}
