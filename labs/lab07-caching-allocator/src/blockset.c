/* Lab 07, part B: the set of free blocks, a sorted array ordered by (stream, size, address)
 * (contract in include/blockset.h). Background and hints: README.md, `make hint LAB=07`. */
#include "blockset.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void ca_blockset_init(ca_blockset_t *s)
{
    s->v = NULL;
    s->n = s->cap = 0;
}

void ca_blockset_destroy(ca_blockset_t *s)
{
    free(s->v);
    ca_blockset_init(s);
}

/* ===== YOUR CODE HERE: helpers, e.g. a comparison of a block with a key (stream, size, addr)
 * and a binary search for the first block that does not sort before a key. ===== */
/* ===== END YOUR CODE ===== */

int ca_blockset_reserve(ca_blockset_t *s, size_t n)
{
    /* ===== YOUR CODE HERE =====
     * Grow s->v (realloc) to at least n entries; double, so that inserts stay cheap. */
    (void)s, (void)n;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int ca_blockset_insert(ca_blockset_t *s, ca_block_t *b)
{
    /* ===== YOUR CODE HERE =====
     * Find b's place, refuse a duplicate, make room, memmove the tail up by one. */
    (void)s, (void)b;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int ca_blockset_erase(ca_blockset_t *s, ca_block_t *b)
{
    /* ===== YOUR CODE HERE ===== */
    (void)s, (void)b;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

ca_block_t *ca_blockset_best_fit(const ca_blockset_t *s, ca_stream_t stream, size_t size)
{
    /* ===== YOUR CODE HERE =====
     * The first block not before (stream, size, 0) is the answer if it is on `stream`. */
    (void)s, (void)stream, (void)size;
    return NULL;
    /* ===== END YOUR CODE ===== */
}
