/* Lab 07, part A: rounding, pools, segment sizes and the split rule (contract in include/sizes.h).
 * Background and hints: labs/lab07-caching-allocator/README.md, `make hint LAB=07`. */
#include "sizes.h"

size_t ca_round_size(size_t size)
{
    /* ===== YOUR CODE HERE =====
     * Next multiple of CA_MIN_BLOCK, at least CA_MIN_BLOCK; 0 above CA_MAX_ALLOC (check that
     * first: size + 511 can overflow). */
    (void)size;
    return 0;
    /* ===== END YOUR CODE ===== */
}

ca_pool_t ca_pool_for(size_t rounded)
{
    /* ===== YOUR CODE HERE ===== */
    (void)rounded;
    return CA_POOL_LARGE;
    /* ===== END YOUR CODE ===== */
}

size_t ca_segment_size(size_t rounded)
{
    /* ===== YOUR CODE HERE =====
     * Three cases: the small pool's buffer, the large buffer, or rounded up to CA_ROUND_LARGE. */
    (void)rounded;
    return 0;
    /* ===== END YOUR CODE ===== */
}

bool ca_should_split(ca_pool_t pool, size_t block_size, size_t rounded)
{
    /* ===== YOUR CODE HERE =====
     * remaining = block_size - rounded; the small and the large pool have different rules. */
    (void)pool, (void)block_size, (void)rounded;
    return false;
    /* ===== END YOUR CODE ===== */
}
