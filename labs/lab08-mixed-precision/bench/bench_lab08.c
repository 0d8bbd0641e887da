/* Lab 08 benchmark: your bulk fp32 -> bf16 / fp16 conversions against memcpy of the same input,
 * in the same run, next to the CPU's own conversion instruction where it has one (the limit,
 * reported, not scored); their exactness against an independent oracle; and the ZeRO figures of
 * your budget functions for `make plots`. Prints one JSON object (common/mm_bench.h).
 * Your code runs in a process of its own (common/harness/mm_call.h): this program times each of
 * its calls from outside, runs memcpy and the gate's scalar conversion itself, and scores no
 * figure taken while your process used the CPU during those. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mm_bench.h"
#include "mm_call.h"
#include "mm_rng.h"
#include "mp_budget.h"
#include "mp_convert.h"
#include "mm_timer.h"
#include "../tests/oracle.h"
#if defined(__aarch64__)
#include <arm_neon.h>
#include <sys/auxv.h>
#endif

#define N (16u << 20) /* floats converted per repetition: 64 MiB in, 32 MiB out */
#define REPS 21
#define WARMUP 2
#define EXACT_N (1u << 21) /* inputs of the exactness check */
/* The gate: the benchmark's own scalar conversion (one call per element) must run at most this
 * fraction of memcpy's speed, or the machine's memory is too slow next to its cores for a
 * vectorized conversion to stand out, and the conversion metrics are skipped. Seen: 0.07 (AMD
 * EPYC guest); the naive variant's similar loop 0.08 on an Intel Xeon guest: far below. */
#define OBSERVABLE 0.5
#define GATE_REPS 5

static const char *const CONVERSIONS[] = { "f32_to_bf16_vs_memcpy", "f32_to_f16_vs_memcpy",
                                           NULL };

typedef int (*convert_fn)(const float *, uint16_t *, size_t);

/* Fresh inputs for every timed call of yours, so that none can answer from an earlier one:
 * before each, PROBES elements drawn at random get new inputs and their outputs a value no
 * correct conversion gives (the complement of the right one); after it, each is checked. */
#define PROBES 1024
typedef struct {
    size_t at[PROBES];
    mm_rng_t rng;
    long bad; /* the first element a timed call left wrong, or -1 */
} probes_t;

typedef struct {
    float *src;        /* shared: the input */
    float *mine;       /* this program's copy of it */
    float *copy;       /* shared: memcpy's destination */
    uint16_t *out;     /* shared: the conversion's output */
    uint16_t *check;   /* shared: other outputs (the gate's, the CPU's instruction's) */
    convert_fn convert;
    int rc; /* the first error the conversion returned */
    or_fmt_t fmt;
    uint16_t *want;    /* this program's: the correctly rounded output of mine */
    probes_t *probe;   /* NULL: the case is this program's own code, not yours */
} conv_case_t;

/* What paired_ratio measured. */
typedef struct {
    double ratio, t_base, t_yours; /* median of t_base / t_yours; median seconds of each */
    mm_idle_t idle;                /* your process, while this program timed its own code */
} paired_t;

/* The CPU's conversion instruction for one format, when it has one: timed like yours. */
typedef struct {
    const char *name; /* the instruction, in words */
    convert_fn convert;
    double ratio; /* its time against memcpy's; 0 until measured */
} hw_case_t;

#ifdef OR_X86
/* F16C's vcvtps2ph, rounding to nearest even: the same results as the lab's contract. n is a
 * multiple of 8. */
__attribute__((target("f16c,avx"))) static int hw_f16_n(const float *src, uint16_t *dst, size_t n)
{
    for (size_t i = 0; i + 8 <= n; i += 8) {
        __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
        _mm_storeu_si128((__m128i *)(void *)(dst + i), h);
    }
    return 0;
}

/* AVX512-BF16's vcvtneps2bf16 (reads subnormal inputs as zero: only its speed is of interest
 * here). n is a multiple of 16. */
