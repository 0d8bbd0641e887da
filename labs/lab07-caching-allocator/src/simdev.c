/* Lab 07: the simulated device (see simdev.h). Provided: the grader builds its own copy. Memory
 * is the range [base, base + capacity), handed out first fit, backed by host memory or not. */

/* Streams are counters of launched and completed work; an event remembers how much work its
 * stream had launched when it was recorded, and is done once that much has completed. */
#include "simdev.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "mm_aligned.h"
#include "mm_timer.h"

/* Base of an unbacked device: a non-canonical x86-64 address, so a stray dereference faults. */
#define UNBACKED_BASE ((uintptr_t)0x4000000000000000ull)

typedef struct {
    uintptr_t addr;
    size_t size;
} region_t;

typedef struct {
    ca_stream_t stream;
    uint64_t seq; /* done once completed[stream] >= seq */
    int live;
} sim_event_t;

struct ca_simdev {
    ca_simdev_config_t cfg;
    unsigned char *mem; /* backed: the device's memory; else NULL */
    uintptr_t base;
    region_t *live;     /* live regions sorted by address */
    size_t nlive, cap;
    ca_simdev_stats_t st;
    int fail_next;
    uint64_t launched[CA_MAX_STREAMS], completed[CA_MAX_STREAMS];
    sim_event_t ev[CA_SIMDEV_MAX_EVENTS];
    unsigned free_ev[CA_SIMDEV_MAX_EVENTS]; /* stack of unused event slots */
    unsigned nfree_ev;
};

static void spin(uint64_t ns)
{
    if (ns == 0)
        return;
    uint64_t t0 = mm_now_ns();
    while (mm_now_ns() - t0 < ns)
        ;
}

