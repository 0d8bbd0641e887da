/* Lab 02's workload in the student process: the chain the student's pointer chase linked, read
 * out of its buffer just before el_pages_free frees it (walk.h's hook), for the harness to check
 * (tests) and to time with its own clock (bench). */
#include <stddef.h>
#include <string.h>
#include "chase.h"
#include "chase_chain.h"
#include "walk.h"

typedef struct {
    size_t n, line;
    uint64_t *next;
    int found;
} chain_seen_t;

/* el_pages_free's hook: a block whose first word points into its first n * line bytes is the
 * chase's buffer; each node's pointer becomes the index of the node it points to. */
static void read_chain(const void *block, void *arg)
{
    chain_seen_t *s = arg;
    uintptr_t base = (uintptr_t)block, span = s->n * s->line, first;
    memcpy(&first, block, sizeof first);
    if (first < base || first - base >= span)
        return;
    s->found = 1;
    for (size_t i = 0; i < s->n; i++) {
        uintptr_t to;
        memcpy(&to, (const char *)block + i * s->line, sizeof to);
        int ok = to >= base && to - base < span && (to - base) % s->line == 0;
        s->next[i] = ok ? (to - base) / s->line : EL_CHAIN_STRAY;
    }
}

/* The workload chase_chain (chase_chain.h): in is an el_chain_in_t, out an el_chain_out_t.
 * Returns 0, or -1 when the messages have the wrong size or line is 0. */
int serve_chase_chain(const void *in, size_t in_len, void *out, size_t out_len)
{
    el_chain_in_t a;
    if (in_len != sizeof a || out_len != sizeof(el_chain_out_t))
        return -1;
    memcpy(&a, in, sizeof a);
    if (a.line == 0)
        return -1;
    chain_seen_t s = { a.bytes / a.line, a.line, (uint64_t *)(uintptr_t)a.next, 0 };
    el_chain_out_t r = { 0, 0, 0 };
    el_pages_on_free(read_chain, &s);
    r.rc = el_chase_ns(a.bytes, a.line, a.ms, &r.ns);
    el_pages_on_free(NULL, NULL);
    r.found = s.found;
    memcpy(out, &r, sizeof r);
    return 0;
}
