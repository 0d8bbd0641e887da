/* Lab 08: independent oracles for the fp16 / bf16 conversions, shared by the tests and the
 * benchmark (header only). Hardware where this CPU has it: x86 F16C (vcvtps2ph, vcvtph2ps; round
 * to nearest even) and AVX512-BF16 (vcvtneps2bf16), which treats subnormal fp32 inputs as zero, so
 * subnormal inputs always go to the second, software oracle: exact double arithmetic, rounded
 * by the FPU in its default round-to-nearest-even mode. MLMEM_SOFT_ORACLE=1 forces it. */
#ifndef MP_ORACLE_H
#define MP_ORACLE_H
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define OR_X86 1
#endif

typedef enum { OR_F16, OR_BF16 } or_fmt_t;

/* Mantissa bits and exponent bias of each 16-bit format. */
static const int or_mant[2] = { 10, 7 }, or_bias[2] = { 15, 127 };

static inline uint32_t or_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float or_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* 2^k as a double, -1022 <= k <= 1023. */
static inline double or_pow2(int k)
{
    uint64_t b = (uint64_t)(k + 1023) << 52;
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

/* The software oracle: |x| as a double (exact), scaled so that the format's last mantissa bit is
 * worth 1 (exact), rounded to an integer by the FPU: adding and subtracting 2^52 leaves no
 * fraction bits, and the addition rounds to nearest even. Exponent and mantissa then add up to
 * the bits, a carry out of the mantissa included. Quiet NaNs keep the top payload bits. */
static inline uint16_t or_soft_narrow(or_fmt_t fmt, uint32_t u)
{
    int p = or_mant[fmt], bias = or_bias[fmt];
    uint32_t sign = (u >> 16) & 0x8000u, e = (u >> 23) & 0xFFu, m = u & 0x7FFFFFu;
    uint32_t inf = (fmt == OR_F16 ? 0x1Fu : 0xFFu) << p;
    if (e == 0xFF)
        return (uint16_t)(sign | inf | (m ? (1u << (p - 1)) | (m >> (23 - p)) : 0));
    double x = fabs((double)or_float(u));
    int ex = (int)e - 127 < 1 - bias ? 1 - bias : (int)e - 127; /* subnormal range: fixed */
    double r = (x * or_pow2(p - ex) + 0x1p52) - 0x1p52;
    uint64_t bits = ((uint64_t)(ex + bias - 1) << p) + (uint64_t)r;
    return (uint16_t)(sign | (bits >= inf ? inf : bits));
}

static inline uint32_t or_soft_widen(or_fmt_t fmt, uint16_t h)
{
    int p = or_mant[fmt], bias = or_bias[fmt];
    uint32_t emax = fmt == OR_F16 ? 0x1Fu : 0xFFu;
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> p) & emax, m = h & ((1u << p) - 1);
    if (e == emax)
        return sign | 0x7F800000u | (m << (23 - p)) | (m ? 0x00400000u : 0);
    double v = e ? ldexp(1.0 + ldexp((double)m, -p), (int)e - bias)
                 : ldexp((double)m, 1 - bias - p);
    return sign | or_bits((float)v);
}

static inline int or_soft_forced(void)
{
    const char *s = getenv("MLMEM_SOFT_ORACLE");
    return s && *s && strcmp(s, "0") != 0;
}

#ifdef OR_X86
/* Whether this CPU (and OS) can run F16C's 256-bit conversions. CPUID leaf 1 rather than
 * __builtin_cpu_supports("f16c"), which clang 14 does not know. */
static inline int or_cpu_f16c(void)
{
    unsigned a, b, c, d;
    return __builtin_cpu_supports("avx") && __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C);
}

static inline int or_cpu_avx512bf16(void)
{
    return __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512vl");
}

/* The answer of ask(), asked once and kept in *known (-1: not yet): CPUID traps to the
 * hypervisor in a virtual machine, and the sweeps ask for every piece of 4096 inputs. */
static inline int or_once(int *known, int (*ask)(void))
{
    int v = __atomic_load_n(known, __ATOMIC_RELAXED);
    if (v < 0) {
        v = !or_soft_forced() && ask();
        __atomic_store_n(known, v, __ATOMIC_RELAXED);
    }
    return v;
}

static inline int or_have_f16c(void)
{
    static int known = -1;
    return or_once(&known, or_cpu_f16c);
}

