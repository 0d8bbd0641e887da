/* Lab 08, in the student's process: the `scaler_run` workload runs your mp_scaler_update over a
 * whole run of steps in one call, so that the tests can follow the scaler step by step without a
 * call across the boundary per step. It only runs your function and answers, after every step,
 * its result and the scaler; the harness checks each against its own model
 * (tests/check_scaler.c). */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include "mp_scaler.h"
#include "mp_work.h"

/* Runs req (mp_work_scaler_t, in); out: one mp_work_step_t per step. Returns 0, or -EINVAL for
 * a malformed request (nothing run). */
int serve_scaler_run(const void *in, size_t in_len, void *out, size_t out_len)
{
    mp_work_scaler_t q;
    if (in_len != sizeof q)
        return -EINVAL;
    memcpy(&q, in, sizeof q);
    if (q.n < 1 || q.n > MP_WORK_MAX_STEPS || out_len != q.n * sizeof(mp_work_step_t))
        return -EINVAL;
    for (uint32_t k = 0; k < q.n; k++) {
        mp_work_step_t step = { 0 };
        step.ret = mp_scaler_update(&q.s, q.found_inf[k]);
        step.s = q.s;
        memcpy((char *)out + k * sizeof step, &step, sizeof step);
    }
    return 0;
}
