/* Lab 08, part B: a dynamic loss scaler (contract in include/mp_scaler.h). */
#include "mp_scaler.h"
#include <errno.h>
#include <math.h>

void mp_scaler_defaults(mp_scaler_opts_t *o)
{
    *o = (mp_scaler_opts_t){ .init_scale = 65536.0f, .growth_factor = 2.0f,
                             .backoff_factor = 0.5f, .growth_interval = 2000,
                             .min_scale = 1.0f, .max_scale = 16777216.0f };
}

int mp_scaler_init(mp_scaler_t *s, const mp_scaler_opts_t *o)
{
    /* ===== YOUR CODE HERE =====
     * NULL options mean mp_scaler_defaults. Check every option (isfinite() rejects inf and NaN)
     * before writing anything to *s. */
    (void)s, (void)o;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int mp_scaler_update(mp_scaler_t *s, int found_inf)
{
    /* ===== YOUR CODE HERE: back off and skip, or count a clean step and maybe grow ===== */
    (void)s, (void)found_inf;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int mp_unscale(float *g, size_t n, float scale, int *found_inf)
{
    /* ===== YOUR CODE HERE ===== */
    (void)g, (void)n, (void)scale, (void)found_inf;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}
