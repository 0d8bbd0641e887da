/* Lab 02, part C: a set-associative LRU cache simulator (contract in include/cachesim.h). */
#include "cachesim.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct el_cache {
    /* ===== YOUR CODE HERE: the geometry, each set's lines in some order of recency, the counts */
    el_cache_stats_t stats;
    /* ===== END YOUR CODE ===== */
};

/* ===== YOUR CODE HERE (optional): extra #includes, your own types and static helpers ===== */

/* ===== END YOUR CODE ===== */

int el_cache_create(el_cache_t **out, size_t sets, size_t ways, size_t line)
{
    /* ===== YOUR CODE HERE =====
     * Validate (a power of two x is x && !(x & (x - 1))), then allocate the struct and room for
     * sets * ways line numbers; free whatever you got if any allocation fails. */
    (void)out, (void)sets, (void)ways, (void)line;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int el_cache_access(el_cache_t *c, uint64_t addr, size_t size)
{
    /* ===== YOUR CODE HERE =====
     * Lines addr / line .. (addr + size - 1) / line, one lookup each: hit -> move it to most
     * recently used; miss -> insert as most recently used, evicting the least recently used line
     * if the set is full. Return how many lines missed. */
    (void)c, (void)addr, (void)size;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

el_cache_stats_t el_cache_stats(const el_cache_t *c)
{
    el_cache_stats_t zero = { 0, 0, 0 };
    /* ===== YOUR CODE HERE ===== */
    (void)c;
    return zero;
    /* ===== END YOUR CODE ===== */
}

void el_cache_reset_stats(el_cache_t *c)
{
    /* ===== YOUR CODE HERE ===== */
    (void)c;
    /* ===== END YOUR CODE ===== */
}

void el_cache_destroy(el_cache_t *c)
{
    /* ===== YOUR CODE HERE ===== */
    free(c);
    /* ===== END YOUR CODE ===== */
}
