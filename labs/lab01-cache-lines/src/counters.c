/* Lab 01, part A: per-thread counters, one cache line each (contract in include/counters.h).
 * Background and hints: labs/lab01-cache-lines/README.md, `make hint LAB=01`. */
#include "counters.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cl_counters {
    /* ===== YOUR CODE HERE: what do you need to find slot t? (count, spacing, base) ===== */
    unsigned n;
    /* ===== END YOUR CODE ===== */
};

/* ===== YOUR CODE HERE (optional): extra #includes, your own types and static helpers ===== */

/* ===== END YOUR CODE ===== */

size_t cl_line_size(void)
{
    /* ===== YOUR CODE HERE =====
     * Ask the OS: read /sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size; if that is
     * not a power of two >= 8, sysconf(_SC_LEVEL1_DCACHE_LINESIZE); else fall back to 64.
     * (mm_hw_line_size() of common/mm_hw.h asks in this order: you may call it.) */
    return 0;
    /* ===== END YOUR CODE ===== */
}

int cl_counters_create(cl_counters_t **out, unsigned nthreads, size_t line)
{
    /* ===== YOUR CODE HERE =====
     * Validate the arguments, then give each thread `line` bytes of a line-aligned block
     * (posix_memalign or aligned_alloc), zeroed. */
    (void)out, (void)nthreads, (void)line;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

uint64_t *cl_counters_slot(cl_counters_t *c, unsigned tid)
{
    /* ===== YOUR CODE HERE ===== */
    (void)c, (void)tid;
    return NULL;
    /* ===== END YOUR CODE ===== */
}

uint64_t cl_counters_total(const cl_counters_t *c)
{
    /* ===== YOUR CODE HERE ===== */
    (void)c;
    return 0;
    /* ===== END YOUR CODE ===== */
}

void cl_counters_destroy(cl_counters_t *c)
{
    /* ===== YOUR CODE HERE ===== */
    free(c);
    /* ===== END YOUR CODE ===== */
}
