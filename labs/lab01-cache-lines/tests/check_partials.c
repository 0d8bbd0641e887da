/* Lab 01 tests, part B: where the partials lie. No cache line may hold bytes of two workers'
 * partials, or the workers false-share it; a packed layout gives right results (every other
 * Part B test passes) and only this test, or the timed stats_speedup, can tell. The partials
 * are in the student's process: their contents are read through mm_peek. */
#include <math.h>
#include <stdint.h>
#include "mm_call.h"
#include "mm_check.h"
#include "stats.h"

/* A copy of worker w's partial p (an address in the student's process). */
static cl_stats_t partial_value(const cl_stats_t *p, unsigned w)
{
    cl_stats_t v;
    MM_CHECK(mm_peek(p, &v, sizeof v) == 0, "worker %u's partial at %p cannot be read: not "
             "memory of your process", w, (const void *)p);
    return v;
}

/* The line numbers (address / line) of the first and last byte of a partial. */
typedef struct {
    uintptr_t first, last;
} span_t;

static span_t lines_of(const cl_stats_t *p, size_t line)
{
    uintptr_t lo = (uintptr_t)p;
    return (span_t){ lo / line, (lo + sizeof *p - 1) / line };
}

/* Fails, naming both workers and the line, if their partials pu and pt (as cl_accum_partial
 * gave them) have bytes in one line. */
static void check_no_shared_line(const cl_stats_t *pu, unsigned u, const cl_stats_t *pt,
                                 unsigned t, size_t line)
{
    span_t a = lines_of(pu, line), b = lines_of(pt, line);
    uintptr_t lo = a.first > b.first ? a.first : b.first;
    MM_CHECK(lo > a.last || lo > b.last,
             "partials of workers %u (%p..%p) and %u (%p..%p) both have bytes in the %zu-byte "
             "line at %p: the two workers false-share it",
             u, (const void *)pu, (const void *)((const char *)pu + sizeof *pu - 1), t,
             (const void *)pt, (const void *)((const char *)pt + sizeof *pt - 1), line,
             (void *)(lo * line));
}

/* The partials cl_accum_partial shows are the ones cl_accum_add writes: k samples to worker w
 * show up in its partial's count. */
static void check_partials_are_used(cl_accum_t *acc, unsigned n, mm_rng_t *r)
{
    for (unsigned w = 0; w < n; w++) {
        unsigned k = (unsigned)mm_rng_range(r, 1, 5);
        for (unsigned i = 0; i < k; i++)
            cl_accum_add(acc, w, (float)w);
        cl_stats_t p = partial_value(cl_accum_partial(acc, w), w);
        MM_CHECK(p.count == k && p.min == (float)w && p.max == (float)w,
                 "after %u samples of %u from worker %u, cl_accum_partial(%u) shows count %llu, "
                 "min %g, max %g: it must be the partial cl_accum_add writes",
                 k, w, w, w, (unsigned long long)p.count, p.min, p.max);
    }
}

MM_TEST(test_accum_partials_distinct_lines)
{
    mm_rng_t r = MM_RNG();
    for (size_t line = 8; line <= 256; line *= 2) {
        for (int round = 0; round < 4; round++) {
            unsigned n = (unsigned)mm_rng_range(&r, 2, CL_MAX_WORKERS);
            cl_accum_t *acc = NULL;
            const cl_stats_t *p[CL_MAX_WORKERS];
            MM_ASSERT_OK(cl_accum_create(&acc, n, line));
            for (unsigned w = 0; w < n; w++) {
                p[w] = cl_accum_partial(acc, w);
                MM_CHECK(p[w] != NULL, "cl_accum_partial(a, %u) is NULL for %u workers", w, n);
                cl_stats_t v = partial_value(p[w], w);
                MM_CHECK(v.count == 0 && isinf(v.min) && v.min > 0,
                         "worker %u's partial does not start empty (count %llu, min %g)", w,
                         (unsigned long long)v.count, v.min);
            }
            MM_CHECK(cl_accum_partial(acc, n) == NULL && cl_accum_partial(NULL, 0) == NULL,
                     "cl_accum_partial must be NULL for worker %u of %u, and for a NULL "
                     "accumulator", n, n);
            for (unsigned t = 1; t < n; t++)
                for (unsigned u = 0; u < t; u++)
                    check_no_shared_line(p[u], u, p[t], t, line);
            check_partials_are_used(acc, n, &r);
            cl_accum_destroy(acc);
        }
    }
}
MM_END_TEST
