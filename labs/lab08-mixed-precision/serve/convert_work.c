/* Lab 08, in the student's process: the `convert` workload runs one of your conversions over a
 * whole batch of inputs (millions of calls), split over threads, so that the tests can check all
 * 2^32 fp32 inputs without a call across the boundary per input. It only runs your functions;
 * the harness wrote the inputs, keeps its own copy of them and checks every output against its
 * own oracle (tests/check_convert.c). */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "mm_rng.h"
#include "mp_convert.h"
#include "mp_work.h"

typedef struct {
    const mp_work_convert_t *req;
    uint64_t lo, hi; /* this thread's elements */
    int rc;          /* the first nonzero result of a bulk call */
} part_t;

static float f32_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* The bulk function of op on [lo, hi), in pieces of random length. */
static int run_bulk(const mp_work_convert_t *q, uint64_t lo, uint64_t hi, mm_rng_t *r)
{
    const float *src = (const float *)(uintptr_t)q->src;
    uint16_t *dst = (uint16_t *)(uintptr_t)q->dst;
    int rc = 0;
    for (uint64_t at = lo, len; at < hi; at += len) {
        len = mm_rng_range(r, 1, MP_WORK_MAX_PIECE);
        len = len < hi - at ? len : hi - at;
        int got = q->op == MP_WORK_F16_BULK ? mp_f32_to_f16_n(src + at, dst + at, len)
                                            : mp_f32_to_bf16_n(src + at, dst + at, len);
        rc = rc ? rc : got;
    }
    return rc;
}

static void *run_part(void *arg)
{
    part_t *p = arg;
    const mp_work_convert_t *q = p->req;
    const uint32_t *s32 = (const uint32_t *)(uintptr_t)q->src;
    const uint16_t *s16 = (const uint16_t *)(uintptr_t)q->src;
    uint16_t *d16 = (uint16_t *)(uintptr_t)q->dst;
    uint32_t *d32 = (uint32_t *)(uintptr_t)q->dst;
    mm_rng_t r = mm_rng_new(q->seed + p->lo);
    switch (q->op) {
    case MP_WORK_F16:
        for (uint64_t i = p->lo; i < p->hi; i++)
            d16[i] = mp_f32_to_f16(f32_of(s32[i]));
        break;
    case MP_WORK_BF16:
        for (uint64_t i = p->lo; i < p->hi; i++)
            d16[i] = mp_f32_to_bf16(f32_of(s32[i]));
        break;
    case MP_WORK_F16_WIDEN:
        for (uint64_t i = p->lo; i < p->hi; i++)
            d32[i] = bits_of(mp_f16_to_f32(s16[i]));
        break;
    case MP_WORK_BF16_WIDEN:
        for (uint64_t i = p->lo; i < p->hi; i++)
            d32[i] = bits_of(mp_bf16_to_f32(s16[i]));
        break;
    default:
        p->rc = run_bulk(q, p->lo, p->hi, &r);
    }
    return NULL;
}

/* Runs req (mp_work_convert_t, in) over its n elements. Returns 0; the first nonzero result of
 * a bulk call; or -EINVAL for a malformed request (nothing run). */
int serve_convert(const void *in, size_t in_len, void *out, size_t out_len)
{
    mp_work_convert_t q;
    (void)out, (void)out_len;
    if (in_len != sizeof q)
        return -EINVAL;
    memcpy(&q, in, sizeof q);
    if (q.op > MP_WORK_BF16_WIDEN || q.threads < 1 || q.threads > MP_WORK_MAX_THREADS ||
        (q.n && (!q.src || !q.dst)))
        return -EINVAL;
    part_t parts[MP_WORK_MAX_THREADS];
    pthread_t tid[MP_WORK_MAX_THREADS];
    int started[MP_WORK_MAX_THREADS] = { 0 }, rc = 0;
    for (uint32_t t = q.threads; t-- > 0;) { /* part 0 last, on this thread */
        parts[t] = (part_t){ &q, q.n * t / q.threads, q.n * (t + 1) / q.threads, 0 };
        started[t] = t > 0 && pthread_create(&tid[t], NULL, run_part, &parts[t]) == 0;
        if (!started[t])
            run_part(&parts[t]);
    }
    for (uint32_t t = 0; t < q.threads; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        rc = rc ? rc : parts[t].rc;
    }
    return rc;
}
