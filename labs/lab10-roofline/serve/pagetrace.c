/* Lab 10, the student's process: the page-grain model cache of pagetrace.h, driven by protection
 * faults. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "pagetrace.h"

#define MIN_OPEN 4
#define MAX_OPEN 4096

/* The one trace of this process; the handler reads and updates it. */
static struct {
    pt_region_t reg[PT_MAX_REGIONS];
    int nreg;
    size_t page, first[PT_MAX_REGIONS]; /* first[k]: index of region k's first page */
    char *open[MAX_OPEN];               /* the open pages, oldest at head once full */
    size_t nopen, head, window;
    size_t faults, cap;
    unsigned char *seen;                /* one bit per page: touched at least once */
    int capped, running;
    struct sigaction old;
} tr;

size_t pt_page(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

static void protect_all(int prot)
{
    for (int k = 0; k < tr.nreg; k++)
        mprotect(tr.reg[k].base, tr.reg[k].bytes, prot);
}

/* The page index (over all regions) of addr, or -1 if no region holds it. */
static long page_of(const char *addr)
{
    for (int k = 0; k < tr.nreg; k++)
        if (addr >= tr.reg[k].base && addr < tr.reg[k].base + tr.reg[k].bytes)
            return (long)(tr.first[k] + (size_t)(addr - tr.reg[k].base) / tr.page);
    return -1;
}

/* Opens the page holding addr, closing the oldest open page once `window` are open. */
static void enter(char *addr, long idx)
{
    char *pg = (char *)((uintptr_t)addr & ~(uintptr_t)(tr.page - 1));
    tr.seen[idx / 8] |= (unsigned char)(1u << (idx % 8));
    if (++tr.faults >= tr.cap) {
        tr.capped = 1;
        protect_all(PROT_READ | PROT_WRITE);
        return;
    }
    if (tr.nopen == tr.window) {
        mprotect(tr.open[tr.head], tr.page, PROT_NONE);
        tr.open[tr.head] = pg;
        tr.head = (tr.head + 1) % tr.window;
    } else {
        tr.open[tr.nopen++] = pg;
    }
    mprotect(pg, tr.page, PROT_READ | PROT_WRITE);
}

static void on_fault(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    long idx = tr.capped ? -1 : page_of(si->si_addr);
    if (idx < 0) { /* not ours: the old handler takes the retried access */
        sigaction(sig, &tr.old, NULL);
        return;
    }
    enter(si->si_addr, idx);
}

static int bad_region(const pt_region_t *r)
{
    return !r->base || !r->bytes || (uintptr_t)r->base % tr.page || r->bytes % tr.page;
}

static int set_regions(const pt_region_t *regions, int n)
{
    size_t pages = 0;
    for (int k = 0; k < n; k++) {
        if (bad_region(&regions[k]))
            return -EINVAL;
        tr.reg[k] = regions[k];
        tr.first[k] = pages;
        pages += regions[k].bytes / tr.page;
    }
    tr.nreg = n;
    tr.seen = calloc(pages / 8 + 1, 1);
    return tr.seen ? 0 : -ENOMEM;
}

int pt_begin(const pt_region_t *regions, int n, size_t window_bytes, size_t cap_faults)
{
    if (tr.running || !regions || n < 1 || n > PT_MAX_REGIONS || cap_faults == 0)
        return -EINVAL;
    memset(&tr, 0, sizeof tr);
    tr.page = pt_page();
    tr.window = window_bytes / tr.page;
    tr.window = tr.window < MIN_OPEN ? MIN_OPEN : tr.window > MAX_OPEN ? MAX_OPEN : tr.window;
    tr.cap = cap_faults;
    int rc = set_regions(regions, n);
    if (rc != 0)
        return rc;
    struct sigaction sa = { .sa_sigaction = on_fault, .sa_flags = SA_SIGINFO };
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, &tr.old) != 0) {
        rc = -errno;
        free(tr.seen);
        return rc;
    }
    tr.running = 1;
    protect_all(PROT_NONE);
    return 0;
}

void pt_end(pt_stats_t *st)
{
    size_t pages = 0, touched = 0;
    if (!tr.running)
        return;
    protect_all(PROT_READ | PROT_WRITE);
    sigaction(SIGSEGV, &tr.old, NULL);
    for (int k = 0; k < tr.nreg; k++)
        pages += tr.reg[k].bytes / tr.page;
    for (size_t i = 0; i < pages; i++)
        touched += (tr.seen[i / 8] >> (i % 8)) & 1u;
    *st = (pt_stats_t){ pages, tr.faults, touched, tr.capped };
    free(tr.seen);
    tr.running = 0;
}
