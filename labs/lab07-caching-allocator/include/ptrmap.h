/* Lab 07: a hash map from a device address to its block (src/ptrmap.c, provided: do not edit),
 * for ca_free to find the block of a pointer in O(1), as PyTorch's allocated_blocks does.
 * Open addressing with linear probing; grows at 50% load; deletion without tombstones. */
#ifndef CA_PTRMAP_H
#define CA_PTRMAP_H
#include <stddef.h>
#include <stdint.h>
#include "blockset.h"

typedef struct {
    uintptr_t *keys;     /* 0 marks an empty slot (0 is never a block address) */
    ca_block_t **vals;
    size_t n, cap;       /* entries, slots (a power of two, or 0) */
} ca_ptrmap_t;

/* An empty map (no memory yet). */
void ca_ptrmap_init(ca_ptrmap_t *m);

/* Frees the map's arrays (not the blocks) and leaves it empty. */
void ca_ptrmap_destroy(ca_ptrmap_t *m);

/* Maps key -> b. Returns 0;
 *   -EEXIST: key is already there;
 *   -EINVAL: key 0 or b NULL;
 *   -ENOMEM: out of memory (map unchanged). */
int ca_ptrmap_put(ca_ptrmap_t *m, uintptr_t key, ca_block_t *b);

/* The block mapped from key, or NULL. */
ca_block_t *ca_ptrmap_get(const ca_ptrmap_t *m, uintptr_t key);

/* Removes key and returns its block, or NULL if key is not there. */
ca_block_t *ca_ptrmap_remove(ca_ptrmap_t *m, uintptr_t key);

/* Iteration: starting with *cursor = 0, returns one block per call and NULL at the end. The map
 * must not change during an iteration. */
ca_block_t *ca_ptrmap_next(const ca_ptrmap_t *m, size_t *cursor);

#endif
