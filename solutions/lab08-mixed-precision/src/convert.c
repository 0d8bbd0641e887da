/* Lab 08, part A (reference): fp32 <-> fp16 / bf16, bit-exact (see mp_convert.h). The scalar
 * functions are written to be read; the bulk ones are branch-free so that the compiler turns
 * each block of 16 elements into vector instructions. */
#include "mp_convert.h"
#include <errno.h>

typedef union {
    float f;
    uint32_t u;
} pun_t; /* reading the other member reinterprets the bits (GNU C and C11 allow it) */

#define F32_ABS 0x7FFFFFFFu
#define F32_INF 0x7F800000u
#define F32_QUIET 0x00400000u
#define F16_INF 0x7C00u
#define F16_QUIET 0x0200u
#define F16_OVERFLOW 0x477FF000u /* 65520.0f: this and above round to 2^16, beyond fp16 */
#define F16_MIN_NORMAL 0x38800000u /* 2^-14 as an fp32 */
#define F16_HALF_TINY 0x33000000u  /* 2^-25, half the smallest fp16 subnormal */
#define REBIAS (112u << 23)        /* fp32 exponent bias 127 minus fp16's 15, in place */
#define BLOCK 16

static inline uint32_t f32_bits(float x)
{
    pun_t p = { .f = x };
    return p.u;
}

static inline float f32_from(uint32_t u)
{
    pun_t p = { .u = u };
    return p.f;
}

/* v / 2^s rounded to the nearest integer, ties to even (1 <= s <= 31). */
static uint32_t round_shift(uint32_t v, unsigned s)
{
    uint32_t q = v >> s, rem = v & ((1u << s) - 1u), half = 1u << (s - 1);
    return q + (rem > half || (rem == half && (q & 1u)));
}

mp_f16_t mp_f32_to_f16(float x)
{
    uint32_t u = f32_bits(x), sign = (u >> 16) & 0x8000u, a = u & F32_ABS;
    if (a > F32_INF) /* NaN: quiet, same sign, top payload bits */
        return (mp_f16_t)(sign | F16_INF | F16_QUIET | ((a >> 13) & 0x3FFu));
    if (a >= F16_OVERFLOW) /* too large (or inf) */
        return (mp_f16_t)(sign | F16_INF);
    if (a >= F16_MIN_NORMAL) /* normal: rebias the exponent, round away 13 mantissa bits */
        return (mp_f16_t)(sign | round_shift(a - REBIAS, 13));
    if (a <= F16_HALF_TINY) /* rounds to zero (2^-25 itself is a tie: zero is even) */
        return (mp_f16_t)sign;
    /* subnormal result: the value in units of 2^-24 is the 24-bit significand / 2^(126 - e) */
    uint32_t e = a >> 23, significand = (a & 0x7FFFFFu) | 0x800000u;
    return (mp_f16_t)(sign | round_shift(significand, 126u - e));
}

mp_bf16_t mp_f32_to_bf16(float x)
{
    uint32_t u = f32_bits(x);
    if ((u & F32_ABS) > F32_INF)
        return (mp_bf16_t)((u >> 16) | 0x0040u);
    /* bf16 is the top half of an fp32: round the low 16 bits away. A carry into the exponent is
     * exactly right, up to and including the overflow of the largest finite values to inf. */
    return (mp_bf16_t)round_shift(u, 16);
}

float mp_f16_to_f32(mp_f16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
    if (e == 0x1F) /* inf or NaN */
        return f32_from(sign | F32_INF | (m << 13) | (m ? F32_QUIET : 0));
    if (e != 0)
        return f32_from(sign | ((e + 112u) << 23) | (m << 13));
    if (m == 0)
        return f32_from(sign);
    e = 113; /* subnormal m * 2^-24: shift the leading 1 up to the hidden-bit position */
    while (!(m & 0x400u)) {
        m <<= 1;
        e--;
    }
    return f32_from(sign | (e << 23) | ((m & 0x3FFu) << 13));
}

float mp_bf16_to_f32(mp_bf16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    return f32_from((u & F32_ABS) > F32_INF ? u | F32_QUIET : u);
}

