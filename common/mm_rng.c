/* splitmix64 generator (Steele, Lea, Flood 2014), as used to seed xoshiro (see mm_rng.h). */
#include "mm_rng.h"

mm_rng_t mm_rng_new(uint64_t seed)
{
    mm_rng_t r = { seed };
    return r;
}

uint64_t mm_rng_next(mm_rng_t *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t mm_rng_range(mm_rng_t *r, uint64_t lo, uint64_t hi)
{
    uint64_t span = hi - lo + 1;
    if (span == 0)
        return mm_rng_next(r);
    return lo + mm_rng_next(r) % span;
}

double mm_rng_unit(mm_rng_t *r)
{
    return (double)(mm_rng_next(r) >> 11) * 0x1.0p-53;
}
