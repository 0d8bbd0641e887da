/* Lab 10, the student's process: passes over memory, counted at page grain for the *_passes
 * metrics (serve/rl_serve.c runs a kernel under it). The traced buffers' pages are protected (no
 * access); a kernel's first touch of a page faults, and the handler opens that page and closes
 * the one it opened `window` pages before (first in, first out): a model cache of window pages
 * that sees only entries into it. A kernel that reads its input once, block by block, faults
 * once per page; one that sweeps the whole input three times faults three times per page. The
 * count depends only on the order of the kernel's accesses: not on the CPU, its caches, its
 * prefetchers or the machine's load. One trace at a time per process. */
#ifndef RL_PAGETRACE_H
#define RL_PAGETRACE_H
#include <stddef.h>

#define PT_MAX_REGIONS 4

/* A traced buffer: page-aligned, a whole number of pages (mm_shared_alloc gives such for
 * sizes of whole pages). */
typedef struct {
    char *base;
    size_t bytes;
} pt_region_t;

typedef struct {
    size_t pages;   /* pages of the traced buffers */
    size_t faults;  /* entries into the model cache (first touches included) */
    size_t touched; /* distinct pages touched at least once */
    int capped;     /* 1: faults reached the cap; every page was opened and counting stopped */
} pt_stats_t;

/* The system's page size. */
size_t pt_page(void);

/* Protects every page of the n regions and starts counting with an empty model cache of
 * window_bytes (at least 4 pages are kept open: one instruction may touch two pages of each
 * buffer). After cap_faults faults every page is opened and counting stops (a kernel that sweeps
 * its input in the wrong order would otherwise fault on every element). Returns 0, -EINVAL (bad
 * arguments, more than PT_MAX_REGIONS, a trace already running), -ENOMEM, or -errno of
 * sigaction / mprotect. */
int pt_begin(const pt_region_t *regions, int n, size_t window_bytes, size_t cap_faults);

/* Stops the trace: every page of the regions is readable and writable again and the previous
 * SIGSEGV handler is back. Fills *st. */
void pt_end(pt_stats_t *st);

#endif
