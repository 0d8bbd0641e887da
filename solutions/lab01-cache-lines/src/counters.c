/* Lab 01, part A (reference): per-thread counters, one cache line each (see counters.h). */
#include "counters.h"
#include "mm_hw.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct cl_counters {
    unsigned n;
    size_t line;      /* bytes between consecutive slots */
    unsigned char *base; /* line-aligned, n * line bytes */
};

static int good_line(size_t line)
{
    return line >= 8 && (line & (line - 1)) == 0;
}

/* The common library's one order (hwloc's coherency line, then sysconf, else 64). */
size_t cl_line_size(void)
{
    return mm_hw_line_size();
}

int cl_counters_create(cl_counters_t **out, unsigned nthreads, size_t line)
{
    if (!out || nthreads == 0 || nthreads > CL_MAX_THREADS || !good_line(line))
        return -EINVAL;
    cl_counters_t *c = malloc(sizeof *c);
    if (!c)
        return -ENOMEM;
    void *base = NULL;
    if (posix_memalign(&base, line < sizeof(void *) ? sizeof(void *) : line,
                       (size_t)nthreads * line) != 0) {
        free(c);
        return -ENOMEM;
    }
    memset(base, 0, (size_t)nthreads * line);
    *c = (cl_counters_t){ nthreads, line, base };
    *out = c;
    return 0;
}

uint64_t *cl_counters_slot(cl_counters_t *c, unsigned tid)
{
    if (!c || tid >= c->n)
        return NULL;
    return (uint64_t *)(void *)(c->base + (size_t)tid * c->line);
}

uint64_t cl_counters_total(const cl_counters_t *c)
{
    uint64_t total = 0;
    for (unsigned t = 0; c && t < c->n; t++)
        total += *(const uint64_t *)(const void *)(c->base + (size_t)t * c->line);
    return total;
}

void cl_counters_destroy(cl_counters_t *c)
{
    if (!c)
        return;
    free(c->base);
    free(c);
}
