/* Lab 02's cache_trace workload in the student process: runs your el_cache_access over a whole
 * trace the harness wrote, so that its tests can follow your simulator access by access without
 * a call across the boundary per access. It only runs your function and writes each result to
 * shared memory; the harness checks every one against its own model (tests/check_cachesim.c). */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include "cachesim.h"
#include "cache_trace.h"

/* Runs the request (el_trace_in_t, in). Returns 0, or -EINVAL for a malformed one (nothing
 * run). */
int serve_cache_trace(const void *in, size_t in_len, void *out, size_t out_len)
{
    el_trace_in_t q;
    (void)out;
    if (in_len != sizeof q || out_len != 0)
        return -EINVAL;
    memcpy(&q, in, sizeof q);
    const uint64_t *addr = (const uint64_t *)(uintptr_t)q.addr;
    const uint64_t *size = (const uint64_t *)(uintptr_t)q.size;
    int32_t *missed = (int32_t *)(uintptr_t)q.missed;
    if (q.n && (!addr || !size || !missed))
        return -EINVAL;
    for (uint64_t i = 0; i < q.n; i++)
        missed[i] = el_cache_access((el_cache_t *)(uintptr_t)q.cache, addr[i], (size_t)size[i]);
    return 0;
}
