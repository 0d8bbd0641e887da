/* Lab 02: the cache_trace workload's request, shared by the harness (tests) and the student
 * process (serve/cache_trace.c): a whole trace through el_cache_access in one call. */
#ifndef EL_CACHE_TRACE_H
#define EL_CACHE_TRACE_H
#include <stdint.h>

/* missed[i] = el_cache_access(cache, addr[i], size[i]) for i = 0 .. n - 1, in order. The three
 * arrays are in memory shared with the harness (mm_shared_alloc). */
typedef struct {
    uint64_t cache;            /* the el_cache_t * that el_cache_create gave */
    uint64_t n;                /* accesses */
    uint64_t addr, size;       /* addresses of n uint64_t each */
    uint64_t missed;           /* address of n int32_t: each access's result */
} el_trace_in_t;

#endif
