/* Lab 02, part C (reference): a set-associative LRU cache simulator (see cachesim.h).
 * Each set keeps its lines in recency order: slot 0 is the most recently used. */
#include "cachesim.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct el_cache {
    size_t sets, ways, line;
    size_t *used;    /* valid lines per set */
    uint64_t *lines; /* sets * ways memory-line numbers, each set in recency order */
    el_cache_stats_t stats;
};

static int pow2(size_t x)
{
    return x && !(x & (x - 1));
}

int el_cache_create(el_cache_t **out, size_t sets, size_t ways, size_t line)
{
    if (!out || !pow2(sets) || !pow2(line) || ways == 0 || ways > EL_MAX_WAYS ||
        sets > SIZE_MAX / EL_MAX_WAYS / sizeof(uint64_t))
        return -EINVAL;
    el_cache_t *c = calloc(1, sizeof *c);
    size_t *used = calloc(sets, sizeof *used);
    uint64_t *lines = malloc(sets * ways * sizeof *lines);
    if (!c || !used || !lines) {
        free(c);
        free(used);
        free(lines);
        return -ENOMEM;
    }
    *c = (el_cache_t){ sets, ways, line, used, lines, { 0, 0, 0 } };
    *out = c;
    return 0;
}

/* Looks memory line `ln` up in its set; returns 1 on a hit, 0 on a miss. */
static int touch(el_cache_t *c, uint64_t ln)
{
    size_t set = (size_t)(ln & (c->sets - 1)), n = c->used[set];
    uint64_t *s = c->lines + set * c->ways;
    size_t i = 0;
    while (i < n && s[i] != ln)
        i++;
    int hit = i < n;
    if (hit) {
        c->stats.hits++;
    } else if (n == c->ways) {
        c->stats.misses++;
        c->stats.evictions++;
        i = n - 1; /* the least recently used slot is overwritten */
    } else {
        c->stats.misses++;
        i = c->used[set]++;
    }
    memmove(s + 1, s, i * sizeof *s);
    s[0] = ln;
    return hit;
}

int el_cache_access(el_cache_t *c, uint64_t addr, size_t size)
{
    if (!c || size == 0 || size > EL_MAX_ACCESS || addr > UINT64_MAX - (size - 1))
        return -EINVAL;
    uint64_t first = addr / c->line, last = (addr + (size - 1)) / c->line;
    int missed = 0;
    for (uint64_t ln = first;; ln++) {
        missed += !touch(c, ln);
        if (ln == last)
            break;
    }
    return missed;
}

el_cache_stats_t el_cache_stats(const el_cache_t *c)
{
    el_cache_stats_t zero = { 0, 0, 0 };
    return c ? c->stats : zero;
}

void el_cache_reset_stats(el_cache_t *c)
{
    if (c)
        c->stats = (el_cache_stats_t){ 0, 0, 0 };
}

void el_cache_destroy(el_cache_t *c)
{
    if (!c)
        return;
    free(c->used);
    free(c->lines);
    free(c);
}
