/* Lab 02, part B: Sattolo cycles, the pointer chase, the staircase and its knees (contracts in
 * include/chase.h). `make plots LAB=02` draws your staircase. */
#include "chase.h"
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "mm_bench.h" /* mm_median */
#include "mm_timer.h" /* mm_now_ns */
#include "walk.h"     /* el_pages_alloc, el_pages_free */

/* ===== YOUR CODE HERE (optional): extra #includes, your own types and static helpers ===== */

/* ===== END YOUR CODE ===== */

int el_sattolo(size_t *next, size_t n, mm_rng_t *rng)
{
    /* ===== YOUR CODE HERE =====
     * Start from the identity; for i = n-1 down to 1 swap next[i] with next[j], where
     * j = mm_rng_range(rng, 0, i - 1). (Drawing j from 0..i instead gives Fisher-Yates: a random
     * permutation, usually made of several shorter cycles.) */
    (void)next, (void)n, (void)rng;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int el_chase_ns(size_t bytes, size_t line, double ms, double *ns)
{
    /* ===== YOUR CODE HERE =====
     * 1. Validate; allocate bytes / line nodes with el_pages_alloc.
     * 2. el_sattolo over the node indices (generator mm_rng_new(bytes)); store in node i a
     *    pointer to node next[i]:  *(void **)(buf + i * line) = buf + next[i] * line;
     * 3. Warm up, then time batches of dependent loads,  p = *(void **)p;  with mm_now_ns()
     *    around each batch, until `ms` have passed. *ns = mm_median of the per-load times.
     *    Keep the final p (e.g. in a volatile variable) so the compiler cannot drop the loads. */
    (void)bytes, (void)line, (void)ms, (void)ns;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int el_staircase(const size_t *sizes, size_t n, size_t line, double ms, double *ns)
{
    /* ===== YOUR CODE HERE: check all sizes first, then one el_chase_ns per size ===== */
    (void)sizes, (void)n, (void)line, (void)ms, (void)ns;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int el_find_knees(const size_t *sizes, const double *ns, size_t n, size_t *knees, size_t max)
{
    /* ===== YOUR CODE HERE: follow the rule in chase.h exactly ===== */
    (void)sizes, (void)ns, (void)n, (void)knees, (void)max;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}
