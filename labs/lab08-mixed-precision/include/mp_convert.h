/* Lab 08, part A: the 16-bit number formats of mixed-precision training, converted to and from
 * fp32 bit for bit. fp16 (IEEE 754 binary16): 1 sign, 5 exponent, 10 mantissa bits.
 * bf16 (bfloat16): 1 sign, 8 exponent, 7 mantissa bits, i.e. the top half of an fp32. */
#ifndef MP_CONVERT_H
#define MP_CONVERT_H
#include <stddef.h>
#include <stdint.h>

typedef uint16_t mp_f16_t;  /* the bits of an fp16 value */
typedef uint16_t mp_bf16_t; /* the bits of a bf16 value */

/* Narrowing (fp32 -> 16 bits), the rules both functions follow:
 *  - every finite input is rounded to the nearest representable value, ties to the one whose last
 *    mantissa bit is 0 ("round to nearest even"); subnormal inputs and subnormal results are
 *    rounded like any other value, never flushed to zero;
 *  - a finite input too large for the format gives infinity of its sign (for fp16: |x| >= 65520);
 *    +-inf gives +-inf; +-0 gives +-0;
 *  - a NaN gives a quiet NaN of the same sign that keeps the top mantissa bits that fit:
 *      fp16: sign | 0x7C00 | 0x0200 | (fp32 mantissa >> 13)
 *      bf16: (fp32 bits >> 16) | 0x0040
 *    (what the x86 F16C and AVX512-BF16 conversion instructions produce).
 * Examples: mp_f32_to_f16(65504.0f) == 0x7BFF, mp_f32_to_f16(65520.0f) == 0x7C00,
 * mp_f32_to_bf16(bits 0x3F808000) == 0x3F80 (a tie: stays even). */
mp_f16_t mp_f32_to_f16(float x);
mp_bf16_t mp_f32_to_bf16(float x);

/* Widening (16 bits -> fp32) is exact for every non-NaN input, subnormals included. A NaN gives a
 * quiet NaN of the same sign with the mantissa shifted up and the quiet bit (0x00400000) set:
 *      fp16 h: sign << 16 | 0x7FC00000 | (h & 0x3FF) << 13        bf16 b: b << 16 | 0x00400000 */
float mp_f16_to_f32(mp_f16_t h);
float mp_bf16_to_f32(mp_bf16_t b);

/* Bulk versions: dst[i] = the scalar function of src[i] for 0 <= i < n, bit for bit, for any n and
 * any (naturally aligned) addresses. src and dst must not overlap. Returns 0, or -EINVAL if n > 0
 * and src or dst is NULL (nothing written). The benchmark measures the two narrowing ones against
 * memcpy of the same input. */
int mp_f32_to_f16_n(const float *src, mp_f16_t *dst, size_t n);
int mp_f32_to_bf16_n(const float *src, mp_bf16_t *dst, size_t n);
int mp_f16_to_f32_n(const mp_f16_t *src, float *dst, size_t n);
int mp_bf16_to_f32_n(const mp_bf16_t *src, float *dst, size_t n);

#endif