__attribute__((target("avx512bf16,avx512f,avx512vl"))) static int
hw_bf16_n(const float *src, uint16_t *dst, size_t n)
{
    for (size_t i = 0; i + 16 <= n; i += 16) {
        __m256bh b = _mm512_cvtneps_pbh(_mm512_loadu_ps(src + i));
        memcpy(dst + i, &b, sizeof b);
    }
    return 0;
}
#endif

#if defined(__aarch64__)
/* AArch64's FCVTN (vcvt_f16_f32): fp32 to fp16 by the FPCR's rounding mode, round to nearest
 * even by default, subnormals kept (Linux leaves FPCR.FZ clear): part of every Armv8-A CPU.
 * n is a multiple of 8. */
static int hw_f16_n(const float *src, uint16_t *dst, size_t n)
{
    for (size_t i = 0; i + 8 <= n; i += 8) {
        float16x8_t h = vcvt_high_f16_f32(vcvt_f16_f32(vld1q_f32(src + i)), vld1q_f32(src + i + 4));
        vst1q_u16(dst + i, vreinterpretq_u16_f16(h));
    }
    return 0;
}

#if defined(__ARM_FEATURE_BF16_VECTOR_ARITHMETIC) && defined(HWCAP2_BF16)
/* Armv8.6's BFCVTN (vcvt_bf16_f32), where the compiler targets a CPU with it (-march=native on
 * such a CPU) and this CPU has it. n is a multiple of 8. */
#define HW_ARM_BF16 1
static int hw_bf16_n(const float *src, uint16_t *dst, size_t n)
{
    for (size_t i = 0; i + 8 <= n; i += 8) {
        bfloat16x8_t b = vcvtq_high_bf16_f32(vcvtq_low_bf16_f32(vld1q_f32(src + i)),
                                             vld1q_f32(src + i + 4));
        memcpy(dst + i, &b, sizeof b);
    }
    return 0;
}
#endif
#endif

/* The gate's scalar conversion, one call per element that the compiler may not inline. */
__attribute__((noinline)) static uint16_t scalar_one(float x)
{
    return or_soft_narrow(OR_F16, or_bits(x));
}

static int scalar_n(const float *src, uint16_t *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = scalar_one(src[i]);
    return 0;
}

/* The baseline: copy the 64 MiB of input (read 64 MiB, write 64 MiB). */
static void run_memcpy(void *p)
{
    conv_case_t *c = p;
    memcpy(c->copy, c->src, (size_t)N * sizeof *c->src);
}

/* Yours: read the 64 MiB, write 32 MiB of 16-bit values. */
static void run_convert(void *p)
{
    conv_case_t *c = p;
    int rc = c->convert(c->src, c->out, N);
    c->rc = c->rc ? c->rc : rc;
}

/* A gradient-like value: random sign and mantissa, magnitude log-uniform in 2^-24 .. 2^16, so
 * that fp16 sees subnormals and the odd overflow, as unscaled gradients do. */
static float gradient(mm_rng_t *r)
{
    uint64_t b = mm_rng_next(r);
    uint32_t e = 127 - 24 + (uint32_t)((b >> 32) % 40);
    return or_float((uint32_t)(b & 0x80000000u) | e << 23 | ((uint32_t)b & 0x7FFFFFu));
}

static void make_input(float *x, size_t n)
{
    mm_rng_t r = mm_rng_new(8);
    for (size_t i = 0; i < n; i++)
        x[i] = gradient(&r);
}

/* c->want: the oracle's output for c->mine (tests/oracle.h), in blocks. */
static void make_want(conv_case_t *c)
{
    uint32_t bits[4096];
    for (size_t i = 0; i < N; i += 4096) {
        memcpy(bits, c->mine + i, sizeof bits);
        or_narrow(c->fmt, bits, c->want + i, 4096);
    }
}

