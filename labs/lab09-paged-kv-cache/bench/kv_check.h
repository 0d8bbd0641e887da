/* Lab 09 benchmark: the checker of a replay's log (serve/kv_serve.h). It rebuilds every live
 * sequence's block table and tokens from the log, checks them against the trace (each sequence
 * is a request's prompt followed by one sample's output tokens, kv_gen_token), checks that a
 * block held by several tables holds the same contents in each, and counts from what it checked
 * every figure the benchmark scores: never from the student's own statistics. */
#ifndef KV_CHECK_H
#define KV_CHECK_H
#include <stddef.h>
#include <stdint.h>
#include "../serve/kv_serve.h"
#include "trace.h"

/* One step, as counted here. */
typedef struct {
    uint32_t seqs;        /* live sequences */
    uint32_t used;        /* distinct physical blocks in the tables */
    uint32_t shared;      /* of those, in two or more tables */
    uint64_t logical;     /* table entries, all tables */
    uint64_t slots_used;  /* tokens in the used blocks, each physical slot once */
    uint64_t queries;     /* so far: full blocks of the prompts kv_seq_add was given */
    uint64_t hits;        /* so far: of those, leading blocks found already holding them */
} kv_count_t;

typedef struct kv_check kv_check_t;

/* A checker for a replay of t on num_blocks blocks of block_size tokens. Returns 0, -ENOMEM. */
int kv_check_new(kv_check_t **out, const kv_trace_t *t, uint32_t num_blocks,
                 uint32_t block_size);
/* Frees it; NULL is a no-op. */
void kv_check_free(kv_check_t *k);

/* Applies the step record at rec[0..n) (a private copy of the log: never shared memory), fills
 * *h (the record's header: the student's word) and *c. Returns the bytes the record takes, or
 * -1 with why[0..cap) saying what is wrong. */
long kv_check_step(kv_check_t *k, const unsigned char *rec, size_t n, kv_rec_step_t *h,
                   kv_count_t *c, char *why, size_t cap);

/* After the last step: nothing live, every sample of every request seen through to its last
 * output token. 0, or -1 with why. */
int kv_check_end(kv_check_t *k, char *why, size_t cap);

#endif
