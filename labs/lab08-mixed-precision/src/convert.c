/* Lab 08, part A: fp32 <-> fp16 / bf16, bit-exact (contract in include/mp_convert.h).
 * Background and hints: labs/lab08-mixed-precision/README.md, `make hint LAB=08`. */
#include "mp_convert.h"
#include <errno.h>

typedef union {
    float f;
    uint32_t u;
} pun_t; /* reading the other member reinterprets the bits (GNU C and C11 allow it) */

/* The bits of a float, and the float of some bits (given; "unused" keeps clang quiet until your
 * code calls them). */
__attribute__((unused)) static inline uint32_t f32_bits(float x)
{
    pun_t p = { .f = x };
    return p.u;
}

__attribute__((unused)) static inline float f32_from(uint32_t u)
{
    pun_t p = { .u = u };
    return p.f;
}

/* ===== YOUR CODE HERE: constants and static helpers you want (e.g. round a value shifted right
 * by s bits to nearest even; a branch-free select for the bulk functions) ===== */
/* ===== END YOUR CODE ===== */

mp_f16_t mp_f32_to_f16(float x)
{
    /* ===== YOUR CODE HERE =====
     * Split the bits into sign, exponent and mantissa. Handle, in this order: NaN, too large for
     * fp16, a normal fp16 result, a result that rounds to 0, a subnormal fp16 result. */
    (void)x;
    return 0;
    /* ===== END YOUR CODE ===== */
}

mp_bf16_t mp_f32_to_bf16(float x)
{
    /* ===== YOUR CODE HERE: NaN first; everything else is "round away the low 16 bits" ===== */
    (void)x;
    return 0;
    /* ===== END YOUR CODE ===== */
}

float mp_f16_to_f32(mp_f16_t h)
{
    /* ===== YOUR CODE HERE: inf/NaN, normal, zero, subnormal (normalise it) ===== */
    (void)h;
    return 0.0f;
    /* ===== END YOUR CODE ===== */
}

float mp_bf16_to_f32(mp_bf16_t b)
{
    /* ===== YOUR CODE HERE ===== */
    (void)b;
    return 0.0f;
    /* ===== END YOUR CODE ===== */
}

int mp_f32_to_f16_n(const float *src, mp_f16_t *dst, size_t n)
{
    /* ===== YOUR CODE HERE =====
     * Correct first (a loop over mp_f32_to_f16), then fast: the benchmark compares this with
     * memcpy. Blocks of a fixed number of elements, no branches inside a block, 32-bit work
     * first; `gcc -O2 -march=native -fopt-info-vec` (the lab's flags) tells you whether the
     * compiler vectorized a loop. */
    (void)src, (void)dst, (void)n;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int mp_f32_to_bf16_n(const float *src, mp_bf16_t *dst, size_t n)
{
    /* ===== YOUR CODE HERE: as mp_f32_to_f16_n ===== */
    (void)src, (void)dst, (void)n;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int mp_f16_to_f32_n(const mp_f16_t *src, float *dst, size_t n)
{
    /* ===== YOUR CODE HERE: a loop over the scalar function is enough (not benchmarked) ===== */
    (void)src, (void)dst, (void)n;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int mp_bf16_to_f32_n(const mp_bf16_t *src, float *dst, size_t n)
{
    /* ===== YOUR CODE HERE ===== */
    (void)src, (void)dst, (void)n;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}