static void probes_set(conv_case_t *c)
{
    probes_t *p = c->probe;
    for (int k = 0; k < PROBES; k++) {
        size_t i = (size_t)mm_rng_range(&p->rng, 0, N - 1);
        float v = gradient(&p->rng);
        c->mine[i] = c->src[i] = v;
        c->want[i] = or_soft_narrow(c->fmt, or_bits(v));
        c->out[i] = (uint16_t)~c->want[i];
        p->at[k] = i;
    }
}

static void probes_check(const conv_case_t *c)
{
    for (int k = 0; k < PROBES && c->probe->bad < 0; k++)
        if (c->out[c->probe->at[k]] != c->want[c->probe->at[k]])
            c->probe->bad = (long)c->probe->at[k];
}

/* One timed run of c, in seconds; watch: c is this program's own code, watched by the idle
 * check (common/harness/mm_call.h) outside the timed region. */
static double time_once(const mm_bench_case_t *c, int watch, paired_t *p)
{
    if (watch)
        mm_idle_start(&p->idle);
    uint64_t t0 = mm_now_ns();
    c->run(c->arg);
    uint64_t dt = mm_now_ns() - t0;
    if (watch)
        mm_idle_stop(&p->idle);
    return (double)dt / 1e9;
}

/* mm_bench_paired_ratio's rounds (base, then yours, `reps` times after `warmup`), with base,
 * and yours when yours_here, watched for work of your process (paired_t.idle); each timed call
 * of a case with probes between probes_set and probes_check. Returns 0 or -EINVAL. */
static int paired_ratio(const mm_bench_case_t *base, const mm_bench_case_t *yours, int yours_here,
                        unsigned warmup, unsigned reps, paired_t *p)
{
    conv_case_t *probed = ((conv_case_t *)yours->arg)->probe ? yours->arg : NULL;
    double tb[REPS], ty[REPS], r[REPS];
    if (reps == 0 || reps > REPS)
        return -EINVAL;
    *p = (paired_t){ 0 };
    for (unsigned w = 0; w < warmup; w++) {
        base->run(base->arg);
        yours->run(yours->arg);
    }
    for (unsigned k = 0; k < reps; k++) {
        tb[k] = time_once(base, 1, p);
        if (probed)
            probes_set(probed);
        ty[k] = time_once(yours, yours_here, p);
        if (probed)
            probes_check(probed);
        r[k] = tb[k] / ty[k];
    }
    p->ratio = mm_median(r, reps);
    p->t_base = mm_median(tb, reps), p->t_yours = mm_median(ty, reps);
    return 0;
}

/* Whether your process used the CPU while this program timed its own code; why in why. */
static int disturbed(const paired_t *p, char *why, size_t cap)
{
    return !mm_idle_ok(&p->idle, why, cap);
}

/* Index of the first element where the bulk output differs from the oracle's, -1 if none,
 * -3 if the input is no longer the one this program wrote. */
static long first_mismatch(const conv_case_t *c)
{
    if (memcmp(c->src, c->mine, (size_t)N * sizeof *c->src) != 0)
        return -3;
    for (size_t i = 0; i < N; i++)
        if (c->out[i] != c->want[i])
            return (long)i;
    return -1;
}

/* Times the hardware conversion against memcpy, like yours: hw->ratio, or 0 if it could not.
 * Writes "hardware <name> <ratio>x memcpy" into text (empty if not measured). */
static void bench_hardware(const conv_case_t *c, hw_case_t *hw, char *text, size_t len)
{
    conv_case_t h = *c;
    h.convert = hw->convert;
    h.out = h.check; /* your output stays as it was checked */
    h.probe = NULL;
    mm_bench_case_t base = { "memcpy", run_memcpy, &h }, instr = { hw->name, run_convert, &h };
    paired_t p;
    char why[300];
    text[0] = '\0';
    if (!hw->convert || paired_ratio(&base, &instr, 1, WARMUP, REPS, &p) != 0 ||
        disturbed(&p, why, sizeof why))
        return;
    hw->ratio = p.ratio;
    snprintf(text, len, ", hardware %s %.2fx memcpy (not scored)", hw->name, hw->ratio);
}

