/* Lab 09: a paged KV cache, as an LLM server's block manager keeps it (vLLM's, simplified; where
 * this follows vLLM's v0 block manager, where its v1 KV-cache manager, and what is the lab's own:
 * README section 2.8).
 *
 * The simulated device memory is num_blocks physical blocks of block_size token slots each; a slot
 * holds one kv_token_t, which stands for that token's keys and values in every layer. A sequence
 * is a list of tokens; its block table maps logical block i (tokens i*block_size ..
 * (i+1)*block_size - 1) to a physical block. Physical blocks carry reference counts: a block can
 * be in several tables (forked sequences, shared prefixes) and is written only by a sole owner.
 *
 * Where blocks are (each block is in exactly one of three places):
 *   - in use: reference count >= 1, in one or more block tables;
 *   - free: count 0, in the FREE QUEUE (first in, first out; a new cache queues 0, 1, ..., N-1);
 *   - cached: count 0 but REGISTERED in the prefix cache (see below), in the EVICTABLE LRU list.
 * A block is taken from the head of the free queue; only when that is empty is the head of the
 * LRU list evicted (unregistered: it is then a plain new block). A block whose count drops to 0
 * goes to the tail of the LRU list if it is registered, else to the tail of the free queue.
 * (That is vLLM v0's evictor; v1 keeps one free queue in LRU order and evicts a cached block
 * when it reaches the head.)
 *
 * Prefix caching (config.prefix_caching): a FULL block has an identity: its block_size tokens and
 * the identity of the full block before it in its sequence (none for logical block 0). A block
 * that becomes full gets registered under its identity, unless a block with the same identity is
 * already registered (then it stays a private block; the sequence carries on with the registered
 * block's identity, so its next full block can still be registered). Registered blocks are found
 * by kv_seq_add: the prompt's leading full blocks whose identities are registered are shared
 * instead of filled. The hash, config.hash(parent hash, tokens, n) chained from parent hash 0, is
 * only an index to find candidates: identities are compared exactly (tokens and parent), so two
 * blocks whose hashes collide are never confused (the lab's choice: vLLM trusts its hash, and
 * recommends SHA-256 so that collisions are practically impossible). Only full blocks are
 * registered; a partial block is never shared through the cache.
 *
 * Contracts follow the project's style: the effect in one sentence, then one "-EXXX: condition"
 * per line. A call that fails changes nothing (no block, count, table, token or statistic). */
#ifndef KV_KVCACHE_H
#define KV_KVCACHE_H
#include <stdbool.h>
#include <stdint.h>

/* ---- compile-time limits ---------------------------------------------------------------- */
#define KV_MAX_BLOCKS (1u << 20)   /* num_blocks: 1 .. KV_MAX_BLOCKS */
#define KV_MAX_BLOCK_SIZE 65536u   /* block_size: 1 .. KV_MAX_BLOCK_SIZE tokens */
#define KV_MAX_SEQS 4096           /* live sequences at once; ids are 0 .. KV_MAX_SEQS - 1 */
#define KV_MAX_SEQ_LEN (1u << 24)  /* tokens in one sequence */

typedef int32_t kv_token_t;
typedef struct kv_cache kv_cache_t;

/* Hash of a full block: `parent` is the hash of the full block before it (0 for logical block
 * 0), tokens[0..n) its tokens. Any function will do for correctness (a constant one too). */
typedef uint64_t (*kv_hash_fn)(uint64_t parent, const kv_token_t *tokens, uint32_t n);
/* The default: FNV-1a over the parent hash and the tokens (src/support.c, provided). */
uint64_t kv_hash_default(uint64_t parent, const kv_token_t *tokens, uint32_t n);

typedef struct {
    uint32_t num_blocks;  /* physical blocks on the simulated device */
    uint32_t block_size;  /* token slots per block */
    bool prefix_caching;  /* register full blocks and share them across sequences */
    kv_hash_fn hash;      /* NULL: kv_hash_default */
} kv_config_t;

typedef struct {
    uint32_t num_blocks, block_size;  /* as created */
    uint32_t free_blocks;    /* in the free queue */
    uint32_t cached_blocks;  /* count 0, registered: in the evictable LRU list */
    uint32_t used_blocks;    /* count >= 1 (free + cached + used == num_blocks) */
    uint32_t shared_blocks;  /* count >= 2 */
    uint32_t seqs;           /* live sequences */
    uint64_t slots_reserved; /* used_blocks * block_size */
    uint64_t slots_used;     /* tokens written in the used blocks, each physical slot once */
    uint64_t logical_blocks; /* sum over live sequences of their block-table lengths */
    uint64_t tokens;         /* sum over live sequences of their lengths */
    uint64_t prefix_queries; /* full prompt blocks looked up by successful kv_seq_add calls
                                (stays 0 when prefix_caching is off: nothing is looked up) */
    uint64_t prefix_hits;    /* of those, blocks found in the cache (and shared); 0 when off */
    uint64_t cow_copies;     /* blocks copied because a shared partial block was written */
    uint64_t evictions;      /* registered blocks taken from the LRU list for new contents
                                (0 when prefix_caching is off: nothing is ever registered) */
} kv_stats_t;