/* cond ? a : b, written with a mask so that the compiler has no branch to keep. */
static inline uint32_t pick(uint32_t cond, uint32_t a, uint32_t b)
{
    uint32_t m = 0u - (cond != 0);
    return (a & m) | (b & ~m);
}

/* mp_f32_to_f16 without branches. Subnormal results use the FPU: adding 0.5f = 2^-1 to a value
 * below 2^-14 rounds it (to nearest even) to a multiple of 2^-24, the fp16 subnormal step, and
 * those multiples are the low mantissa bits of the sum. */
static inline uint32_t f16_nobranch(uint32_t u)
{
    uint32_t a = u & F32_ABS;
    uint32_t normal = (a - REBIAS + 0xFFFu + ((a >> 13) & 1u)) >> 13;
    uint32_t tiny = f32_bits(f32_from(a) + 0.5f) - 0x3F000000u;
    uint32_t r = pick(a < F16_MIN_NORMAL, tiny, normal);
    r = pick(a >= F16_OVERFLOW, F16_INF, r);
    r = pick(a > F32_INF, F16_INF | F16_QUIET | ((a >> 13) & 0x3FFu), r);
    return ((u >> 16) & 0x8000u) | r;
}

static inline uint32_t bf16_nobranch(uint32_t u)
{
    uint32_t rounded = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
    return pick((u & F32_ABS) > F32_INF, (u >> 16) | 0x0040u, rounded);
}

/* One block: a fixed trip count, no branches, 32-bit work first and one narrowing pass. */
static void f16_block(const float *restrict src, mp_f16_t *restrict dst)
{
    uint32_t t[BLOCK];
    for (int k = 0; k < BLOCK; k++)
        t[k] = f16_nobranch(f32_bits(src[k]));
    for (int k = 0; k < BLOCK; k++)
        dst[k] = (mp_f16_t)t[k];
}

static void bf16_block(const float *restrict src, mp_bf16_t *restrict dst)
{
    uint32_t t[BLOCK];
    for (int k = 0; k < BLOCK; k++)
        t[k] = bf16_nobranch(f32_bits(src[k]));
    for (int k = 0; k < BLOCK; k++)
        dst[k] = (mp_bf16_t)t[k];
}

int mp_f32_to_f16_n(const float *src, mp_f16_t *dst, size_t n)
{
    if (n > 0 && (!src || !dst))
        return -EINVAL;
    size_t i = 0;
    for (; i + BLOCK <= n; i += BLOCK)
        f16_block(src + i, dst + i);
    for (; i < n; i++)
        dst[i] = mp_f32_to_f16(src[i]);
    return 0;
}

int mp_f32_to_bf16_n(const float *src, mp_bf16_t *dst, size_t n)
{
    if (n > 0 && (!src || !dst))
        return -EINVAL;
    size_t i = 0;
    for (; i + BLOCK <= n; i += BLOCK)
        bf16_block(src + i, dst + i);
    for (; i < n; i++)
        dst[i] = mp_f32_to_bf16(src[i]);
    return 0;
}

/* mp_f16_to_f32 without branches: a subnormal m * 2^-24 is exact as a float product. */
static inline uint32_t widen_f16_nobranch(uint32_t h)
{
    uint32_t sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
    uint32_t normal = ((e + 112u) << 23) | (m << 13);
    uint32_t special = F32_INF | (m << 13) | pick(m != 0, F32_QUIET, 0);
    uint32_t tiny = f32_bits((float)(int32_t)m * 0x1p-24f);
    return sign | pick(e == 0, tiny, pick(e == 0x1F, special, normal));
}

int mp_f16_to_f32_n(const mp_f16_t *src, float *dst, size_t n)
{
    if (n > 0 && (!src || !dst))
        return -EINVAL;
    for (size_t i = 0; i < n; i++)
        dst[i] = f32_from(widen_f16_nobranch(src[i]));
    return 0;
}

int mp_bf16_to_f32_n(const mp_bf16_t *src, float *dst, size_t n)
{
    if (n > 0 && (!src || !dst))
        return -EINVAL;
    for (size_t i = 0; i < n; i++) {
        uint32_t u = (uint32_t)src[i] << 16;
        dst[i] = f32_from(pick((u & F32_ABS) > F32_INF, u | F32_QUIET, u));
    }
    return 0;
}
