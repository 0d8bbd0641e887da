/* Lab 07, part A: how PyTorch's CUDACachingAllocator rounds a request, which pool serves it, how
 * big a segment it asks the device for, and when it splits a block. The constants are PyTorch's
 * (c10/cuda/CUDACachingAllocator.cpp); the functions are pure, so they are tested on their own. */
#ifndef CA_SIZES_H
#define CA_SIZES_H
#include <stdbool.h>
#include <stddef.h>

#define CA_MIN_BLOCK ((size_t)512)               /* kMinBlockSize: every size a multiple of it */
#define CA_SMALL_SIZE ((size_t)1 << 20)          /* kSmallSize: largest request of the small pool */
#define CA_SMALL_BUFFER ((size_t)2 << 20)        /* kSmallBuffer: segment size of the small pool */
#define CA_LARGE_BUFFER ((size_t)20 << 20)       /* kLargeBuffer: segment for mid-size requests */
#define CA_MIN_LARGE_ALLOC ((size_t)10 << 20)    /* kMinLargeAlloc: from here, own-size segments */
#define CA_ROUND_LARGE ((size_t)2 << 20)         /* kRoundLarge: those are rounded to 2 MiB */
#define CA_MAX_ALLOC ((size_t)1 << 48)           /* larger requests are refused (-ENOMEM) */

typedef enum { CA_POOL_SMALL = 0, CA_POOL_LARGE = 1 } ca_pool_t;

/* The request rounded up to a multiple of CA_MIN_BLOCK, at least CA_MIN_BLOCK (0 -> 512).
 * Returns 0 for size > CA_MAX_ALLOC. */
size_t ca_round_size(size_t size);

/* The pool that serves a rounded size: CA_POOL_SMALL up to and including CA_SMALL_SIZE, else
 * CA_POOL_LARGE. */
ca_pool_t ca_pool_for(size_t rounded);

/* Bytes to ask the device for when no cached block fits a rounded size: CA_SMALL_BUFFER for the
 * small pool; CA_LARGE_BUFFER below CA_MIN_LARGE_ALLOC; else the size rounded up to a multiple
 * of CA_ROUND_LARGE. Returns 0 for rounded > CA_MAX_ALLOC. */
size_t ca_segment_size(size_t rounded);

/* Whether a free block of `block_size` bytes in `pool`, chosen for a request of `rounded` bytes
 * (rounded <= block_size), is split so that the remainder becomes a free block of its own:
 * small pool when the remainder is at least CA_MIN_BLOCK, large pool when it is more than
 * CA_SMALL_SIZE. An unsplit block is handed out whole. */
bool ca_should_split(ca_pool_t pool, size_t block_size, size_t rounded);

#endif
