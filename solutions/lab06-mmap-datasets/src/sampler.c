/* Lab 06, part C (reference): a seeded, shuffled batch sampler (see sampler.h). */
#include "sampler.h"
#include <errno.h>
#include <stdlib.h>
#include "mm_rng.h"

struct ds_sampler {
    uint64_t n, batch, seed, epoch;
    int drop_last;
    uint64_t pos;   /* next position in perm; n when the epoch is over */
    int shuffled;   /* perm holds the order of `epoch` */
    uint64_t *perm;
};

int ds_sampler_create(ds_sampler_t **out, uint64_t n, uint64_t batch, int drop_last,
                      uint64_t seed)
{
    if (!out || n == 0 || batch == 0 || (drop_last && batch > n) || n > SIZE_MAX / 8)
        return -EINVAL;
    ds_sampler_t *s = malloc(sizeof *s);
    uint64_t *perm = malloc((size_t)n * sizeof *perm);
    if (!s || !perm) {
        free(s);
        free(perm);
        return -ENOMEM;
    }
    *s = (ds_sampler_t){ n, batch, seed, 0, drop_last, 0, 0, perm };
    *out = s;
    return 0;
}

static void shuffle(ds_sampler_t *s)
{
    mm_rng_t r = mm_rng_new(s->seed + s->epoch * DS_EPOCH_STRIDE);
    for (uint64_t i = 0; i < s->n; i++)
        s->perm[i] = i;
    for (uint64_t i = s->n - 1; i >= 1; i--) {
        uint64_t j = mm_rng_range(&r, 0, i), t = s->perm[i];
        s->perm[i] = s->perm[j];
        s->perm[j] = t;
    }
    s->shuffled = 1;
}

size_t ds_sampler_next(ds_sampler_t *s, uint64_t *idx)
{
    if (!s || !idx)
        return 0;
    uint64_t left = s->n - s->pos;
    if (left == 0 || (s->drop_last && left < s->batch)) {
        ds_sampler_set_epoch(s, s->epoch + 1);
        return 0;
    }
    if (!s->shuffled)
        shuffle(s);
    uint64_t k = left < s->batch ? left : s->batch;
    for (uint64_t i = 0; i < k; i++)
        idx[i] = s->perm[s->pos + i];
    s->pos += k;
    return (size_t)k;
}

uint64_t ds_sampler_batches(const ds_sampler_t *s)
{
    if (!s)
        return 0;
    return s->drop_last ? s->n / s->batch : (s->n + s->batch - 1) / s->batch;
}

uint64_t ds_sampler_epoch(const ds_sampler_t *s)
{
    return s ? s->epoch : 0;
}

void ds_sampler_set_epoch(ds_sampler_t *s, uint64_t epoch)
{
    if (!s)
        return;
    s->epoch = epoch;
    s->pos = 0;
    s->shuffled = 0;
}

void ds_sampler_destroy(ds_sampler_t *s)
{
    if (!s)
        return;
    free(s->perm);
    free(s);
}
