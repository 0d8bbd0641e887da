/* Lab 06, part C: a shuffled batch sampler, the index source of a training data loader. Each
 * epoch visits every index in [0, n) exactly once, in an order that depends only on the seed and
 * the epoch number (so a run resumed at epoch e sees the same batches, as PyTorch's
 * DistributedSampler.set_epoch(e) promises), cut into batches. */
#ifndef DS_SAMPLER_H
#define DS_SAMPLER_H
#include <stddef.h>
#include <stdint.h>

/* Epoch e shuffles with mm_rng_new(seed + e * DS_EPOCH_STRIDE): each epoch starts 2^32 draws
 * further along one splitmix64 sequence, so epochs never share draws (for n < 2^32). */
#define DS_EPOCH_STRIDE (0x9E3779B97F4A7C15ull << 32)

typedef struct ds_sampler ds_sampler_t;

/* A sampler over indices [0, n) in batches of `batch`. The order of epoch e is exactly this
 * Fisher-Yates shuffle:
 *     mm_rng_t r = mm_rng_new(seed + e * DS_EPOCH_STRIDE);
 *     perm[i] = i for all i;
 *     for (i = n - 1; i >= 1; i--) { j = mm_rng_range(&r, 0, i); swap perm[i] and perm[j]; }
 * and its batches are perm[0..batch), perm[batch..2 batch), ...; the last one is shorter when
 * batch does not divide n, and left out when drop_last is non-zero. Starts at epoch 0.
 * Free with ds_sampler_destroy. Returns 0 and sets *out;
 *   -EINVAL: out is NULL, n or batch is 0, or drop_last is set and batch > n (an epoch without a
 *            batch);
 *   -ENOMEM: out of memory (nothing leaked). */
int ds_sampler_create(ds_sampler_t **out, uint64_t n, uint64_t batch, int drop_last,
                      uint64_t seed);

/* Writes the next batch of the current epoch to idx[0..k) and returns k (1..batch). At the end
 * of the epoch returns 0 and moves to the next epoch, so the call after a 0 starts epoch + 1.
 * Returns 0 for NULL arguments. */
size_t ds_sampler_next(ds_sampler_t *s, uint64_t *idx);

/* Batches per epoch: n / batch rounded down with drop_last, up without (len(DataLoader)). */
uint64_t ds_sampler_batches(const ds_sampler_t *s);

/* The current epoch; 0 for NULL. */
uint64_t ds_sampler_epoch(const ds_sampler_t *s);

/* Jumps to the start of `epoch` (resuming a run). Ignores NULL. */
void ds_sampler_set_epoch(ds_sampler_t *s, uint64_t epoch);

/* Frees; NULL is ignored. */
void ds_sampler_destroy(ds_sampler_t *s);

#endif
