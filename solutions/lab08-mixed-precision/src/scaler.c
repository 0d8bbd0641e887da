/* Lab 08, part B (reference): a dynamic loss scaler (see mp_scaler.h). */
#include "mp_scaler.h"
#include <errno.h>
#include <math.h>

void mp_scaler_defaults(mp_scaler_opts_t *o)
{
    *o = (mp_scaler_opts_t){ .init_scale = 65536.0f, .growth_factor = 2.0f,
                             .backoff_factor = 0.5f, .growth_interval = 2000,
                             .min_scale = 1.0f, .max_scale = 16777216.0f };
}

static int opts_ok(const mp_scaler_opts_t *o)
{
    if (!isfinite(o->init_scale) || !isfinite(o->growth_factor) ||
        !isfinite(o->backoff_factor) || !isfinite(o->min_scale) || !isfinite(o->max_scale))
        return 0;
    return o->growth_factor > 1.0f && o->backoff_factor > 0.0f && o->backoff_factor < 1.0f &&
           o->growth_interval >= 1 && o->min_scale > 0.0f && o->min_scale <= o->max_scale &&
           o->init_scale >= o->min_scale && o->init_scale <= o->max_scale;
}

int mp_scaler_init(mp_scaler_t *s, const mp_scaler_opts_t *o)
{
    mp_scaler_opts_t d;
    if (!o) {
        mp_scaler_defaults(&d);
        o = &d;
    }
    if (!s || !opts_ok(o))
        return -EINVAL;
    *s = (mp_scaler_t){ .scale = o->init_scale, .opts = *o };
    return 0;
}

int mp_scaler_update(mp_scaler_t *s, int found_inf)
{
    if (!s)
        return -EINVAL;
    s->steps++;
    if (found_inf) {
        s->skipped++;
        s->clean_steps = 0;
        s->scale = fmaxf(s->scale * s->opts.backoff_factor, s->opts.min_scale);
        return 1;
    }
    if (++s->clean_steps >= s->opts.growth_interval) {
        s->clean_steps = 0;
        s->scale = fminf(s->scale * s->opts.growth_factor, s->opts.max_scale);
    }
    return 0;
}

int mp_unscale(float *g, size_t n, float scale, int *found_inf)
{
    if (!found_inf || (n > 0 && !g) || !isfinite(scale) || !(scale > 0.0f))
        return -EINVAL;
    float inv = 1.0f / scale;
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        bad |= !isfinite(g[i]);
        g[i] *= inv;
    }
    if (bad)
        *found_inf = 1;
    return 0;
}
