/* Lab 05, part B: the chunk planner (contract in include/plan.h).
 * Background and hints: labs/lab05-pinned-transfers/README.md, `make hint LAB=05`. */
#include "plan.h"
#include <errno.h>
#include <stdlib.h>

static int is_pow2(size_t x)
{
    return x && (x & (x - 1)) == 0;
}

static int req_valid(const pt_plan_req_t *r)
{
    return r->total > 0 && is_pow2(r->elem) && r->elem <= PT_MAX_ELEM && r->total % r->elem == 0 &&
           is_pow2(r->align) && r->align % r->elem == 0 && r->min_chunk >= 1 &&
           r->max_chunk >= r->min_chunk && r->streams >= 1 && r->streams <= PT_MAX_STREAMS &&
           r->slots >= 1 && r->slots <= PT_MAX_SLOTS && r->budget > 0;
}

/* The chunk length of the rule: the largest multiple of align within both limits. */
static size_t chunk_len(const pt_plan_req_t *r)
{
    size_t c = r->max_chunk < r->budget / r->slots ? r->max_chunk : r->budget / r->slots;
    return c - c % r->align;
}

int pt_plan_make(const pt_plan_req_t *req, pt_plan_t *out)
{
    if (!req || !out || !req_valid(req))
        return -EINVAL;
    size_t c = chunk_len(req);
    if (c == 0 || c < req->min_chunk)
        return -ENOSPC;
    size_t n = req->total / c + (req->total % c != 0);
    if (n > PT_MAX_CHUNKS)
        return -E2BIG;
    pt_chunk_t *ch = malloc(n * sizeof *ch);
    if (!ch)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        size_t off = i * c;
        ch[i] = (pt_chunk_t){ .offset = off,
                              .len = req->total - off < c ? req->total - off : c,
                              .stream = (unsigned)(i % req->streams),
                              .slot = (unsigned)(i % req->slots),
                              .wait = i >= req->slots ? (long)(i - req->slots) : -1 };
    }
    *out = (pt_plan_t){ .total = req->total, .elem = req->elem, .chunk = c,
                        .slot_bytes = c < req->total ? c : req->total, .streams = req->streams,
                        .slots = req->slots, .n = n, .chunks = ch };
    return 0;
}

void pt_plan_free(pt_plan_t *plan)
{
    if (!plan)
        return;
    free(plan->chunks);
    *plan = (pt_plan_t){ 0 };
}

int pt_plan_choose(size_t total, size_t elem, size_t budget, pt_plan_req_t *req)
{
    if (!req || total == 0 || !is_pow2(elem) || elem > PT_MAX_ELEM || total % elem != 0)
        return -EINVAL;
    if (budget < PT_MIN_BUDGET)
        return -ENOSPC;
    /* Three stages (copy in, kernel, copy out) keep three chunks in flight: one slot and one
     * stream each. About 32 chunks make filling and draining the pipeline cheap; 1..8 MiB
     * keeps each copy long next to its fixed cost of a few microseconds. */
    size_t target = total / 32;
    target = target < (1u << 20) ? (1u << 20) : target > (8u << 20) ? (8u << 20) : target;
    *req = (pt_plan_req_t){ .total = total, .elem = elem, .align = 4096, .min_chunk = 4096,
                            .max_chunk = target, .streams = 3, .slots = 3, .budget = budget };
    return 0;
}
