/* Lab 07: address -> block hash map (see ptrmap.h). Provided: not yours to edit; the grader
 * builds its own copy. Linear probing keeps a key's run of slots unbroken; removal shifts later
 * entries of the run back instead of leaving tombstones. */
#include "ptrmap.h"
#include <errno.h>
#include <stdlib.h>

static size_t slot_of(uintptr_t key, size_t cap)
{
    uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ull; /* Fibonacci hashing */
    return (size_t)(h >> 32) & (cap - 1);
}

void ca_ptrmap_init(ca_ptrmap_t *m)
{
    m->keys = NULL;
    m->vals = NULL;
    m->n = m->cap = 0;
}

void ca_ptrmap_destroy(ca_ptrmap_t *m)
{
    free(m->keys);
    free(m->vals);
    ca_ptrmap_init(m);
}

static void place(uintptr_t *keys, ca_block_t **vals, size_t cap, uintptr_t key, ca_block_t *b)
{
    size_t i = slot_of(key, cap);
    while (keys[i] != 0)
        i = (i + 1) & (cap - 1);
    keys[i] = key;
    vals[i] = b;
}

static int grow(ca_ptrmap_t *m)
{
    size_t cap = m->cap ? 2 * m->cap : 64;
    uintptr_t *keys = calloc(cap, sizeof *keys);
    ca_block_t **vals = calloc(cap, sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return -ENOMEM;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->keys[i] != 0)
            place(keys, vals, cap, m->keys[i], m->vals[i]);
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    return 0;
}

static size_t find(const ca_ptrmap_t *m, uintptr_t key)
{
    if (m->cap == 0 || key == 0)
        return SIZE_MAX;
    for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == key)
            return i;
        if (m->keys[i] == 0)
            return SIZE_MAX;
    }
}

int ca_ptrmap_put(ca_ptrmap_t *m, uintptr_t key, ca_block_t *b)
{
    if (!m || key == 0 || !b)
        return -EINVAL;
    if (find(m, key) != SIZE_MAX)
        return -EEXIST;
    if (2 * (m->n + 1) > m->cap && grow(m) != 0)
        return -ENOMEM;
    place(m->keys, m->vals, m->cap, key, b);
    m->n++;
    return 0;
}

ca_block_t *ca_ptrmap_get(const ca_ptrmap_t *m, uintptr_t key)
{
    size_t i = m ? find(m, key) : SIZE_MAX;
    return i == SIZE_MAX ? NULL : m->vals[i];
}

/* After emptying slot `hole`, moves back the entries of the run that probing would no longer
 * reach (Knuth's algorithm R for linear probing). */
static void close_hole(ca_ptrmap_t *m, size_t hole)
{
    size_t mask = m->cap - 1;
    for (size_t i = (hole + 1) & mask; m->keys[i] != 0; i = (i + 1) & mask) {
        size_t home = slot_of(m->keys[i], m->cap);
        /* the entry at i may move to hole unless its home lies cyclically in (hole, i] */
        int stays = hole <= i ? (hole < home && home <= i) : (hole < home || home <= i);
        if (stays)
            continue;
        m->keys[hole] = m->keys[i];
        m->vals[hole] = m->vals[i];
        m->keys[i] = 0;
        hole = i;
    }
}

ca_block_t *ca_ptrmap_remove(ca_ptrmap_t *m, uintptr_t key)
{
    size_t i = m ? find(m, key) : SIZE_MAX;
    if (i == SIZE_MAX)
        return NULL;
    ca_block_t *b = m->vals[i];
    m->keys[i] = 0;
    m->n--;
    close_hole(m, i);
    return b;
}

ca_block_t *ca_ptrmap_next(const ca_ptrmap_t *m, size_t *cursor)
{
    while (m && *cursor < m->cap) {
        size_t i = (*cursor)++;
        if (m->keys[i] != 0)
            return m->vals[i];
    }
    return NULL;
}