static inline int or_have_avx512bf16(void)
{
    static int known = -1;
    return or_once(&known, or_cpu_avx512bf16);
}

__attribute__((target("f16c,avx"))) static inline void
or_hw_f16_8(const uint32_t *in, uint16_t *out)
{
    __m256i bits = _mm256_loadu_si256((const __m256i *)(const void *)in);
    __m128i h = _mm256_cvtps_ph(_mm256_castsi256_ps(bits), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128((__m128i *)(void *)out, h);
}

__attribute__((target("f16c,avx"))) static inline void
or_hw_f16(const uint32_t *in, uint16_t *out, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        or_hw_f16_8(in + i, out + i);
    if (i < n) { /* the tail, through a zero-padded block */
        uint32_t lane[8] = { 0 };
        uint16_t res[8];
        memcpy(lane, in + i, (n - i) * sizeof *lane);
        or_hw_f16_8(lane, res);
        memcpy(out + i, res, (n - i) * sizeof *out);
    }
}

__attribute__((target("f16c,avx"))) static inline void
or_hw_f16_widen(const uint16_t *in, uint32_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = or_bits(_cvtsh_ss(in[i]));
}

/* The instruction reads subnormal inputs as zero: those lanes go to the software oracle. */
__attribute__((target("avx512bf16,avx512f,avx512vl"))) static inline void
or_hw_bf16_16(const uint32_t *in, uint16_t *out)
{
    __m512i v = _mm512_loadu_si512(in);
    __m256bh r = _mm512_cvtneps_pbh(_mm512_castsi512_ps(v));
    memcpy(out, &r, sizeof r);
    __mmask16 zero_exp = _mm512_testn_epi32_mask(v, _mm512_set1_epi32(0x7F800000));
    __mmask16 subnormal = zero_exp & _mm512_test_epi32_mask(v, _mm512_set1_epi32(0x7FFFFF));
    for (int k = 0; subnormal; k++, subnormal >>= 1)
        if (subnormal & 1)
            out[k] = or_soft_narrow(OR_BF16, in[k]);
}

__attribute__((target("avx512bf16,avx512f,avx512vl"))) static inline void
or_hw_bf16(const uint32_t *in, uint16_t *out, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        or_hw_bf16_16(in + i, out + i);
    if (i < n) { /* the tail, through a zero-padded block */
        uint32_t lane[16] = { 0 };
        uint16_t res[16];
        memcpy(lane, in + i, (n - i) * sizeof *lane);
        or_hw_bf16_16(lane, res);
        memcpy(out + i, res, (n - i) * sizeof *out);
    }
}
#else
static inline int or_cpu_f16c(void) { return 0; }
static inline int or_cpu_avx512bf16(void) { return 0; }
static inline int or_have_f16c(void) { return 0; }
static inline int or_have_avx512bf16(void) { return 0; }
#endif

/* Which oracle or_narrow / or_widen use for a format, in words. */
static inline const char *or_name(or_fmt_t fmt, int narrow)
{
    if (fmt == OR_F16)
        return or_have_f16c() ? (narrow ? "x86 F16C vcvtps2ph" : "x86 F16C vcvtph2ps")
                              : "software (double arithmetic)";
    if (!narrow || !or_have_avx512bf16())
        return "software (double arithmetic)";
    return "x86 AVX512-BF16 vcvtneps2bf16 (normal inputs), software (subnormal inputs)";
}

/* out[i] = the correctly rounded fmt bits of the fp32 with bits in[i]. */
static inline void or_narrow(or_fmt_t fmt, const uint32_t *in, uint16_t *out, size_t n)
{
#ifdef OR_X86
    if (fmt == OR_F16 && or_have_f16c()) {
        or_hw_f16(in, out, n);
        return;
    }
    if (fmt == OR_BF16 && or_have_avx512bf16()) {
        or_hw_bf16(in, out, n);
        return;
    }
#endif
    for (size_t i = 0; i < n; i++)
        out[i] = or_soft_narrow(fmt, in[i]);
}

/* out[i] = the fp32 bits of the fmt value in[i]. */
static inline void or_widen(or_fmt_t fmt, const uint16_t *in, uint32_t *out, size_t n)
{
#ifdef OR_X86
    if (fmt == OR_F16 && or_have_f16c()) {
        or_hw_f16_widen(in, out, n);
        return;
    }
#endif
    for (size_t i = 0; i < n; i++)
        out[i] = or_soft_widen(fmt, in[i]);
}

#endif
