/* Lab 08, in the student's process: the `convert` workload runs one of your conversions over a
 * whole batch of inputs (millions of calls), split over threads, so that the tests can check all
 * 2^32 fp32 inputs without a call across the boundary per input. It only runs your functions.
 * The harness writes the inputs, or (sweeping all 2^32) names them by their index, made here in
 * this thread's cache; the outputs go to memory it shares, or are summed here (mp_work_sum) so
 * that they need not cross between the processes' caches. The harness checks the outputs, or
 * the sum, against its own oracle (tests/check_convert.c). */
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
    uint32_t sum;    /* outputs kept here (dst 0): their sum (mp_work_sum) */
} part_t;

enum { BLOCK = MP_WORK_BLOCK }; /* elements made, converted and summed at a time */

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

static int is_bulk(const mp_work_convert_t *q)
{
    return q->op == MP_WORK_F16_BULK || q->op == MP_WORK_BF16_BULK;
}

/* The inputs of the block at element `at`: in src, or made from their index in buf (for the bulk
 * ops, whose alignment varies, at an offset of 0..15 elements drawn from r). */
static const float *block_inputs(const mp_work_convert_t *q, uint64_t at, float *buf,
                                 mm_rng_t *r)
{
    if (q->src)
        return (const float *)(uintptr_t)q->src + at;
    float *in = buf + (is_bulk(q) ? mm_rng_range(r, 0, 15) : 0);
    for (uint32_t k = 0; k < BLOCK; k++) /* a fixed trip count: the compiler vectorizes it */
        in[k] = f32_of((uint32_t)(q->first + at) + k);
    return in;
}

/* Your narrowing of n inputs into o: the scalar function on each, or the bulk one on pieces of
 * random length. Returns the first nonzero result of a bulk call. */
static int narrow(const mp_work_convert_t *q, const float *in, uint16_t *o, uint64_t n,
                  mm_rng_t *r)
{
    int rc = 0;
    if (q->op == MP_WORK_F16 || q->op == MP_WORK_BF16) {
        if (q->op == MP_WORK_F16)
            for (uint64_t k = 0; k < n; k++)
                o[k] = mp_f32_to_f16(in[k]);
        else
            for (uint64_t k = 0; k < n; k++)
                o[k] = mp_f32_to_bf16(in[k]);
        return 0;
    }
    for (uint64_t at = 0, len; at < n; at += len) {
        len = mm_rng_range(r, 1, MP_WORK_MAX_PIECE);
        len = len < n - at ? len : n - at;
        int got = q->op == MP_WORK_F16_BULK ? mp_f32_to_f16_n(in + at, o + at, len)
                                            : mp_f32_to_bf16_n(in + at, o + at, len);
        rc = rc ? rc : got;
    }
    return rc;
}

/* A narrowing op on this thread's part, a block at a time (its draws seeded by where it starts,
 * mp_work.h): into dst, or summed here. */
static void narrow_part(part_t *p)
{
    const mp_work_convert_t *q = p->req;
    uint16_t *dst = (uint16_t *)(uintptr_t)q->dst, kept[BLOCK];
    float buf[BLOCK + 16];
    for (uint64_t at = p->lo, n; at < p->hi; at += n) {
        n = p->hi - at < BLOCK ? p->hi - at : BLOCK;
        mm_rng_t r = mm_rng_new(q->seed + q->first + at);
        uint16_t *o = dst ? dst + at : kept;
        int got = narrow(q, block_inputs(q, at, buf, &r), o, n, &r);
        p->rc = p->rc ? p->rc : got;
        if (!dst)
            p->sum += mp_work_sum(kept, (uint32_t)((q->first + at) / 2), n / 2);
    }
}

static void *run_part(void *arg)
{
    part_t *p = arg;
    const mp_work_convert_t *q = p->req;
    const uint16_t *s16 = (const uint16_t *)(uintptr_t)q->src;
    uint32_t *d32 = (uint32_t *)(uintptr_t)q->dst;
    if (q->op == MP_WORK_F16_WIDEN)
        for (uint64_t i = p->lo; i < p->hi; i++)
            d32[i] = bits_of(mp_f16_to_f32(s16[i]));
    else if (q->op == MP_WORK_BF16_WIDEN)
        for (uint64_t i = p->lo; i < p->hi; i++)
            d32[i] = bits_of(mp_bf16_to_f32(s16[i]));
    else
        narrow_part(p);
    return NULL;
}

/* 1 if q is well formed: a known op and thread count; buffers for its elements (only the
 * narrowing ops may name their inputs by index, src 0; and then keep their outputs, dst 0, on
 * whole units, with room in out for the sum). */
static int valid(const mp_work_convert_t *q, size_t out_len)
{
    int widen = q->op == MP_WORK_F16_WIDEN || q->op == MP_WORK_BF16_WIDEN;
    if (q->op > MP_WORK_BF16_WIDEN || q->threads < 1 || q->threads > MP_WORK_MAX_THREADS)
        return 0;
    if (!q->n || (q->src && q->dst))
        return 1;
    if (q->src || widen || q->first + q->n > (1ull << 32))
        return 0;
    return q->dst || (q->n % 2 == 0 && q->first % 2 == 0 && out_len == sizeof(uint32_t));
}

/* Runs req (mp_work_convert_t, in) over its n elements; with dst 0, writes their sum to out.
 * Returns 0; the first nonzero result of a bulk call; or -EINVAL for a malformed request
 * (nothing run). */
int serve_convert(const void *in, size_t in_len, void *out, size_t out_len)
{
    mp_work_convert_t q;
    if (in_len != sizeof q)
        return -EINVAL;
    memcpy(&q, in, sizeof q);
    if (!valid(&q, out_len))
        return -EINVAL;
    part_t parts[MP_WORK_MAX_THREADS];
    pthread_t tid[MP_WORK_MAX_THREADS];
    int started[MP_WORK_MAX_THREADS] = { 0 }, rc = 0;
    uint64_t blocks = (q.n + BLOCK - 1) / BLOCK;
    uint32_t sum = 0;
    for (uint32_t t = q.threads; t-- > 0;) { /* part 0 last, on this thread */
        uint64_t lo = BLOCK * (blocks * t / q.threads), hi = BLOCK * (blocks * (t + 1) / q.threads);
        parts[t] = (part_t){ &q, lo, hi < q.n ? hi : q.n, 0, 0 };
        started[t] = t > 0 && pthread_create(&tid[t], NULL, run_part, &parts[t]) == 0;
        if (!started[t])
            run_part(&parts[t]);
    }
    for (uint32_t t = 0; t < q.threads; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        rc = rc ? rc : parts[t].rc;
        sum += parts[t].sum;
    }
    if (!q.dst && q.n)
        memcpy(out, &sum, sizeof sum);
    return rc;
}
