/* Lab 09, Part D: the scheduler step (include/scheduler.h): first-come-first-served admission under
 * the block budget, one decoded token per sequence per step, preemption of the request admitted
 * last when the cache runs out, and re-admission that prefills prompt + output so far. */
#include "scheduler.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A sketch: per request, the request, its samples' sequence ids (-1 when not live) and output
 * counts (kept through a preemption), and how many samples are unfinished; the scheduler keeps
 * the cache, max_seqs, a waiting queue you can push at both ends (preempted requests go back to
 * its head), the running list in admission order, and a buffer in which to lay out a preempted
 * sample's prompt + output for kv_blocks_needed and kv_seq_add. */
struct kv_sched {
    kv_cache_t *c;
    /* YOUR CODE HERE */
};

int kv_sched_create(kv_sched_t **out, kv_cache_t *cache, const kv_sched_config_t *cfg)
{
    (void)out;
    (void)cache;
    (void)cfg;
    /* YOUR CODE HERE */
    return -ENOSYS;
}

void kv_sched_destroy(kv_sched_t *s)
{
    /* YOUR CODE HERE */
    free(s);
}

int kv_sched_submit(kv_sched_t *s, const kv_request_t *r)
{
    (void)s;
    (void)r;
    /* YOUR CODE HERE */
    return -ENOSYS;
}

int kv_sched_step(kv_sched_t *s, kv_step_t *res)
{
    (void)s;
    (void)res;
    /* YOUR CODE HERE: 1. decode (with preemption), 2. admit (see include/scheduler.h) */
    return -ENOSYS;
}

int kv_sched_idle(const kv_sched_t *s)
{
    (void)s;
    /* YOUR CODE HERE */
    return 0;
}
