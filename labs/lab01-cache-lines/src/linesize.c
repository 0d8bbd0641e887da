/* Lab 01, part C: infer the cache line size from two writers (contract in include/linesize.h).
 * `make plots LAB=01` draws your sweep. */
#include "linesize.h"
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "mm_hw.h"    /* mm_hw_cores, mm_hw_try_pin (or mm_hw_pin_to_core), mm_hw_unpin */
#include "mm_timer.h" /* mm_now_ns */

/* ===== YOUR CODE HERE (optional): extra #includes, your own types and static helpers ===== */

/* ===== END YOUR CODE ===== */

int cl_pair_run(uint64_t *a, uint64_t *b, uint64_t iters, double *ns_per_op)
{
    /* ===== YOUR CODE HERE =====
     * One pthread adds to *a while this thread adds to *b, each add an atomic read-modify-write
     * (see linesize.h: __atomic_fetch_add, relaxed); pin them to cores 0 and 1
     * (mm_hw_try_pin: best effort, as a container may refuse), start both together
     * (pthread_barrier_t), time from the start to the
     * join, and unpin this thread afterwards. */
    (void)a, (void)b, (void)iters, (void)ns_per_op;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int cl_sweep(const size_t *distance, size_t n, uint64_t iters, double *ns)
{
    /* ===== YOUR CODE HERE: a page-aligned (4096) buffer, counters distance[i] bytes apart ===== */
    (void)distance, (void)n, (void)iters, (void)ns;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int cl_infer_line_size(const size_t *distance, const double *ns, size_t n, size_t *line)
{
    /* ===== YOUR CODE HERE: follow the rule in linesize.h exactly ===== */
    (void)distance, (void)ns, (void)n, (void)line;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}
