/* Lab 02: the random-walk kernel and the huge-page allocator (contracts in include/walk.h).
 * Given code, not yours to edit: the grader always builds this file from its own copy. */
#include "walk.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "mm_bench.h" /* mm_median */
#include "mm_timer.h"

#define HUGE_PAGE ((size_t)2 << 20)

void *el_pages_alloc(size_t bytes)
{
    if (bytes == 0 || bytes > SIZE_MAX - HUGE_PAGE) {
        errno = EINVAL;
        return NULL;
    }
    size_t len = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    void *p = NULL;
    int rc = posix_memalign(&p, HUGE_PAGE, len);
    if (rc != 0) {
        errno = rc;
        return NULL;
    }
    madvise(p, len, MADV_HUGEPAGE); /* a hint: without THP the walk still works */
    memset(p, 0, len);
    return p;
}

static el_pages_hook_t *free_hook;
static void *free_hook_arg;

void el_pages_on_free(el_pages_hook_t *fn, void *arg)
{
    free_hook = fn;
    free_hook_arg = arg;
}

void el_pages_free(void *p)
{
    if (p && free_hook)
        free_hook(p, free_hook_arg);
    free(p);
}

enum { HOT, WARM, COLD, TIERS };

struct el_walk {
    char *mem;
    char *tier[TIERS];
    size_t node_bits[TIERS]; /* each tier holds 2^node_bits nodes */
};

static int tier_bits(size_t bytes, size_t *bits)
{
    if (bytes < EL_WALK_NODE || (bytes & (bytes - 1)) || bytes > EL_WALK_MAX_TIER)
        return -EINVAL;
    for (*bits = 0; ((size_t)EL_WALK_NODE << *bits) < bytes; (*bits)++)
        ;
    return 0;
}

int el_walk_create(el_walk_t **out, size_t hot_bytes, size_t warm_bytes, size_t cold_bytes)
{
    size_t bytes[TIERS] = { hot_bytes, warm_bytes, cold_bytes }, bits[TIERS];
    for (int t = 0; t < TIERS; t++)
        if (tier_bits(bytes[t], &bits[t]) != 0)
            return -EINVAL;
    if (!out)
        return -EINVAL;
    el_walk_t *w = malloc(sizeof *w);
    char *mem = el_pages_alloc(hot_bytes + warm_bytes + cold_bytes);
    if (!w || !mem) {
        free(w);
        el_pages_free(mem);
        return -ENOMEM;
    }
    w->mem = mem;
    for (int t = 0; t < TIERS; t++) {
        w->tier[t] = mem;
        w->node_bits[t] = bits[t];
        mem += bytes[t];
    }
    for (char *node = w->mem; node < mem; node += EL_WALK_NODE) /* every record: the tiers */
        memcpy(node, w->tier, sizeof w->tier);
    *out = w;
    return 0;
}

void el_walk_destroy(el_walk_t *w)
{
    if (!w)
        return;
    el_pages_free(w->mem);
    free(w);
}

/* Each step draws r (a 64-bit LCG; only its high bits are used): the top 4 bits pick a row c of
 * the table, i.e. the tier t to jump into; bits 36..59 pick the node in it. The step loads, from
 * the current node, its pointer to tier t (8 * t bytes into the record); the next node is that
 * pointer plus the node's offset. So the address of the load of step k is
 *   base (loaded by step k-1) + offset (drawn by step k-1) + 8 * t (drawn by step k),
 * a few instructions off the chain of loads: the walk runs at the speed of its loads. */
typedef struct {
    uint64_t offset_mask[16]; /* (nodes in the tier - 1) * EL_WALK_NODE */
    uint64_t slot[16];        /* 8 * tier */
} walk_table_t;

#define LCG_A 6364136223846793005ull
#define LCG_C 1442695040888963407ull

static walk_table_t walk_table(const el_walk_t *w, el_walk_mix_t mix)
{
    walk_table_t tab;
    for (unsigned c = 0; c < 16; c++) {
        unsigned t = (c >= mix.hot16) + (c >= mix.hot16 + mix.warm16);
        tab.offset_mask[c] = (((uint64_t)1 << w->node_bits[t]) - 1) * EL_WALK_NODE;
        tab.slot[c] = 8 * (uint64_t)t;
    }
    return tab;
}

/* The walk's state between two steps. */
typedef struct {
    const char *base; /* the tier base the last load returned */
    uint64_t offset;  /* the node's offset in that tier */
    uint64_t r;       /* the generator */
} walk_state_t;

static int bad_mix(const el_walk_t *w, el_walk_mix_t mix)
{
    return !w || mix.hot16 > 16 || mix.warm16 > 16 - mix.hot16;
}

int el_walk_trace(const el_walk_t *w, el_walk_mix_t mix, uint64_t seed, size_t steps,
                  uint64_t *addr)
{
    if (bad_mix(w, mix) || !addr)
        return -EINVAL;
    walk_table_t tab = walk_table(w, mix);
    walk_state_t s = { w->tier[HOT], 0, seed };
    for (size_t k = 0; k < steps; k++) {
        s.r = s.r * LCG_A + LCG_C;
        unsigned c = (unsigned)(s.r >> 60);
        const char *at = s.base + s.offset + tab.slot[c];
        addr[k] = (uint64_t)(uintptr_t)at;
        s.offset = (s.r >> 30) & tab.offset_mask[c];
        s.base = *(const char *const *)at;
    }
    return 0;
}

/* The timed walk: the same steps as el_walk_trace, without the recording. */
static void walk_run(const walk_table_t *tab, walk_state_t *s, size_t n)
{
    const char *base = s->base;
    uint64_t offset = s->offset, r = s->r;
    for (size_t k = 0; k < n; k++) {
        r = r * LCG_A + LCG_C;
        unsigned c = (unsigned)(r >> 60);
        uint64_t d = offset + tab->slot[c];
        offset = (r >> 30) & tab->offset_mask[c];
        base = *(const char *const *)(base + d);
    }
    *s = (walk_state_t){ base, offset, r };
}

int el_walk_time(const el_walk_t *w, el_walk_mix_t mix, uint64_t seed, size_t warmup,
                 size_t steps, double *ns)
{
    if (bad_mix(w, mix) || !ns || steps < EL_WALK_BATCH)
        return -EINVAL;
    size_t batches = steps / EL_WALK_BATCH;
    double *t = malloc(batches * sizeof *t);
    if (!t)
        return -ENOMEM;
    walk_table_t tab = walk_table(w, mix);
    walk_state_t s = { w->tier[HOT], 0, seed };
    walk_run(&tab, &s, warmup);
    for (size_t b = 0; b < batches; b++) {
        uint64_t t0 = mm_now_ns();
        walk_run(&tab, &s, EL_WALK_BATCH);
        t[b] = (double)(mm_now_ns() - t0) / EL_WALK_BATCH;
    }
    const char *volatile sink = s.base; /* the loads' result is used */
    (void)sink;
    *ns = mm_median(t, batches);
    free(t);
    return 0;
}
