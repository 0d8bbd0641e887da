/* Lab 07, part B (reference): free blocks in a sorted array, ordered by (stream, size, address)
 * (see blockset.h). */
#include "blockset.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* <0, 0, >0 as block a sorts before, with, after the key (stream, size, addr). */
static int cmp_key(const ca_block_t *a, ca_stream_t stream, size_t size, uintptr_t addr)
{
    if (a->stream != stream)
        return a->stream < stream ? -1 : 1;
    if (a->size != size)
        return a->size < size ? -1 : 1;
    if (a->addr != addr)
        return a->addr < addr ? -1 : 1;
    return 0;
}

/* The index of the first block that does not sort before the key. */
static size_t lower_bound(const ca_blockset_t *s, ca_stream_t stream, size_t size, uintptr_t addr)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_key(s->v[mid], stream, size, addr) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void ca_blockset_init(ca_blockset_t *s)
{
    s->v = NULL;
    s->n = s->cap = 0;
}

void ca_blockset_destroy(ca_blockset_t *s)
{
    free(s->v);
    ca_blockset_init(s);
}

int ca_blockset_reserve(ca_blockset_t *s, size_t n)
{
    if (n <= s->cap)
        return 0;
    size_t cap = s->cap ? s->cap : 16;
    while (cap < n)
        cap *= 2;
    ca_block_t **v = realloc(s->v, cap * sizeof *v);
    if (!v)
        return -ENOMEM;
    s->v = v;
    s->cap = cap;
    return 0;
}

int ca_blockset_insert(ca_blockset_t *s, ca_block_t *b)
{
    if (!s || !b)
        return -EINVAL;
    size_t i = lower_bound(s, b->stream, b->size, b->addr);
    if (i < s->n && s->v[i] == b)
        return -EEXIST;
    if (ca_blockset_reserve(s, s->n + 1) != 0)
        return -ENOMEM;
    memmove(&s->v[i + 1], &s->v[i], (s->n - i) * sizeof *s->v);
    s->v[i] = b;
    s->n++;
    return 0;
}

int ca_blockset_erase(ca_blockset_t *s, ca_block_t *b)
{
    if (!s || !b)
        return -EINVAL;
    size_t i = lower_bound(s, b->stream, b->size, b->addr);
    if (i >= s->n || s->v[i] != b)
        return -ENOENT;
    memmove(&s->v[i], &s->v[i + 1], (s->n - i - 1) * sizeof *s->v);
    s->n--;
    return 0;
}

ca_block_t *ca_blockset_best_fit(const ca_blockset_t *s, ca_stream_t stream, size_t size)
{
    if (!s)
        return NULL;
    size_t i = lower_bound(s, stream, size, 0);
    return i < s->n && s->v[i]->stream == stream ? s->v[i] : NULL;
}