/* Creates an empty cache: every block in the free queue (0 first), no sequence.
 *   -EINVAL: out or cfg NULL, num_blocks or block_size 0 or above its limit
 *   -ENOMEM: host memory for the cache (or the simulated device) could not be allocated */
int kv_create(kv_cache_t **out, const kv_config_t *cfg);
/* Frees the cache and everything in it; NULL is a no-op. */
void kv_destroy(kv_cache_t *c);

/* Adds a sequence holding prompt[0..n) and writes its id (the lowest id not in use) to *id.
 * With prefix caching, the prompt's full blocks are looked up from logical block 0 on and the
 * leading ones found are shared (count + 1, taken out of the LRU list if their count was 0), the
 * lookup stopping at the first block not found, and prefix_queries grows by n / block_size,
 * prefix_hits by the blocks shared. The rest of the prompt is filled into new blocks, in order
 * (registering each that is full). n may be 0 (a sequence with an empty table). Without prefix
 * caching nothing is looked up: prefix_queries and prefix_hits stay 0.
 *   -EINVAL: c, id NULL; prompt NULL with n > 0; n > KV_MAX_SEQ_LEN
 *   -ENOSPC: KV_MAX_SEQS sequences are live
 *   -ENOMEM: host memory for the new block table could not be allocated (nothing changed)
 *   -ENOMEM: fewer blocks in the free queue and the LRU list than kv_blocks_needed says */
int kv_seq_add(kv_cache_t *c, const kv_token_t *prompt, uint32_t n, int32_t *id);

/* The number of blocks kv_seq_add(c, prompt, n, ...) would take out of the free queue and the
 * LRU list together (new blocks, plus registered blocks it would share whose count is 0), now.
 * Changes nothing. Returns that number, or -EINVAL (as kv_seq_add). */
int64_t kv_blocks_needed(const kv_cache_t *c, const kv_token_t *prompt, uint32_t n);

/* Appends token t to sequence id. A new block is taken only when the sequence's length is a
 * multiple of block_size (its last block is full, or it has none). If the last block is partial
 * and shared (count >= 2), it is first copied into a new block that replaces it in this table
 * (copy on write: cow_copies + 1, the old block's count - 1); the other sequences keep the old
 * one unchanged. A block that becomes full is registered (prefix caching; see the top).
 *   -EINVAL: c NULL; id not a live sequence; the sequence already has KV_MAX_SEQ_LEN tokens
 *   -ENOMEM: a new block is needed (the length is a multiple of block_size) and host memory
 *            for the longer block table could not be allocated (nothing changed)
 *   -ENOMEM: a block is needed and the free queue and the LRU list are both empty */
int kv_append(kv_cache_t *c, int32_t id, kv_token_t t);

/* Adds a sequence that is a copy of `parent` (same tokens) and writes its id (the lowest not in
 * use) to *child. It shares every block of the parent's table (each count + 1); no block is
 * taken or copied. (vLLM v0's BlockTable.fork; v1 has no fork, see README section 2.4.)
 *   -EINVAL: c, child NULL; parent not a live sequence
 *   -ENOSPC: KV_MAX_SEQS sequences are live
 *   -ENOMEM: host memory for the child's block table could not be allocated (nothing changed) */
int kv_fork(kv_cache_t *c, int32_t parent, int32_t *child);

/* Ends sequence id: its blocks are released from its last logical block to its first (count - 1;
 * at 0, to the tail of the LRU list if registered, else of the free queue). The id can be reused.
 *   -EINVAL: c NULL; id not a live sequence */
int kv_seq_free(kv_cache_t *c, int32_t id);

/* The length in tokens of sequence id, or -EINVAL (c NULL, id not live). */
int64_t kv_seq_len(const kv_cache_t *c, int32_t id);

/* Copies up to cap entries of sequence id's block table (physical block numbers, logical block 0
 * first) to out, and returns the table's length (which may exceed cap: call again with more).
 *   -EINVAL: c NULL; id not live; out NULL with cap > 0 */
int64_t kv_block_table(const kv_cache_t *c, int32_t id, uint32_t *out, uint32_t cap);

/* Reads sequence id's tokens through its block table into out[0..min(len, cap)) (the gather a
 * paged attention kernel does) and returns the sequence's length.
 *   -EINVAL: c NULL; id not live; out NULL with cap > 0 */
int64_t kv_read(const kv_cache_t *c, int32_t id, kv_token_t *out, uint32_t cap);

/* The reference count of physical block b (0 for a free or cached block), or -EINVAL (c NULL,
 * b >= num_blocks). */
int kv_block_ref(const kv_cache_t *c, uint32_t b);

/* Fills *st (see kv_stats_t).   -EINVAL: c or st NULL */
int kv_get_stats(const kv_cache_t *c, kv_stats_t *st);

#endif