/* Index of the first live region whose address is >= addr. */
static size_t region_index(const ca_simdev_t *d, uintptr_t addr)
{
    size_t lo = 0, hi = d->nlive;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->live[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* First fit: the index before which a region of `size` bytes fits, and its address. */
static int first_fit(const ca_simdev_t *d, size_t size, size_t *at, uintptr_t *addr)
{
    uintptr_t cur = d->base, end = d->base + d->cfg.capacity;
    for (size_t i = 0; i <= d->nlive; i++) {
        uintptr_t next = i < d->nlive ? d->live[i].addr : end;
        if (next - cur >= size) {
            *at = i;
            *addr = cur;
            return 0;
        }
        if (i < d->nlive)
            cur = d->live[i].addr + d->live[i].size;
    }
    return -ENOMEM;
}

static int insert_region(ca_simdev_t *d, size_t at, uintptr_t addr, size_t size)
{
    if (d->nlive == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 64;
        region_t *v = realloc(d->live, cap * sizeof *v);
        if (!v)
            return -ENOMEM;
        d->live = v;
        d->cap = cap;
    }
    memmove(&d->live[at + 1], &d->live[at], (d->nlive - at) * sizeof *d->live);
    d->live[at] = (region_t){ addr, size };
    d->nlive++;
    return 0;
}

static void fill(ca_simdev_t *d, uintptr_t addr, size_t size, int byte)
{
    if (d->mem)
        memset(d->mem + (addr - d->base), byte, size);
}

static int sim_raw_alloc(void *ctx, size_t size, void **out)
{
    ca_simdev_t *d = ctx;
    spin(d->cfg.latency_ns);
    d->st.alloc_calls++;
    int rc = d->fail_next;
    d->fail_next = 0;
    size_t at = 0;
    uintptr_t addr = 0;
    if (rc == 0 && (!out || size == 0 || size % CA_SIMDEV_ALIGN != 0))
        rc = -EINVAL;
    if (rc == 0)
        rc = first_fit(d, size, &at, &addr);
    if (rc == 0)
        rc = insert_region(d, at, addr, size);
    if (rc != 0) {
        d->st.alloc_fails++;
        return rc;
    }
    fill(d, addr, size, CA_SIMDEV_FRESH);
    d->st.live_bytes += size;
    if (d->st.live_bytes > d->st.peak_bytes)
        d->st.peak_bytes = d->st.live_bytes;
    *out = (void *)addr;
    return 0;
}

static int sim_raw_free(void *ctx, void *ptr)
{
    ca_simdev_t *d = ctx;
    spin(d->cfg.latency_ns);
    d->st.free_calls++;
    uintptr_t addr = (uintptr_t)ptr;
    size_t i = region_index(d, addr);
    if (i >= d->nlive || d->live[i].addr != addr) {
        d->st.free_errors++;
        return -EINVAL;
    }
    size_t size = d->live[i].size;
    fill(d, addr, size, CA_SIMDEV_POISON);
    memmove(&d->live[i], &d->live[i + 1], (d->nlive - i - 1) * sizeof *d->live);
    d->nlive--;
    d->st.live_bytes -= size;
    return 0;
}

static int sim_record_event(void *ctx, ca_stream_t stream, ca_event_t *out)
{
    ca_simdev_t *d = ctx;
    if (stream >= CA_MAX_STREAMS || !out)
        return -EINVAL;
    if (d->nfree_ev == 0)
        return -ENOMEM;
    unsigned slot = d->free_ev[--d->nfree_ev];
    d->ev[slot] = (sim_event_t){ stream, d->launched[stream], 1 };
    d->st.live_events++;
    *out = (ca_event_t)slot + 1;
    return 0;
}

static sim_event_t *lookup(ca_simdev_t *d, ca_event_t ev)
{
    if (ev == 0 || ev > CA_SIMDEV_MAX_EVENTS || !d->ev[ev - 1].live)
        return NULL;
    return &d->ev[ev - 1];
}

static int sim_query_event(void *ctx, ca_event_t ev)
{
    ca_simdev_t *d = ctx;
    sim_event_t *e = lookup(d, ev);
    if (!e)
        return -EINVAL;
    return d->completed[e->stream] >= e->seq;
}

static int sim_release_event(void *ctx, ca_event_t ev)
{
    ca_simdev_t *d = ctx;
    sim_event_t *e = lookup(d, ev);
    if (!e)
        return -EINVAL;
    e->live = 0;
    d->free_ev[d->nfree_ev++] = (unsigned)(ev - 1);
    d->st.live_events--;
    return 0;
}

static int sim_synchronize(void *ctx)
{
    ca_simdev_t *d = ctx;
    d->st.syncs++;
    memcpy(d->completed, d->launched, sizeof d->completed);
    return 0;
}

int ca_simdev_create(ca_simdev_t **out, const ca_simdev_config_t *cfg)
{
    if (!out || !cfg || cfg->capacity == 0 || cfg->capacity % CA_SIMDEV_ALIGN != 0)
        return -EINVAL;
    ca_simdev_t *d = calloc(1, sizeof *d);
    if (!d)
        return -ENOMEM;
    d->cfg = *cfg;
    d->base = UNBACKED_BASE;
    if (cfg->backed) {
        d->mem = mm_aligned_alloc(4096, cfg->capacity);
        if (!d->mem) {
            free(d);
            return -ENOMEM;
        }
        d->base = (uintptr_t)d->mem;
    }
    for (unsigned i = 0; i < CA_SIMDEV_MAX_EVENTS; i++)
        d->free_ev[i] = CA_SIMDEV_MAX_EVENTS - 1 - i;
    d->nfree_ev = CA_SIMDEV_MAX_EVENTS;
    *out = d;
    return 0;
}

void ca_simdev_destroy(ca_simdev_t *d)
{
    if (!d)
        return;
    mm_aligned_free(d->mem);
    free(d->live);
    free(d);
}

void ca_simdev_backend(ca_simdev_t *d, ca_backend_t *be)
{
    *be = (ca_backend_t){ "simdev",        d,
                          sim_raw_alloc,   sim_raw_free,
                          sim_record_event, sim_query_event,
                          sim_release_event, sim_synchronize };
}

void ca_simdev_stats(const ca_simdev_t *d, ca_simdev_stats_t *out)
{
    *out = d->st;
    out->live_regions = d->nlive;
}

void ca_simdev_reset_peak(ca_simdev_t *d)
{
    d->st.peak_bytes = d->st.live_bytes;
}

void ca_simdev_launch(ca_simdev_t *d, ca_stream_t stream)
{
    if (stream < CA_MAX_STREAMS)
        d->launched[stream]++;
}

void ca_simdev_complete(ca_simdev_t *d, ca_stream_t stream)
{
    if (stream < CA_MAX_STREAMS)
        d->completed[stream] = d->launched[stream];
}

void ca_simdev_fail_next_alloc(ca_simdev_t *d, int err)
{
    d->fail_next = err;
}

int ca_simdev_owns(const ca_simdev_t *d, const void *p, size_t size)
{
    uintptr_t addr = (uintptr_t)p;
    size_t i = region_index(d, addr + 1); /* first region starting after addr */
    if (i == 0)
        return 0;
    const region_t *r = &d->live[i - 1];
    return addr >= r->addr && addr - r->addr + size <= r->size;
}