/* The machine's contrast: the gate's scalar conversion as a fraction of memcpy's speed (0 if
 * it could not be measured); busy[0..cap): why it does not count (your process ran meanwhile),
 * else empty. */
static double scalar_vs_memcpy(const conv_case_t *c, char *busy, size_t cap)
{
    conv_case_t s = *c;
    s.convert = scalar_n;
    s.out = s.check;
    s.probe = NULL;
    mm_bench_case_t base = { "memcpy", run_memcpy, &s }, scalar = { "scalar", run_convert, &s };
    paired_t p;
    if (paired_ratio(&base, &scalar, 1, 1, GATE_REPS, &p) != 0)
        return 0;
    if (!disturbed(&p, busy, cap))
        busy[0] = '\0';
    return p.ratio;
}

/* Skips both conversion metrics when the gate's figure shows no room for vectorization, or
 * could not be taken on its own. */
static int gate_fired(mm_json_t *j, double scalar, const char *busy)
{
    if (busy[0]) {
        mm_bench_skip_all(j, CONVERSIONS, "the gate (memcpy and a scalar conversion of this "
                          "program's own): %s", busy);
        return 1;
    }
    if (scalar > 0 && scalar <= OBSERVABLE)
        return 0;
    mm_bench_skip_all(j, CONVERSIONS, "this run cannot show vectorization: a scalar conversion, "
                      "one call per element, ran at %.2fx memcpy's speed (needs at most %.1fx); "
                      "memory is too slow next to the cores here, or the run was disturbed: "
                      "rerun on an idle machine", scalar, OBSERVABLE);
    return 1;
}

/* The metric from a measurement whose output was checked (bad: first_mismatch's answer). */
static void report_conversion(mm_json_t *j, const conv_case_t *c, const char *metric,
                              const paired_t *p, long bad, const char *hw)
{
    char why[300];
    long late = c->probe->bad;
    if (bad == -3)
        mm_bench_fail(j, metric, "your code changed its input (src), which it must only read");
    else if (late >= 0)
        mm_bench_failf(j, metric, "a timed call left element %ld, given a new input (0x%08x) "
                       "just before it, at 0x%04x, not 0x%04x: every call must convert its "
                       "whole input", late, or_bits(c->mine[late]), c->out[late],
                       c->want[late]);
    else if (bad >= 0)
        mm_bench_failf(j, metric, "bulk output differs from the correctly rounded value at "
                       "element %ld (input 0x%08x): 0x%04x, not 0x%04x", bad,
                       or_bits(c->mine[bad]), c->out[bad], c->want[bad]);
    else if (disturbed(p, why, sizeof why))
        mm_bench_skip(j, metric, why);
    else
        mm_bench_metricf(j, metric, p->ratio, "x memcpy", "memcpy %.1f ms (%.1f GB/s), your %s "
                         "%.1f ms%s; medians of %d rounds, your calls timed by this program",
                         p->t_base * 1e3, 2 * 0x1p26 / p->t_base / 1e9,
                         c->fmt == OR_F16 ? "fp16" : "bf16", p->t_yours * 1e3, hw, REPS);
}

static void bench_conversion(mm_json_t *j, conv_case_t *c, const char *metric, hw_case_t *hw)
{
    mm_bench_case_t base = { "memcpy", run_memcpy, c }, yours = { "yours", run_convert, c };
    paired_t p;
    char hw_text[100] = "";
    probes_t probe = { { 0 }, mm_rng_new(c->fmt == OR_F16 ? 16 : 17), -1 };
    make_want(c);
    c->probe = &probe;
    memset(c->out, 0, (size_t)N * sizeof *c->out);
    c->rc = 0;
    if (paired_ratio(&base, &yours, 0, WARMUP, REPS, &p) != 0 || c->rc) {
        mm_bench_failf(j, metric, "the bulk conversion returned %d (%s)", c->rc,
                       strerror(c->rc < 0 ? -c->rc : EINVAL));
        return;
    }
    long bad = first_mismatch(c);
    char why[300];
    if (bad == -1 && probe.bad < 0 && !disturbed(&p, why, sizeof why))
        bench_hardware(c, hw, hw_text, sizeof hw_text);
    report_conversion(j, c, metric, &p, bad, hw_text);
    c->probe = NULL;
}

