/* Lab 07, part C: a caching device allocator in the manner of PyTorch's CUDACachingAllocator.
 * It asks the back end for big segments rarely and hands out pieces of them often. */

/* Its parts: rounding, a small and a large pool, best fit, splitting, coalescing of free
 * neighbours, stream-ordered reuse, release of cached segments and one retry when the device is
 * full, and statistics.
 *
 * The stream model. A block belongs to the stream it was allocated on; only allocations on that
 * stream reuse it. Freeing is stream-ordered: work on the block's own stream that was queued
 * before the free runs before any later use, so the block can go back to the pool at once. If
 * the program also used the block on other streams (ca_record_stream), ca_free records an event
 * on each of them instead, and the block returns to the pool only once ca_process_events (called
 * by every ca_alloc) sees all of those events done. Until then it counts as active, not
 * allocated. Not thread-safe: one thread uses an allocator at a time. */
#ifndef CA_ALLOCATOR_H
#define CA_ALLOCATOR_H
#include <stddef.h>
#include <stdint.h>
#include "backend.h"
#include "blockset.h"
#include "sizes.h"

typedef struct ca_allocator ca_allocator_t;

typedef struct {
    uint64_t current, peak;
} ca_stat_t;

enum { CA_STAT_ALL = 0, CA_STAT_SMALL = 1, CA_STAT_LARGE = 2, CA_STAT_KINDS = 3 };

/* Statistics, after PyTorch's DeviceStats. Byte counts come as [CA_STAT_ALL] (both pools),
 * [CA_STAT_SMALL] and [CA_STAT_LARGE]; each has its current value and its peak (the most it has
 * been since creation or ca_reset_peak_stats). Always: allocated <= active <= reserved. */
typedef struct {
    ca_stat_t allocated_bytes[CA_STAT_KINDS]; /* sizes of blocks handed out and not yet freed */
    ca_stat_t active_bytes[CA_STAT_KINDS];    /* allocated + freed blocks waiting for events */
    ca_stat_t reserved_bytes[CA_STAT_KINDS];  /* sizes of the segments held from the back end */
    ca_stat_t allocations;                    /* blocks handed out and not yet freed */
    ca_stat_t segments;                       /* segments held */
    uint64_t raw_allocs;        /* raw_alloc calls made, failed ones included */
    uint64_t raw_frees;         /* raw_free calls made */
    uint64_t num_alloc_retries; /* raw_alloc calls retried after releasing cached segments */
    uint64_t num_ooms;          /* ca_alloc calls that returned -ENOMEM */
} ca_stats_t;

/* Creates an allocator over back end *be (the table is copied; the back end must outlive the
 * allocator). Free with ca_destroy. Returns 0 and sets *out;
 *   -EINVAL: out or be is NULL or be lacks a function;
 *   -ENOMEM: out of memory. */
int ca_create(ca_allocator_t **out, const ca_backend_t *be);

/* Returns every segment to the back end (live blocks included: their pointers become invalid)
 * and releases every pending event. NULL is ignored. */
void ca_destroy(ca_allocator_t *a);

/* Allocates `size` bytes for use on `stream` and sets *out to a CA_MIN_BLOCK-aligned device
 * address. size 0: sets *out to NULL and returns 0 (nothing allocated, like PyTorch).
 * First processes finished events; then takes the best-fitting free block of the request's pool
 * and stream, splitting it by ca_should_split; if none fits, asks the back end for a segment of
 * ca_segment_size bytes. If the back end is full (-ENOMEM), releases every cached segment
 * (after a synchronize, so that pending frees complete) and retries once.
 * Returns 0;
 *   -EINVAL: NULL a or out, or stream >= CA_MAX_STREAMS;
 *   -ENOMEM: the request cannot be met (size > CA_MAX_ALLOC, or the device is still full after
 *            the retry; counted in num_ooms);
 *   another back-end error as it came (no retry).
 * On failure *out is untouched and every live block is intact. */
int ca_alloc(ca_allocator_t *a, size_t size, ca_stream_t stream, void **out);

/* Frees a block from ca_alloc (see the stream model above). NULL: returns 0 and does nothing.
 * Returns 0;
 *   -EINVAL: a NULL allocator or a pointer that is not a live allocation of this allocator
 *            (never allocated, an interior pointer, or already freed);
 *   a back-end error from recording an event (the block then stays allocated);
 *   -ENOMEM: out of host memory for bookkeeping (the block stays allocated). */
int ca_free(ca_allocator_t *a, void *ptr);

/* Notes that the live block at ptr is also used by work on `stream` (torch's
 * Tensor.record_stream): its free will wait for that stream's work. Recording its own stream
 * changes nothing. Returns 0, or -EINVAL (NULL a, ptr not live, stream out of range). */
int ca_record_stream(ca_allocator_t *a, void *ptr, ca_stream_t stream);

/* Returns to their pools the freed blocks whose events are all done, and releases those events.
 * Returns 0 or a back-end error. */
int ca_process_events(ca_allocator_t *a);

/* torch.cuda.empty_cache(): synchronizes the back end, processes the events (now all done) and
 * returns to the back end every segment that is entirely free. Live blocks are untouched.
 * Returns 0 or a back-end error; -EINVAL for NULL. */
int ca_empty_cache(ca_allocator_t *a);

/* Copies the statistics into *out. Returns 0, or -EINVAL for NULL arguments. */
int ca_get_stats(const ca_allocator_t *a, ca_stats_t *out);

/* Sets every peak to its current value. Does nothing for NULL. */
void ca_reset_peak_stats(ca_allocator_t *a);

/* The size of the live block at ptr (its rounded size, more if the block was not split), or 0
 * if ptr is not a live allocation of this allocator. */
size_t ca_block_size(const ca_allocator_t *a, const void *ptr);

/* Part D. Checks the allocator's bookkeeping for consistency (malloclab's mm_checkheap) and
 * changes nothing. Every block of every segment must be in exactly one place: its pool's free
 * set, the live map, or the pending frees (waiting for events). Returns 0 when every rule below
 * holds, else the first of these errors that applies, in this order:
 * -EINVAL: a is NULL.
 * -EFAULT: a segment's blocks do not tile it: a walk along prev/next does not end, a link is
 *          not mutual (b->next->prev != b), a block does not start where its prev ends, a size
 *          or address is not a multiple of CA_MIN_BLOCK, or neighbours differ in stream or
 *          pool.
 * -ENOENT: a block reached along a segment's links is in none of the three places.
 * -EEXIST: a block is in more than one place, or its flags contradict its place (free: not
 *          allocated, no pending events; live: allocated, no pending events; pending: not
 *          allocated, pending_events equal to the number of its outstanding events).
 * -EILSEQ: a free set is not in (stream, size, address) order, holds a block of the other
 *          pool, or holds two neighbours of one segment (ca_free missed a merge).
 * -EDOM:   a statistic's current value disagrees with the blocks (allocated_bytes, active_bytes
 *          and reserved_bytes of each kind, allocations, segments), or exceeds its peak.
 * -ENOMEM: no memory for the list of the blocks it has seen (nothing was checked).
 * Cost: O(n log n) for n blocks, so that tests can call it after every operation. */
int ca_check(const ca_allocator_t *a);

/* Test-only (the tests corrupt a header on purpose and expect ca_check to see it; the allocator's
 * users never call this): the header of the block that starts at device address addr, wherever
 * it is (free set, live map or pending frees), or NULL if no block starts there or a is NULL. */
ca_block_t *ca_test_block(ca_allocator_t *a, const void *addr);

#endif
