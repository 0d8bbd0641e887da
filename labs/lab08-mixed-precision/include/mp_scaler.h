/* Lab 08, part B: dynamic loss scaling, as torch.cuda.amp.GradScaler does it. fp16 gradients
 * underflow below 2^-24; multiplying the loss by a large scale lifts them into range. When the
 * scale is too large some gradient overflows: that step is skipped and the scale halved. */
#ifndef MP_SCALER_H
#define MP_SCALER_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
    float init_scale;         /* the first scale; PyTorch's default 65536 (2^16) */
    float growth_factor;      /* scale *= this after growth_interval clean steps; > 1 (2.0) */
    float backoff_factor;     /* scale *= this after an overflow; in (0, 1) (0.5) */
    uint32_t growth_interval; /* clean steps in a row before growing; >= 1 (2000) */
    float min_scale;          /* the scale never goes below this; > 0 (1.0) */
    float max_scale;          /* nor above this; >= min_scale (2^24) */
} mp_scaler_opts_t;

typedef struct {
    float scale;           /* multiply the loss by this before backward */
    mp_scaler_opts_t opts; /* a copy of the options it was created with */
    uint32_t clean_steps;  /* steps without overflow since the scale last changed */
    uint64_t steps;        /* calls to mp_scaler_update */
    uint64_t skipped;      /* of those, steps skipped because of an overflow */
} mp_scaler_t;

/* Fills *o with the defaults listed above (given). */
void mp_scaler_defaults(mp_scaler_opts_t *o);

/* Starts a scaler: scale = init_scale, counters 0; o == NULL means the defaults. Returns 0, or
 * -EINVAL if s is NULL or an option is out of its range above or not finite, or init_scale is
 * outside [min_scale, max_scale] (*s untouched). */
int mp_scaler_init(mp_scaler_t *s, const mp_scaler_opts_t *o);

/* Records one optimizer step. found_inf != 0 (some gradient was inf or NaN): the step must be
 * skipped; scale = max(scale * backoff_factor, min_scale) and clean_steps = 0. Otherwise the step
 * is applied; clean_steps += 1, and when it reaches growth_interval, scale = min(scale *
 * growth_factor, max_scale) and clean_steps = 0. Counts steps and skipped.
 * Returns 1 if the step must be skipped, 0 if it may be applied, -EINVAL if s is NULL. */
int mp_scaler_update(mp_scaler_t *s, int found_inf);

/* Unscales gradients in place before the optimizer reads them: g[i] *= 1.0f / scale (the inverse
 * computed once, in float). Sets *found_inf to 1 if some g[i] is inf or NaN and leaves it
 * unchanged otherwise, so that one flag can collect a whole model's tensors. Every element is
 * multiplied either way. Returns 0, or -EINVAL if found_inf is NULL, g is NULL with n > 0, or
 * scale is not a finite number > 0 (nothing changed). */
int mp_unscale(float *g, size_t n, float scale, int *found_inf);

#endif
