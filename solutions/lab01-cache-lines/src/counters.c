/* Lab 01, part A (reference): per-thread counters, one cache line each (see counters.h). */
#include "counters.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cl_counters {
    unsigned n;
    size_t line;      /* bytes between consecutive slots */
    unsigned char *base; /* line-aligned, n * line bytes */
};

static size_t sysfs_line_size(void)
{
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size", "r");
    unsigned long v = 0;
    if (f) {
        if (fscanf(f, "%lu", &v) != 1)
            v = 0;
        fclose(f);
    }
    return (size_t)v;
}

static int good_line(size_t line)
{
    return line >= 8 && (line & (line - 1)) == 0;
}

size_t cl_line_size(void)
{
    long s = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
    if (s > 0 && good_line((size_t)s))
        return (size_t)s;
    size_t f = sysfs_line_size();
    return good_line(f) ? f : 64;
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
