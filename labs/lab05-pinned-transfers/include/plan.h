/* Lab 05, part B: the chunk planner (pure host code). Cuts a transfer of `total` bytes into
 * aligned chunks, deals them round-robin over streams and buffer slots, and writes down, for
 * every chunk, which earlier chunk must finish before it may reuse its slot. */
#ifndef PT_PLAN_H
#define PT_PLAN_H
#include <stddef.h>

#define PT_MAX_STREAMS 8
#define PT_MAX_SLOTS 8
#define PT_MAX_ELEM 4096         /* largest element size, bytes */
#define PT_MAX_CHUNKS (1u << 20) /* most chunks one plan may hold */
#define PT_MIN_BUDGET (64u << 10) /* pt_plan_choose needs at least this much slot memory */

/* What to plan. Sizes in bytes. */
typedef struct {
    size_t total;     /* bytes to move: > 0, a multiple of elem */
    size_t elem;      /* element size: a power of two, 1..PT_MAX_ELEM */
    size_t align;     /* chunk offsets are multiples of align: a power of two, a multiple of elem */
    size_t min_chunk; /* no chunk shorter than this, except the last: >= 1 */
    size_t max_chunk; /* no chunk longer than this: >= min_chunk */
    unsigned streams; /* CUDA streams to spread the chunks over: 1..PT_MAX_STREAMS */
    unsigned slots;   /* buffer slots (one device buffer each): 1..PT_MAX_SLOTS */
    size_t budget;    /* the slots together may hold at most this many bytes: > 0 */
} pt_plan_req_t;

/* One chunk: bytes [offset, offset + len) go through buffer `slot` on stream `stream`. */
typedef struct {
    size_t offset, len;
    unsigned stream, slot;
    long wait; /* the earlier chunk that last used this slot: this chunk's copy in may start only
                * after that chunk's copy out has finished. -1: first use of the slot. */
} pt_chunk_t;

typedef struct {
    size_t total, elem;   /* copied from the request */
    size_t chunk;         /* length of every chunk but the last */
    size_t slot_bytes;    /* bytes each slot buffer must hold: the longest chunk */
    unsigned streams, slots;
    size_t n;             /* number of chunks */
    pt_chunk_t *chunks;   /* n chunks in issue order; owned by the plan */
} pt_plan_t;

/* Plans req into *out. The rule (so that every plan has one right answer):
 *  - chunk = the largest multiple of align that is <= max_chunk and <= budget / slots;
 *  - chunk i covers [i * chunk, min((i + 1) * chunk, total)): the chunks cover every byte of the
 *    transfer exactly once, in order; only the last may be shorter;
 *  - chunk i uses stream i % streams and slot i % slots, and waits for chunk i - slots (-1 for
 *    the first `slots` chunks): the previous user of its slot;
 *  - slot_bytes = min(chunk, total), so slots * slot_bytes <= budget.
 * Returns 0 and fills *out (free with pt_plan_free);
 *   -EINVAL: req or out is NULL or a field of req breaks the rules above its declaration;
 *   -ENOSPC: chunk would be 0 or shorter than min_chunk (the budget or max_chunk is too small);
 *   -E2BIG:  the plan needs more than PT_MAX_CHUNKS chunks;
 *   -ENOMEM: out of memory.
 * *out is untouched on failure. */
int pt_plan_make(const pt_plan_req_t *req, pt_plan_t *out);

/* Frees the chunks and zeroes *plan; NULL or an already freed plan is harmless. */
void pt_plan_free(pt_plan_t *plan);

/* Fills *req with a request that pipelines a transfer of `total` bytes of `elem`-byte elements
 * well, using at most `budget` bytes of slot memory: your choice of streams, slots, alignment
 * and chunk sizes (the benchmark grades how well the plan overlaps). The request must be one
 * that pt_plan_make accepts, with req->total == total, req->elem == elem and req->budget <=
 * budget. Returns 0;
 *   -EINVAL: req is NULL, total is 0, elem is not a power of two in 1..PT_MAX_ELEM or total is
 *            not a multiple of elem;
 *   -ENOSPC: budget < PT_MIN_BUDGET. */
int pt_plan_choose(size_t total, size_t elem, size_t budget, pt_plan_req_t *req);

#endif
