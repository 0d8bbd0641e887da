/* Lab 06, part C: a seeded, shuffled batch sampler (contract in include/sampler.h). */
#include "sampler.h"
#include <errno.h>
#include <stdlib.h>
#include "mm_rng.h" /* mm_rng_new, mm_rng_range */

struct ds_sampler {
    /* ===== YOUR CODE HERE: sizes, seed, epoch, where the epoch is, the permutation ===== */
    uint64_t n;
    /* ===== END YOUR CODE ===== */
};

int ds_sampler_create(ds_sampler_t **out, uint64_t n, uint64_t batch, int drop_last,
                      uint64_t seed)
{
    /* ===== YOUR CODE HERE ===== */
    (void)out, (void)n, (void)batch, (void)drop_last, (void)seed;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

size_t ds_sampler_next(ds_sampler_t *s, uint64_t *idx)
{
    /* ===== YOUR CODE HERE: shuffle at the start of an epoch, exactly as sampler.h says ===== */
    (void)s, (void)idx;
    return 0;
    /* ===== END YOUR CODE ===== */
}

uint64_t ds_sampler_batches(const ds_sampler_t *s)
{
    /* ===== YOUR CODE HERE ===== */
    (void)s;
    return 0;
    /* ===== END YOUR CODE ===== */
}

uint64_t ds_sampler_epoch(const ds_sampler_t *s)
{
    /* ===== YOUR CODE HERE ===== */
    (void)s;
    return 0;
    /* ===== END YOUR CODE ===== */
}

void ds_sampler_set_epoch(ds_sampler_t *s, uint64_t epoch)
{
    /* ===== YOUR CODE HERE ===== */
    (void)s, (void)epoch;
    /* ===== END YOUR CODE ===== */
}

void ds_sampler_destroy(ds_sampler_t *s)
{
    /* ===== YOUR CODE HERE ===== */
    free(s);
    /* ===== END YOUR CODE ===== */
}
