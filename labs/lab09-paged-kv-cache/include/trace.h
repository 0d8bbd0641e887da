/* Lab 09: the request traces the benchmark replays (the .trace files of traces/, made by tools/gen_traces.py
 * and built into the programs). Not yours to edit.
 *
 * A trace file is text: '#' lines are comments (the first ones state the distributions), every
 * other line is one request:
 *     id arrival prefix_id prefix_len prompt_len n out_len_0 ... out_len_{n-1}
 * The prompt's first prefix_len tokens are those of shared prefix prefix_id (the same system
 * prompt for every request naming it; prefix_id 0 and prefix_len 0 when there is none), the
 * rest are the request's own. `arrival` is the scheduler step at which the request is
 * submitted. */
#ifndef KV_TRACE_H
#define KV_TRACE_H
#include <stddef.h>
#include <stdint.h>
#include "scheduler.h"

typedef struct {
    const char *name;     /* "chat", "parallel", "mix" */
    char about[400];      /* its "# about:" line: what the trace models */
    size_t n;             /* requests */
    kv_request_t *req;    /* n requests, arrival order */
    uint32_t *arrival;    /* step at which req[i] is submitted (non-decreasing) */
    kv_token_t *tokens;   /* every prompt, one after the other (req[i].prompt points here) */
} kv_trace_t;

/* The shipped traces: 0 chat, 1 parallel, 2 mix. */
#define KV_NTRACES 3
const char *kv_trace_name(unsigned k);

/* Parses shipped trace number k into *t. Returns 0, -EINVAL (k out of range, t NULL), -EIO (the
 * text does not parse: a corrupted build) or -ENOMEM. */
int kv_trace_load(unsigned k, kv_trace_t *t);
/* Parses a trace from text (NUL-terminated) into *t, as above. */
int kv_trace_parse(const char *text, const char *name, kv_trace_t *t);
/* Frees what kv_trace_load / kv_trace_parse allocated; t may be NULL. */
void kv_trace_free(kv_trace_t *t);

/* The token at position i of shared prefix p, and of request r's own part. */
kv_token_t kv_prefix_token(uint32_t p, uint32_t i);
kv_token_t kv_own_token(uint32_t r, uint32_t i);

#endif
