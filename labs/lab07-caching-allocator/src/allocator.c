/* Lab 07, parts C and D: the caching allocator and its checker (contracts and stream model in
 * include/allocator.h).
 * Background and hints: labs/lab07-caching-allocator/README.md, `make hint LAB=07`.
 * Available: sizes.h (part A), blockset.h (part B), ptrmap.h (given: address -> block). */
#include "allocator.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "blockset.h"
#include "ptrmap.h"

struct ca_allocator {
    /* ===== YOUR CODE HERE: what the allocator keeps. A sketch:
     *   ca_backend_t be;          a copy of the back end's table
     *   ca_blockset_t pool[2];    free blocks of the small and the large pool
     *   ca_ptrmap_t live;         address -> allocated block, for ca_free
     *   a list of (event, block)  frees waiting for other streams
     *   ca_stats_t st;            the statistics
     * ===== */
    ca_stats_t st;
    /* ===== END YOUR CODE ===== */
};

/* ===== YOUR CODE HERE: static helpers. Suggested, after PyTorch's DeviceCachingAllocator:
 *   stat updates (current, and peak when current grows), for ALL and for the block's pool
 *   new_segment   raw_alloc of ca_segment_size; on -ENOMEM release cached segments, retry once
 *   split         cut a block down, the rest becomes a free block linked after it
 *   free_block    back to the pool, merged with free neighbours in the same segment
 *   release_cached  synchronize, process events, raw_free every free block with no neighbours
 * ===== */
/* ===== END YOUR CODE ===== */

int ca_create(ca_allocator_t **out, const ca_backend_t *be)
{
    /* ===== YOUR CODE HERE ===== */
    (void)out, (void)be;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

void ca_destroy(ca_allocator_t *a)
{
    /* ===== YOUR CODE HERE =====
     * raw_free every segment (the blocks with prev == NULL), release pending events, free
     * every block header and the allocator. */
    free(a);
    /* ===== END YOUR CODE ===== */
}

int ca_alloc(ca_allocator_t *a, size_t size, ca_stream_t stream, void **out)
{
    /* ===== YOUR CODE HERE =====
     * Check arguments; size 0; round; process events; best fit in the pool's set, else a new
     * segment; split by ca_should_split; remember the block as live; update the statistics. */
    (void)a, (void)size, (void)stream, (void)out;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int ca_free(ca_allocator_t *a, void *ptr)
{
    /* ===== YOUR CODE HERE =====
     * Find the live block; if other streams used it, record one event on each and keep it
     * pending; else return it to its pool at once (merging with free neighbours). */
    (void)a, (void)ptr;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int ca_record_stream(ca_allocator_t *a, void *ptr, ca_stream_t stream)
{
    /* ===== YOUR CODE HERE ===== */
    (void)a, (void)ptr, (void)stream;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int ca_process_events(ca_allocator_t *a)
{
    /* ===== YOUR CODE HERE ===== */
    (void)a;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int ca_empty_cache(ca_allocator_t *a)
{
    /* ===== YOUR CODE HERE ===== */
    (void)a;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int ca_get_stats(const ca_allocator_t *a, ca_stats_t *out)
{
    /* ===== YOUR CODE HERE ===== */
    (void)a, (void)out;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

void ca_reset_peak_stats(ca_allocator_t *a)
{
    /* ===== YOUR CODE HERE ===== */
    (void)a;
    /* ===== END YOUR CODE ===== */
}

size_t ca_block_size(const ca_allocator_t *a, const void *ptr)
{
    /* ===== YOUR CODE HERE ===== */
    (void)a, (void)ptr;
    return 0;
    /* ===== END YOUR CODE ===== */
}

int ca_check(const ca_allocator_t *a)
{
    /* ===== YOUR CODE HERE (part D) =====
     * Gather every block your three places name (free sets, live map, pending frees), then walk
     * each segment from its first block (prev == NULL) and compare. Return the first error of
     * the contract's list, in its order. */
    (void)a;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

ca_block_t *ca_test_block(ca_allocator_t *a, const void *addr)
{
    /* ===== YOUR CODE HERE (part D) =====
     * Test-only: look in the live map, then the free sets, then the pending frees. */
    (void)a, (void)addr;
    return NULL;
    /* ===== END YOUR CODE ===== */
}
