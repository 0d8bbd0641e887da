/* Lab 02: the chase_chain workload's messages, shared by the harness (tests, bench) and the
 * student process (serve/chase_chain.c). */
#ifndef EL_CHASE_CHAIN_H
#define EL_CHASE_CHAIN_H
#include <stdint.h>

/* Runs el_chase_ns(bytes, line, ms) and writes the chain it left in its buffer to next[0..n),
 * n = bytes / line, in memory shared with the harness: next[i] is the node that node i points
 * to, or EL_CHAIN_STRAY where it points outside the buffer or into the middle of a node. */
typedef struct {
    uint64_t bytes, line;
    double ms;
    uint64_t next; /* address of n uint64_t in shared memory (mm_shared_alloc) */
} el_chain_in_t;

typedef struct {
    int32_t rc;    /* what el_chase_ns returned */
    int32_t found; /* a block it freed with el_pages_free began with a pointer into itself */
    double ns;     /* what el_chase_ns wrote to *ns: the student's own measurement */
} el_chain_out_t;

#define EL_CHAIN_STRAY UINT64_MAX

#endif
