/* Lab 09 tests: what the test files share: a cache that must open, calls that must succeed, and
 * checks of block tables, tokens and statistics with messages that say what was expected. The
 * student's code runs in a process of its own: caches are its handles (calls.toml). */
#ifndef KV_SUPPORT_H
#define KV_SUPPORT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kvcache.h"
#include "mm_check.h"
#include "../serve/kv_serve.h"

/* kv_create that must succeed, with the hash named (KV_HASH_DEFAULT: cfg.hash NULL). */
kv_cache_t *open_cache(uint32_t num_blocks, uint32_t block_size, bool prefix,
                       kv_hash_pick_t hash);
/* Every block's count at once: refs[b] = kv_block_ref(c, b) for b < n (the kv_refs workload). */
void block_refs(const kv_cache_t *c, int32_t *refs, uint32_t n);
/* kv_get_stats that must succeed. */
kv_stats_t stats_of(const kv_cache_t *c);
/* True when every field of a and b is equal (not memcmp: the struct may have padding). */
bool stats_equal(const kv_stats_t *a, const kv_stats_t *b);
/* Writes to buf the fields that differ, "name before -> after" each ("nothing" if none), for a
 * message; returns buf. */
const char *stats_diff(const kv_stats_t *before, const kv_stats_t *after, char *buf, size_t cap);
/* kv_seq_add / kv_fork that must succeed; return the new id. */
int32_t add_seq(kv_cache_t *c, const kv_token_t *prompt, uint32_t n);
int32_t fork_seq(kv_cache_t *c, int32_t parent);
/* kv_append of t (each of tok[0..n)) that must succeed. */
void append_tok(kv_cache_t *c, int32_t id, kv_token_t t);
void append_all(kv_cache_t *c, int32_t id, const kv_token_t *tok, uint32_t n);
/* Asserts that id's block table is want[0..n) (what: a line of context for the message). */
void expect_table(const kv_cache_t *c, int32_t id, const uint32_t *want, uint32_t n,
                  const char *what);
/* Asserts that kv_read of id gives exactly want[0..n). */
void expect_tokens(const kv_cache_t *c, int32_t id, const kv_token_t *want, uint32_t n,
                   const char *what);
/* Asserts free / cached / used block counts. */
void expect_counts(const kv_cache_t *c, uint32_t free_blocks, uint32_t cached, uint32_t used,
                   const char *what);
/* A batch of operations for the kv_ops workload (kv_serve.h): room for `max` ops, and each
 * op's state after it of the shape given (none when every size is 0). The arrays here are the
 * harness's own: batch_run copies op[] into memory shared with the student's process before the
 * call, and what that process wrote back into res[] and the states after it, so that nothing
 * the tests read can change under them (the shared arrays are in.op, in.res, in.slot, in.state). */
typedef struct {
    kv_ops_in_t in;
    kv_op_t *op;
    kv_op_res_t *res;
    char *state;
    size_t state_size;
    uint32_t max;
} kv_batch_t;
void batch_open(kv_batch_t *b, const kv_cache_t *c, uint32_t max, uint32_t nslots,
                uint32_t nblocks, uint32_t ntab, uint32_t cap, uint32_t read_cap);
/* Runs op[0..n) from slots id[0..nslots); returns how many ran (the last may have failed). */
int batch_run(kv_batch_t *b, const int32_t *id, uint32_t n);
/* Frees the harness's arrays (the shared ones end with the test). */
void batch_close(kv_batch_t *b);
/* The state after op k. */
static inline const void *batch_state(const kv_batch_t *b, uint32_t k)
{
    return b->state + k * b->state_size;
}

/* tok[i] = base + i for i < n (distinct, recognisable tokens). */
void iota(kv_token_t *tok, uint32_t n, kv_token_t base);

#define TABLE(c, id, what, ...)                                                        \
    do {                                                                               \
        const uint32_t want_[] = { __VA_ARGS__ };                                      \
        expect_table(c, id, want_, sizeof want_ / sizeof want_[0], what);              \
    } while (0)

#endif
