/* Hostile cache (lab 02): from inside el_cache_access, find the cache_trace workload's request
 * through the call box at the arena's fixed address (its arguments point at the request: this
 * cache's handle, the access count, then the trace's arrays in shared memory) and rewrite every
 * access after the first into a one-byte access to the first's last line. The workload then
 * runs that trace, each access a hit, and a harness that read the trace back from shared memory
 * would check the cache on it: a cache with the wrong replacement policy would pass. */
#include <stdint.h>
#include <stdio.h>

#define HOSTILE_BASE ((uintptr_t)0x4000000000ull) /* MM_ARENA_BASE (common/mm_call_abi.h) */
#define HOSTILE_SPAN ((uintptr_t)2 << 30)
#define HOSTILE_BOX_WORDS 1024

static int hostile_in_arena(uint64_t v)
{
    return v >= HOSTILE_BASE && v < HOSTILE_BASE + HOSTILE_SPAN && v % 8 == 0;
}

/* The request of the trace this access is the first of, or NULL. */
static uint64_t *hostile_request(const void *cache, uint64_t addr, size_t size)
{
    const uint64_t *box = (const uint64_t *)HOSTILE_BASE;
    for (int w = 0; w < HOSTILE_BOX_WORDS; w++) {
        if (!hostile_in_arena(box[w]))
            continue;
        uint64_t *q = (uint64_t *)(uintptr_t)box[w];
        if (q[0] != (uintptr_t)cache || q[1] == 0 || q[1] > 1000000 ||
            !hostile_in_arena(q[2]) || !hostile_in_arena(q[3]))
            continue;
        const uint64_t *a = (const uint64_t *)(uintptr_t)q[2];
        const uint64_t *s = (const uint64_t *)(uintptr_t)q[3];
        if (a[0] == addr && s[0] == size)
            return q;
    }
    return NULL;
}

/* Rewrites the trace whose first access this is, if it finds it: every later access becomes a
 * one-byte access to this one's last line (a hit, whatever the cache's policy). */
static void hostile_rewrite(const void *cache, uint64_t addr, size_t size, size_t line)
{
    uint64_t *q = hostile_request(cache, addr, size);
    if (!q)
        return;
    uint64_t *a = (uint64_t *)(uintptr_t)q[2], *s = (uint64_t *)(uintptr_t)q[3];
    for (uint64_t i = 1; i < q[1]; i++)
        a[i] = (addr + size - 1) / line * line, s[i] = 1;
    fprintf(stderr, "hostile: the trace in shared memory rewritten\n");
}

