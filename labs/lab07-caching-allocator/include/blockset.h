/* Lab 07, part B: the block, and the set of free blocks a pool keeps, ordered by
 * (stream, size, address) like PyTorch's BlockPool (a std::set with that comparator). A sorted
 * array is enough here: a pool rarely holds more than a few hundred free blocks. */
#ifndef CA_BLOCKSET_H
#define CA_BLOCKSET_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "backend.h"
#include "sizes.h"

/* One piece of a segment (PyTorch's Block). A segment is one raw_alloc region; its blocks tile
 * it in address order, linked through prev/next. Block headers live in host memory, never inside
 * the device memory they describe (the host cannot read GPU memory). */
typedef struct ca_block {
    uintptr_t addr;             /* device address of the block's first byte */
    size_t size;                /* bytes, a multiple of CA_MIN_BLOCK */
    ca_stream_t stream;         /* the stream the block's segment was allocated for */
    ca_pool_t pool;             /* the pool of the block's segment */
    bool allocated;             /* handed out by ca_alloc and not yet freed */
    unsigned pending_events;    /* freed, but events still to wait for before reuse */
    uint64_t stream_uses;       /* bit s set: used on stream s (ca_record_stream) */
    struct ca_block *prev, *next; /* neighbours in the same segment, NULL at its ends */
} ca_block_t;

/* Free blocks, sorted by (stream, size, addr); v[0..n) in that order, room for cap. */
typedef struct {
    ca_block_t **v;
    size_t n, cap;
} ca_blockset_t;

/* An empty set (no memory yet). */
void ca_blockset_init(ca_blockset_t *s);

/* Frees the set's array (not the blocks) and leaves it empty. */
void ca_blockset_destroy(ca_blockset_t *s);

/* Makes room for at least `n` blocks in total, so that inserts up to n cannot fail.
 * Returns 0 or -ENOMEM (the set unchanged). */
int ca_blockset_reserve(ca_blockset_t *s, size_t n);

/* Inserts b at its place in the order. Returns 0;
 *   -EEXIST: b is already in the set;
 *   -ENOMEM: out of memory (set unchanged);
 *   -EINVAL: NULL arguments. */
int ca_blockset_insert(ca_blockset_t *s, ca_block_t *b);

/* Removes b. Returns 0;
 *   -ENOENT: b is not in the set;
 *   -EINVAL: NULL arguments. */
int ca_blockset_erase(ca_blockset_t *s, ca_block_t *b);

/* Best fit: the first block in the order whose stream is `stream` and whose size is at least
 * `size` (so the smallest such size, and among equal sizes the lowest address). NULL if none.
 * O(log n): a binary search for (stream, size, 0). */
ca_block_t *ca_blockset_best_fit(const ca_blockset_t *s, ca_stream_t stream, size_t size);

#endif