/* Rounding ties, subnormals, overflow boundaries and NaN payloads, then gradient-like values. */
static void make_tricky(uint32_t *in, const float *gradients, size_t n)
{
    static const uint32_t low[] = { 0x00000, 0x00001, 0x00FFF, 0x01000, 0x01001, 0x01FFF,
                                    0x03000, 0x07FFF, 0x08000, 0x08001, 0x18000, 0x1FFFF };
    mm_rng_t r = mm_rng_new(88);
    for (size_t i = 0; i < n / 2; i++) {
        uint64_t b = mm_rng_next(&r);
        in[i] = ((uint32_t)(b >> 32) & 0xFFFE0000u) | low[(b & 0xFFFF) % 12];
    }
    memcpy(in + n / 2, gradients, (n - n / 2) * sizeof *in);
}

/* Your bulk conversion of in (copied to the shared x; its output in the shared got) against
 * the oracle (want, ours). */
static int exact_on(or_fmt_t fmt, const uint32_t *in, float *x, uint16_t *got, uint16_t *want,
                    size_t n)
{
    memcpy(x, in, n * sizeof *x);
    int rc = fmt == OR_F16 ? mp_f32_to_f16_n(x, got, n) : mp_f32_to_bf16_n(x, got, n);
    or_narrow(fmt, in, want, n);
    return rc == 0 && memcmp(got, want, n * sizeof *got) == 0;
}

static void bench_exact(mm_json_t *j, const float *gradients)
{
    uint32_t *in = malloc(EXACT_N * sizeof *in);
    uint16_t *want = malloc(EXACT_N * sizeof *want);
    float *x = mm_shared_alloc(EXACT_N * sizeof *x);
    uint16_t *got = mm_shared_alloc(EXACT_N * sizeof *got);
    if (!in || !want) {
        mm_bench_fail(j, "bulk_exact", "out of memory");
    } else {
        make_tricky(in, gradients, EXACT_N);
        int f16 = exact_on(OR_F16, in, x, got, want, EXACT_N);
        int bf16 = exact_on(OR_BF16, in, x, got, want, EXACT_N);
        mm_bench_metricf(j, "bulk_exact", f16 && bf16 ? 1.0 : 0.0, "", "bulk fp16 %s, bulk bf16 "
                         "%s on %u inputs (ties, subnormals, overflow, NaNs, gradients); "
                         "oracles: %s / %s", f16 ? "exact" : "NOT exact",
                         bf16 ? "exact" : "NOT exact", EXACT_N, or_name(OR_F16, 1),
                         or_name(OR_BF16, 1));
    }
    free(in), free(want);
}

/* ZeRO stages 0-3 for 7.5e9 parameters over 64 ranks (the ZeRO paper's Figure 1). */
static void write_zero_series(mm_json_t *j)
{
    double gb[4];
    mp_config_t c;
    mp_config_init(&c);
    c.params = 7500000000, c.dp = 64, c.recipe = MP_AMP_FP16;
    for (int s = 0; s < 4; s++) {
        uint64_t w, g, o;
        c.zero_stage = s;
        if (mp_state_bytes(&c, &w, &g, &o) != 0)
            return;
        gb[s] = (double)(w + g + o) / 1e9;
    }
    mm_json_object(j, "zero_stages");
    mm_json_array(j, "stage");
    for (int s = 0; s < 4; s++)
        mm_json_int(j, NULL, s);
    mm_json_close(j, ']');
    mm_json_array(j, "gb_per_gpu");
    for (int s = 0; s < 4; s++)
        mm_json_num(j, NULL, gb[s]);
    mm_json_close(j, ']');
    mm_json_close(j, '}');
}

