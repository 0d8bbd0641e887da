/* Small seeded PRNG (splitmix64) so tests and benchmarks are random yet reproducible. */
#ifndef MM_RNG_H
#define MM_RNG_H
#include <stdint.h>

typedef struct { uint64_t state; } mm_rng_t;

/* Returns a generator started from `seed` (any value). */
mm_rng_t mm_rng_new(uint64_t seed);

/* Next 64 random bits. */
uint64_t mm_rng_next(mm_rng_t *r);

/* Uniform integer in [lo, hi] (lo <= hi). */
uint64_t mm_rng_range(mm_rng_t *r, uint64_t lo, uint64_t hi);

/* Uniform double in [0, 1). */
double mm_rng_unit(mm_rng_t *r);

#endif
