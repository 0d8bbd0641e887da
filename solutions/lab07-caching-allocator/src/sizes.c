/* Lab 07, part A (reference): rounding, pools, segment sizes and the split rule (see sizes.h). */
#include "sizes.h"

static size_t round_up(size_t x, size_t to)
{
    return (x + to - 1) / to * to;
}

size_t ca_round_size(size_t size)
{
    if (size > CA_MAX_ALLOC)
        return 0;
    return size < CA_MIN_BLOCK ? CA_MIN_BLOCK : round_up(size, CA_MIN_BLOCK);
}

ca_pool_t ca_pool_for(size_t rounded)
{
    return rounded <= CA_SMALL_SIZE ? CA_POOL_SMALL : CA_POOL_LARGE;
}

size_t ca_segment_size(size_t rounded)
{
    if (rounded > CA_MAX_ALLOC)
        return 0;
    if (rounded <= CA_SMALL_SIZE)
        return CA_SMALL_BUFFER;
    if (rounded < CA_MIN_LARGE_ALLOC)
        return CA_LARGE_BUFFER;
    return round_up(rounded, CA_ROUND_LARGE);
}

bool ca_should_split(ca_pool_t pool, size_t block_size, size_t rounded)
{
    size_t remaining = block_size - rounded;
    if (pool == CA_POOL_SMALL)
        return remaining >= CA_MIN_BLOCK;
    return remaining > CA_SMALL_SIZE;
}