/* The info lines on the hardware conversions: speed, or why there is none. */
static void write_hardware_info(mm_json_t *j, const hw_case_t *hw, const char *key)
{
    char line[160];
    if (hw->ratio > 0)
        snprintf(line, sizeof line, "%s: %.2fx memcpy", hw->name, hw->ratio);
    else
        snprintf(line, sizeof line, "%s: %s", hw->name, hw->convert ? "not measured" :
                 "this CPU (or this build: no -march for it) has none");
    mm_json_str(j, key, line);
}

int main(void)
{
    mm_json_t j;
    hw_case_t hw16 = { "F16C vcvtps2ph", NULL, 0 }, hwbf = { "AVX512-BF16 vcvtneps2bf16", NULL, 0 };
    double scalar = 0;
#ifdef OR_X86
    hw16.convert = or_cpu_f16c() ? hw_f16_n : NULL;
    hwbf.convert = or_cpu_avx512bf16() ? hw_bf16_n : NULL;
#elif defined(__aarch64__)
    hw16 = (hw_case_t){ "Arm FCVTN (vcvt_f16_f32)", hw_f16_n, 0 };
    hwbf.name = "Arm BF16 BFCVTN (vcvt_bf16_f32)";
#ifdef HW_ARM_BF16
    hwbf.convert = getauxval(AT_HWCAP2) & HWCAP2_BF16 ? hw_bf16_n : NULL;
#endif
#endif
    mm_bench_open(&j, "08");
    static const char *const all[] = { "f32_to_bf16_vs_memcpy", "f32_to_f16_vs_memcpy",
                                       "bulk_exact", NULL };
    int setup = mm_call_setup();
    float *mine = malloc((size_t)N * sizeof *mine);
    uint16_t *want = malloc((size_t)N * sizeof *want);
    if (setup != 0 || !mine || !want) {
        mm_bench_fail_all(&j, all, "%s", setup ? "cannot start the program that runs your code"
                                               : "out of memory");
    } else {
        make_input(mine, N);
        /* Shared with your process: its input, memcpy's destination, its outputs. */
        conv_case_t bf = { mm_shared_alloc((size_t)N * sizeof *mine), mine,
                           mm_shared_alloc((size_t)N * sizeof *mine),
                           mm_shared_alloc((size_t)N * sizeof(uint16_t)),
                           mm_shared_alloc((size_t)N * sizeof(uint16_t)), mp_f32_to_bf16_n, 0,
                           OR_BF16, want, NULL };
        conv_case_t hf = bf;
        hf.convert = mp_f32_to_f16_n;
        hf.fmt = OR_F16;
        memcpy(bf.src, mine, (size_t)N * sizeof *mine);
        char busy[300] = "";
        scalar = scalar_vs_memcpy(&hf, busy, sizeof busy);
        if (!gate_fired(&j, scalar, busy)) {
            bench_conversion(&j, &bf, "f32_to_bf16_vs_memcpy", &hwbf);
            bench_conversion(&j, &hf, "f32_to_f16_vs_memcpy", &hw16);
        }
        bench_exact(&j, mine);
    }
    mm_bench_end_metrics(&j);
    mm_json_object(&j, "series");
    write_zero_series(&j);
    mm_json_close(&j, '}');
    mm_json_object(&j, "info");
    mm_json_int(&j, "floats_per_repetition", N);
    mm_json_str(&j, "baseline", "memcpy of the fp32 input (64 MiB read + 64 MiB written)");
    mm_json_num(&j, "gate_scalar_vs_memcpy", scalar);
    write_hardware_info(&j, &hw16, "hardware_f16");
    write_hardware_info(&j, &hwbf, "hardware_bf16");
    mm_json_end(&j);
    free(mine);
    free(want);
    return 0;
}
