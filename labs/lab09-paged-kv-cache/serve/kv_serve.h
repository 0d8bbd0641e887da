/* Lab 09: what the harness (tests/, bench/) and the lab's serve code (serve/, run in the
 * student's process) both know: the workloads' arguments and the replay log's layout. */
#ifndef KV_SERVE_H
#define KV_SERVE_H
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include "kvcache.h"
#include "scheduler.h"

/* The hashes a test can ask for by name (a function pointer cannot cross the boundary). */
typedef enum {
    KV_HASH_DEFAULT = 0, /* cfg.hash NULL: kv_hash_default */
    KV_HASH_COLLIDE = 1, /* every block hashes to 42: every lookup must compare exactly */
} kv_hash_pick_t;

/* kv_open: in kv_open_in_t, out kv_open_out_t; returns 0, or -EINVAL for an unknown hash. */
typedef struct {
    uint32_t num_blocks, block_size;
    uint32_t prefix_caching;
    uint32_t hash; /* kv_hash_pick_t */
} kv_open_in_t;
typedef struct {
    int32_t rc;       /* kv_create's result */
    uint32_t pad;
    uint64_t cache;   /* the handle it made (the student's pointer) */
} kv_open_out_t;

/* kv_refs: in kv_refs_in_t; out: n int32_t, kv_block_ref(cache, b) for b < n. Returns 0. */
typedef struct {
    uint64_t cache;
    uint32_t n, pad;
} kv_refs_in_t;

/* kv_tables: in kv_tables_in_t; out: n rows of 1 + cap uint32_t, row k the length of id[k]'s
 * block table (kv_block_table's result, as uint32_t: -EINVAL reads 0xffffffea) and its first
 * cap entries (what kv_block_table leaves unwritten reads 0xffffffff). Returns 0, or -EINVAL. */
#define KV_TABLES_MAX 64
typedef struct {
    uint64_t cache;
    uint32_t n, cap;
    int32_t id[KV_TABLES_MAX];
} kv_tables_in_t;

/* kv_state: after each operation of the model test, what it checks, in one call: kv_get_stats,
 * then the counts of blocks 0..nblocks-1 (as kv_refs), the block tables of tables.id (as
 * kv_tables), and kv_read(cache, read_id, read_cap tokens) when read_id >= 0. out: a
 * kv_state_head_t, then nblocks int32_t, then tables.n rows of 1 + tables.cap uint32_t, then
 * read_cap kv_token_t. Returns 0, or -EINVAL. */
typedef struct {
    kv_tables_in_t tables;
    uint32_t nblocks, read_cap;
    int32_t read_id, pad;
} kv_state_in_t;
typedef struct {
    int64_t read_n;          /* kv_read's result (0 when read_id < 0) */
    int32_t stats_rc, pad;   /* kv_get_stats's result */
    kv_stats_t stats;
} kv_state_head_t;

/* kv_ops: a batch of operations in one call, each on a slot (an index into slot[], which holds a
 * sequence's id or -1), run in order until one returns non-zero: the model tests' operation log.
 * After op k, res[k] is its result and the id its slot then holds (what kv_seq_add or kv_fork
 * wrote; -1 after kv_seq_free), and, when state is not 0, state + k * (the kv_state size of
 * nblocks, ntab, cap, read_cap) holds the kv_state after it, of tables slot[0..ntab) and tokens
 * of the op's slot (none when it holds -1). Every array is shared memory (mm_shared_alloc); slot[]
 * is updated as the ops run. Returns the ops run (the one that failed included), or -EINVAL
 * (nothing run). */
