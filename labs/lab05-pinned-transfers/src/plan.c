/* Lab 05, part B: the chunk planner (contract in include/plan.h).
 * Background and hints: labs/lab05-pinned-transfers/README.md, `make hint LAB=05`. */
#include "plan.h"
#include <errno.h>
#include <stdlib.h>

int pt_plan_make(const pt_plan_req_t *req, pt_plan_t *out)
{
    /* ===== YOUR CODE HERE =====
     * 1. Check every field of *req against plan.h (-EINVAL); nothing is written on failure.
     * 2. chunk = min(max_chunk, budget / slots), rounded down to a multiple of align
     *    (-ENOSPC if that is 0 or below min_chunk); n = total / chunk, rounded up (-E2BIG).
     * 3. malloc n chunks; chunk i: offset i * chunk, stream i % streams, slot i % slots,
     *    wait i - slots (or -1). Fill *out last. */
    (void)req, (void)out;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

void pt_plan_free(pt_plan_t *plan)
{
    /* ===== YOUR CODE HERE ===== */
    (void)plan;
    /* ===== END YOUR CODE ===== */
}

int pt_plan_choose(size_t total, size_t elem, size_t budget, pt_plan_req_t *req)
{
    /* ===== YOUR CODE HERE =====
     * Check the arguments, then pick streams, slots, align, min_chunk and max_chunk for a
     * transfer of `total` bytes. How many chunks must be in flight at once to keep three engines
     * busy? How long must a chunk be for its fixed cost (a few microseconds) not to matter?
     * The benchmark simulates your plan for 256 MiB with a 64 MiB budget (README, section 5). */
    (void)total, (void)elem, (void)budget, (void)req;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}
