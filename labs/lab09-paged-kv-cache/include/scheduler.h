/* Lab 09: a serving scheduler's step over the paged KV cache (vLLM's, simplified; README section
 * 2.8 says which parts follow vLLM's v0, which its v1, and which are this lab's own): requests
 * wait in a queue, are admitted first come first served while the cache has blocks for them,
 * decode one token per sequence per step, and are preempted when the cache runs out.
 *
 * One kv_sched_step, in this order:
 *   1. DECODE. For each running request in admission order, for each of its unfinished samples
 *      in sample order: append the sample's next token, kv_gen_token(request id, sample, k) for
 *      its k-th output token (k from 0). If kv_append says -ENOMEM, PREEMPT the victim, the
 *      running request admitted last, and try again; if the victim is the request being decoded,
 *      it stops there (the tokens its earlier samples appended in this step stay produced).
 *      A sample that has produced out_len[sample] tokens is freed at once (kv_seq_free); a
 *      request whose samples are all done is finished and leaves the running list.
 *      (A request decoded earlier in the step is never a victim: victims were admitted later.)
 *   2. ADMIT. While the waiting queue is not empty, look at its head (no skipping): admit it if
 *      the live sequences of the running requests (kv_step_t.running_seqs: a finished sample was
 *      freed and no longer counts) + its unfinished samples <= max_seqs, and the blocks it needs
 *      + the watermark <= free + cached blocks, where the watermark is KV_SCHED_WATERMARK_PCT
 *      percent of the cache's blocks, rounded down; else stop. The request goes to the tail of
 *      the running list, and its next output tokens are decoded from the next step on.
 *        - A request none of whose samples has produced a token (new, or preempted before its
 *          first token) needs kv_blocks_needed(its prompt) blocks and is admitted by
 *          kv_seq_add(prompt) for sample 0, then kv_fork of it for samples 1 .. n-1 (in order).
 *        - A request that has produced tokens (it was preempted) needs the sum, over its
 *          unfinished samples, of kv_blocks_needed(prompt followed by that sample's output so
 *          far), and is admitted by one kv_seq_add of exactly those tokens per unfinished sample,
 *          in sample order (no fork: with prefix caching the samples share the prompt's full
 *          blocks through the cache). Its finished samples stay finished.
 * PREEMPT (recompute, as vLLM does by default): free every live sequence of the victim in sample
 * order (sample 0 first, each by kv_seq_free: its last block first; the order decides which
 * blocks reach the LRU list first), KEEP the tokens each sample has produced, and put it at the
 * HEAD of the waiting queue, ahead of every request waiting there. Admitted again, it prefills
 * prompt + output in one kv_seq_add per sample (the prefix cache finds the full blocks that are
 * still registered) and goes on from its next output token: no token is decoded twice.
 *
 * Contracts: the effect, then one "-EXXX: condition" per line. */
#ifndef KV_SCHEDULER_H
#define KV_SCHEDULER_H
#include <stdint.h>
#include "kvcache.h"

#define KV_MAX_SAMPLES 8          /* parallel samples per request (n): 1 .. KV_MAX_SAMPLES */
#define KV_SCHED_WATERMARK_PCT 1  /* blocks kept free at admission, in percent (vLLM v0's
                                     block manager: 0.01; v1 keeps none) */

/* The k-th output token of sample s of request `request` (src/support.c, provided). */
kv_token_t kv_gen_token(uint32_t request, uint32_t s, uint32_t k);

/* A request. The scheduler keeps the pointer: the request (and its prompt) must stay valid and
 * unchanged until the scheduler is destroyed. */
typedef struct {
    uint32_t id;                       /* any value: it seeds kv_gen_token */
    uint32_t n;                        /* parallel samples, 1 .. KV_MAX_SAMPLES */
    uint32_t prompt_len;               /* >= 1 */
    const kv_token_t *prompt;
    uint32_t out_len[KV_MAX_SAMPLES];  /* tokens sample s produces, each >= 1 */
} kv_request_t;

typedef struct {
    uint32_t max_seqs;  /* running sequences at most (vLLM's max_num_seqs), >= 1 */
} kv_sched_config_t;

/* What one step did, and the state after it. */
typedef struct {
    uint32_t running_reqs, running_seqs;  /* after the step (sequences not yet freed) */
    uint32_t waiting;                     /* requests in the queue after the step */
    uint32_t admitted, preempted, finished; /* requests, during this step */
    uint64_t decoded;  /* tokens appended by step 1: every kv_append that succeeded (each output
                          token once: preemption keeps what was produced) */
} kv_step_t;

typedef struct kv_sched kv_sched_t;

/* Creates a scheduler over `cache` (not owned: the caller destroys it after the scheduler).
 *   -EINVAL: out, cache or cfg NULL; cfg->max_seqs 0
 *   -ENOMEM: host memory */
int kv_sched_create(kv_sched_t **out, kv_cache_t *cache, const kv_sched_config_t *cfg);
/* Frees the scheduler's own memory (not the cache, whose sequences stay as they are); NULL is a
 * no-op. */
void kv_sched_destroy(kv_sched_t *s);

/* Puts r at the tail of the waiting queue.
 *   -EINVAL: s or r NULL; r->n not in 1..KV_MAX_SAMPLES, or above max_seqs; r->prompt NULL;
 *            r->prompt_len 0; an out_len[0..n) of 0; prompt_len + an out_len[s] above
 *            KV_MAX_SEQ_LEN
 *   -ENOMEM: host memory */
int kv_sched_submit(kv_sched_t *s, const kv_request_t *r);

/* Runs one step (see the top) and fills *res (may be NULL).
 *   -EINVAL: s NULL
 *   -ENOMEM: host memory for the scheduler's own lists or token buffer: the step stopped before
 *            decoding (nothing changed) or before admitting the queue's head (the decoding and
 *            the admissions before it were done); *res is not filled; the scheduler can step
 *            again
 *   -EIO: the cache failed in a way the rules do not allow (an error other than -ENOMEM from
 *         kv_append, or any error from admitting a request the rules admitted); the state is
 *         then undefined */
int kv_sched_step(kv_sched_t *s, kv_step_t *res);

/* True (1) when no request is waiting or running, and for s NULL (nothing to do); else 0. */
int kv_sched_idle(const kv_sched_t *s);

#endif