typedef enum {
    KV_OP_READ = 0,   /* no call: the state after it reads slot s */
    KV_OP_ADD = 1,    /* kv_seq_add(prompt tok[0..n)) into slot s (tok NULL when n is 0) */
    KV_OP_APPEND = 2, /* kv_append(slot s, tok[0]) */
    KV_OP_FORK = 3,   /* kv_fork(slot t) into slot s */
    KV_OP_FREE = 4,   /* kv_seq_free(slot s); slot s then holds -1 */
} kv_op_kind_t;
#define KV_OP_TOKENS 96
typedef struct {
    uint32_t kind, s, t, n;
    kv_token_t tok[KV_OP_TOKENS];
} kv_op_t;
typedef struct {
    int32_t rc, id;
} kv_op_res_t;
typedef struct {
    uint64_t cache;
    uint64_t op, res, slot, state; /* n kv_op_t, n kv_op_res_t, nslots int32_t, states or 0 */
    uint32_t n, nslots;
    uint32_t nblocks, ntab, cap, read_cap; /* each state's shape, as kv_state's */
} kv_ops_in_t;

/* One kv_state answer's size: a head, nblocks counts, ntab rows of 1 + cap, read_cap tokens. */
static inline size_t kv_state_size(uint32_t nblocks, uint32_t ntab, uint32_t cap,
                                   uint32_t read_cap)
{
    return sizeof(kv_state_head_t) + (size_t)nblocks * sizeof(int32_t) +
           (size_t)ntab * ((size_t)cap + 1) * sizeof(uint32_t) +
           (size_t)read_cap * sizeof(kv_token_t);
}

/* kv_replay: replays shipped trace `trace` (kv_trace_load) on a fresh cache of num_blocks blocks
 * of block_size tokens, prefix caching on, under a scheduler of max_seqs: one step after
 * another, submitting each request at its arrival step first, until the scheduler is idle.
 * `begin` starts a replay (ending any other); each call then runs steps until the log
 * (log[0..cap), shared memory) is full or max_steps more are done, and writes one record per
 * step (kv_rec_step_t), with the cache's statistics every stats_every steps (step 0 first) and
 * after the last step. The next call picks up where this one stopped (a step that did not fit
 * comes first). Returns the steps logged (>= 0), or a negative errno: -EINVAL (bad arguments,
 * no replay started), -ENOMEM, -ENOSPC (one step's record exceeds cap), or the scheduler's or
 * cache's own error (the replay is then over). */
typedef struct {
    uint32_t trace, begin;
    uint32_t num_blocks, block_size, max_seqs, max_steps;
    uint32_t stats_every, pad; /* 0 reads 1 */
    uint64_t log, cap; /* a shared buffer */
} kv_replay_in_t;
typedef struct {
    uint64_t used;   /* bytes of the log written */
    uint32_t done;   /* the scheduler is idle and every request was submitted */
    int32_t where;   /* for an error: 1 submit, 2 step, 3 a query of the cache */
} kv_replay_out_t;

/* One step's record: the step's result, the cache's statistics after it (the student's word:
 * shown, never scored; all zero in a step kv_replay's stats_every skips), then nseq live
 * sequences, ascending ids, each a kv_rec_seq_t followed by table[tfrom..tlen) (uint32_t) and
 * tokens[kfrom..len) (kv_token_t): what changed since the sequence's previous record (a sequence
 * not live in the previous step starts at 0). */
typedef struct {
    kv_step_t res;
    kv_stats_t st;
    uint32_t nseq, submitted; /* requests submitted so far, this step's included */
} kv_rec_step_t;
typedef struct {
    int32_t id;
    uint32_t len, tlen;
    uint32_t tfrom, kfrom;
} kv_rec_seq_t;

/* Grows *p (capacity *cap elements of sz bytes, doubling from 64) to hold n elements: the replay
 * and its checker both keep growing per-sequence arrays. 0, or -ENOMEM (*p left as it was). */
static inline int kv_grow(void **p, uint32_t *cap, uint32_t n, size_t sz)
{
    if (n <= *cap)
        return 0;
    uint32_t c = *cap ? *cap : 64;
    while (c < n)
        c *= 2;
    void *q = realloc(*p, (size_t)c * sz);
    if (!q)
        return -ENOMEM;
    *p = q;
    *cap = c;
    return 0;
}

#endif
