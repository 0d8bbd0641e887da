/* Lab 08 tests, part A: fp32 <-> fp16 / bf16. Fixed vectors, then every one of the 2^32 fp32
 * inputs against an independent oracle (tests/oracle.h: x86 F16C / AVX512-BF16 where the CPU has
 * them, exact double arithmetic otherwise), split over threads. Under AddressSanitizer, or with
 * MLMEM_SAMPLE=1, a seeded sample of 2^25 inputs rich in rounding ties, subnormals, overflow
 * boundaries and NaNs is checked instead of all 2^32 (a sanitizer makes each call ~10x slower). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "mm_check.h"
#include "mp_convert.h"
#include "oracle.h"

typedef struct {
    uint32_t in;
    uint16_t want;
    const char *what;
} vec_t;

static const vec_t f16_vectors[] = {
    { 0x477FE000, 0x7BFF, "65504, the largest fp16" },
    { 0x477FEFFD, 0x7BFF, "65519.99 rounds down to 65504" },
    { 0x477FF000, 0x7C00, "65520 is a tie between 65504 and 2^16: to even, i.e. inf" },
    { 0x7F7FFFFF, 0x7C00, "FLT_MAX overflows to inf" },
    { 0x33800000, 0x0001, "2^-24, the smallest fp16 subnormal" },
    { 0x33000000, 0x0000, "2^-25 is a tie between 0 and 2^-24: to even, i.e. 0" },
    { 0x33000001, 0x0001, "just above 2^-25 rounds up to 2^-24" },
    { 0x387FC000, 0x03FF, "the largest fp16 subnormal" },
    { 0x38800000, 0x0400, "2^-14, the smallest normal fp16" },
    { 0x3F801000, 0x3C00, "1 + 2^-11 is a tie: to even, 1.0" },
    { 0x3F803000, 0x3C02, "1 + 3*2^-11 is a tie: to even, 1 + 2^-9" },
    { 0xC0490FDB, 0xC248, "-pi" },
    { 0x80000000, 0x8000, "-0 keeps its sign" },
    { 0x7F800000, 0x7C00, "+inf" },
    { 0xFF800000, 0xFC00, "-inf" },
    { 0xFFA00000, 0xFF00, "a signalling NaN: quiet, with its sign and top payload bits" },
    { 0x7F800001, 0x7E00, "a NaN whose payload does not fit is still a NaN" },
};

static const vec_t bf16_vectors[] = {
    { 0x3F808000, 0x3F80, "1 + 2^-8 is a tie: to even, 1.0" },
    { 0x3F818000, 0x3F82, "1 + 3*2^-8 is a tie: to even, 1 + 2^-6" },
    { 0x3F80FFFF, 0x3F81, "just below 1 + 2^-7 rounds up" },
    { 0x7F7FFFFF, 0x7F80, "FLT_MAX rounds up to inf" },
    { 0x007FFFFF, 0x0080, "the largest subnormal rounds up to the smallest normal" },
    { 0x00008000, 0x0000, "a subnormal tie: to even, 0" },
    { 0x00018000, 0x0002, "a subnormal tie: to even, 2 units" },
    { 0xC0200000, 0xC020, "-2.5" },
    { 0x80000000, 0x8000, "-0 keeps its sign" },
    { 0xFF800000, 0xFF80, "-inf" },
    { 0xFFA00000, 0xFFE0, "a signalling NaN: quiet, with its sign and top payload bits" },
    { 0x7F800001, 0x7FC0, "a NaN whose payload does not fit is still a NaN" },
};

typedef uint16_t (*narrow_fn)(float);
typedef int (*bulk_fn)(const float *, uint16_t *, size_t);

static narrow_fn scalar_of(or_fmt_t f) { return f == OR_F16 ? mp_f32_to_f16 : mp_f32_to_bf16; }
static bulk_fn bulk_of(or_fmt_t f) { return f == OR_F16 ? mp_f32_to_f16_n : mp_f32_to_bf16_n; }
static const char *name_of(or_fmt_t f) { return f == OR_F16 ? "fp16" : "bf16"; }

static void check_vectors(or_fmt_t fmt, const vec_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint16_t got = scalar_of(fmt)(or_float(v[i].in));
        ck_assert_msg(got == v[i].want, "fp32 0x%08x (%g) -> %s: got 0x%04x, want 0x%04x (%s)",
                      v[i].in, (double)or_float(v[i].in), name_of(fmt), got, v[i].want, v[i].what);
    }
}

MM_TEST(test_f16_vectors)
{
    check_vectors(OR_F16, f16_vectors, sizeof f16_vectors / sizeof f16_vectors[0]);
}
MM_END_TEST

MM_TEST(test_bf16_vectors)
{
    check_vectors(OR_BF16, bf16_vectors, sizeof bf16_vectors / sizeof bf16_vectors[0]);
}
MM_END_TEST

/* ---- every input, over threads ---- */

#define CHUNK 4096
#define MAX_BAD 5
#define SAMPLES (1u << 25)

typedef struct {
    or_fmt_t fmt;
    int bulk;           /* 0: the scalar function; 1: the bulk one, on pieces of random length */
    uint64_t lo, count; /* inputs lo .. lo + count - 1, or count random ones when sampling */
    int sample;
    mm_rng_t rng;
    uint64_t checked, wrong;
    unsigned nbad;
    uint32_t bad_in[MAX_BAD];
    uint16_t bad_got[MAX_BAD], bad_want[MAX_BAD];
    int bulk_rc, overrun;
} job_t;

static int sample_mode(void)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    return 1;
#else
    const char *s = getenv("MLMEM_SAMPLE");
    return s && *s && strcmp(s, "0") != 0;
#endif
}

/* Low mantissa bits around both rounding points (bit 12 for fp16, bit 15 for bf16). */
static const uint32_t tricky_low[] = { 0x00000, 0x00001, 0x00FFF, 0x01000, 0x01001, 0x01FFF,
                                       0x02000, 0x03000, 0x07FFF, 0x08000, 0x08001, 0x0FFFF,
                                       0x10000, 0x17FFF, 0x18000, 0x18001, 0x1F000, 0x1FFFF };

static uint32_t sample_input(mm_rng_t *r)
{
    uint64_t x = mm_rng_next(r);
    if (x & 1) /* half uniform bit patterns */
        return (uint32_t)(x >> 32);
    uint32_t sign = (uint32_t)(x >> 1) & 0x80000000u, e = (uint32_t)(x >> 8) & 0xFFu;
    uint32_t m = ((uint32_t)(x >> 16) & 0x7E0000u) | tricky_low[(x >> 40) % 18];
    return sign | e << 23 | m;
}

/* A whole chunk always (a fixed trip count: the compiler vectorizes it); callers use n. */
static void fill(job_t *j, uint32_t *in, size_t n, uint64_t first)
{
    if (!j->sample) {
        for (uint32_t k = 0; k < CHUNK; k++)
            in[k] = (uint32_t)first + k;
        return;
    }
    for (size_t k = 0; k < n; k++)
        in[k] = sample_input(&j->rng);
}

/* The bulk function on pieces of 1..300 elements, at random element offsets, with guard
 * values on both sides of the output to catch writes outside dst[0..n). */
static void run_bulk(job_t *j, const uint32_t *in, uint16_t *out, size_t n)
{
    enum { GUARD = 16 };
    float src[CHUNK + 16];
    uint16_t dst[GUARD + CHUNK + GUARD], guard[GUARD];
    size_t so = mm_rng_range(&j->rng, 0, 15);
    memcpy(src + so, in, n * sizeof *in);
    memset(dst, 0xA5, sizeof dst);
    memset(guard, 0xA5, sizeof guard);
    for (size_t at = 0, len; at < n; at += len) {
        len = (size_t)mm_rng_range(&j->rng, 1, 300);
        len = len < n - at ? len : n - at;
        int rc = bulk_of(j->fmt)(src + so + at, dst + GUARD + at, len);
        j->bulk_rc = j->bulk_rc ? j->bulk_rc : rc;
    }
    j->overrun |= memcmp(dst, guard, sizeof guard) != 0 ||
                  memcmp(dst + GUARD + n, guard, sizeof guard) != 0;
    memcpy(out, dst + GUARD, n * sizeof *out);
}

static void run_scalar(job_t *j, const uint32_t *in, uint16_t *out, size_t n)
{
    narrow_fn fn = scalar_of(j->fmt);
    for (size_t k = 0; k < n; k++)
        out[k] = fn(or_float(in[k]));
}

static void compare(job_t *j, const uint32_t *in, const uint16_t *got, const uint16_t *want,
                    size_t n)
{
    j->checked += n;
    if (memcmp(got, want, n * sizeof *got) == 0)
        return;
    for (size_t k = 0; k < n; k++) {
        if (got[k] == want[k])
            continue;
        j->wrong++;
        if (j->nbad < MAX_BAD) {
            j->bad_in[j->nbad] = in[k], j->bad_got[j->nbad] = got[k];
            j->bad_want[j->nbad++] = want[k];
        }
    }
}

static void *run_job(void *arg)
{
    job_t *j = arg;
    uint32_t in[CHUNK];
    uint16_t got[CHUNK], want[CHUNK];
    for (uint64_t done = 0, n; done < j->count && j->nbad < MAX_BAD && !j->overrun; done += n) {
        n = j->count - done < CHUNK ? j->count - done : CHUNK;
        fill(j, in, n, j->lo + done);
        if (j->bulk)
            run_bulk(j, in, got, n);
        else
            run_scalar(j, in, got, n);
        or_narrow(j->fmt, in, want, n);
        compare(j, in, got, want, n);
    }
    return NULL;
}

static unsigned thread_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 8 ? 8 : (unsigned)n;
}

/* "input 0x...: got 0x..., want 0x...; ..." for the first mismatches of every job. */
static void describe_bad(const job_t *jobs, unsigned nt, char *msg, size_t len)
{
    size_t pos = 0;
    for (unsigned t = 0; t < nt; t++)
        for (unsigned b = 0; b < jobs[t].nbad && pos + 1 < len; b++) {
            int w = snprintf(msg + pos, len - pos, "%s0x%08x (%g): got 0x%04x, want 0x%04x",
                             pos ? "; " : "", jobs[t].bad_in[b],
                             (double)or_float(jobs[t].bad_in[b]), jobs[t].bad_got[b],
                             jobs[t].bad_want[b]);
            pos += w > 0 ? (size_t)w : 0;
        }
}

static void check_all(or_fmt_t fmt, int bulk, mm_rng_t *r)
{
    unsigned nt = thread_count();
    int sample = sample_mode();
    uint64_t total = sample ? SAMPLES : 1ull << 32;
    job_t *jobs = calloc(nt, sizeof *jobs);
    pthread_t tid[8];
    int started[8] = { 0 };
    ck_assert_ptr_nonnull(jobs);
    for (unsigned t = 0; t < nt; t++) {
        jobs[t] = (job_t){ .fmt = fmt, .bulk = bulk, .sample = sample,
                           .lo = total * t / nt, .count = total * (t + 1) / nt - total * t / nt,
                           .rng = mm_rng_new(mm_rng_next(r)) };
        started[t] = pthread_create(&tid[t], NULL, run_job, &jobs[t]) == 0;
        if (!started[t])
            run_job(&jobs[t]);
    }
    uint64_t checked = 0, wrong = 0;
    int rc = 0, overrun = 0;
    for (unsigned t = 0; t < nt; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        checked += jobs[t].checked, wrong += jobs[t].wrong;
        rc = rc ? rc : jobs[t].bulk_rc, overrun |= jobs[t].overrun;
    }
    printf("mlmem: %s fp32 -> %s, %s: %llu inputs checked against %s\n",
           bulk ? "bulk" : "scalar", name_of(fmt), sample ? "seeded sample" : "all 2^32",
           (unsigned long long)checked, or_name(fmt, 1));
    char msg[1400] = "";
    describe_bad(jobs, nt, msg, sizeof msg);
    free(jobs);
    ck_assert_msg(rc == 0, "the bulk function returned %d (%s) for valid arguments", rc,
                  strerror(rc < 0 ? -rc : 0));
    ck_assert_msg(!overrun, "the bulk function wrote outside dst[0..n)");
    ck_assert_msg(wrong == 0, "fp32 -> %s (%s) is wrong; first mismatches: %s (%llu wrong in "
                  "%llu checked; each thread stops after its first %d)", name_of(fmt),
                  bulk ? "bulk" : "scalar", msg, (unsigned long long)wrong,
                  (unsigned long long)checked, MAX_BAD);
    ck_assert_msg(checked == total, "checked %llu inputs of %llu", (unsigned long long)checked,
                  (unsigned long long)total);
}

/* The four tests of all 2^32 inputs take 5-20 s each (about 60 s where the software oracle runs):
 * their own time limit, lab.toml's test_timeout_s, so that `make lab08` runs them too. */
static const mm_fixture_t all_inputs = { .timeout_s = 180 };

MM_TEST_F(test_f16_exhaustive, &all_inputs)
{
    mm_rng_t r = MM_RNG();
    check_all(OR_F16, 0, &r);
}
MM_END_TEST

MM_TEST_F(test_bf16_exhaustive, &all_inputs)
{
    mm_rng_t r = MM_RNG();
    check_all(OR_BF16, 0, &r);
}
MM_END_TEST

MM_TEST_F(test_bulk_f16_exhaustive, &all_inputs)
{
    mm_rng_t r = MM_RNG();
    check_all(OR_F16, 1, &r);
}
MM_END_TEST

MM_TEST_F(test_bulk_bf16_exhaustive, &all_inputs)
{
    mm_rng_t r = MM_RNG();
    check_all(OR_BF16, 1, &r);
}
MM_END_TEST

/* ---- widening: all 65536 inputs of each format ---- */

static uint32_t widen_scalar(or_fmt_t fmt, uint16_t h)
{
    return or_bits(fmt == OR_F16 ? mp_f16_to_f32(h) : mp_bf16_to_f32(h));
}

static void check_widen(or_fmt_t fmt)
{
    static uint16_t in[65536];
    static uint32_t want[65536];
    for (uint32_t h = 0; h < 65536; h++)
        in[h] = (uint16_t)h;
    or_widen(fmt, in, want, 65536);
    for (uint32_t h = 0; h < 65536; h++) {
        uint32_t got = widen_scalar(fmt, (uint16_t)h);
        MM_CHECK(got == want[h], "%s 0x%04x -> fp32: got 0x%08x, want 0x%08x (%s)",
                 name_of(fmt), h, got, want[h], or_name(fmt, 0));
    }
}

MM_TEST(test_widen_exhaustive)
{
    check_widen(OR_F16);
    check_widen(OR_BF16);
}
MM_END_TEST

static int is_nan16(or_fmt_t fmt, uint16_t h)
{
    if (fmt == OR_F16)
        return (h & 0x7C00) == 0x7C00 && (h & 0x3FF);
    return (h & 0x7F80) == 0x7F80 && (h & 0x7F);
}

MM_TEST(test_round_trip)
{
    for (int f = OR_F16; f <= OR_BF16; f++)
        for (uint32_t h = 0; h < 65536; h++) {
            uint16_t quiet = f == OR_F16 ? 0x0200 : 0x0040;
            uint16_t want = (uint16_t)(is_nan16(f, (uint16_t)h) ? h | quiet : h);
            uint16_t back = scalar_of(f)(or_float(widen_scalar(f, (uint16_t)h)));
            MM_CHECK(back == want, "%s 0x%04x -> fp32 -> %s gives 0x%04x: every 16-bit value "
                     "is an fp32 value, so the round trip must give it back (0x%04x)",
                     name_of(f), h, name_of(f), back, want);
        }
}
MM_END_TEST

static int widen_n(or_fmt_t fmt, const uint16_t *in, float *out, size_t n)
{
    return fmt == OR_F16 ? mp_f16_to_f32_n(in, out, n) : mp_bf16_to_f32_n(in, out, n);
}

MM_TEST(test_bulk_widen)
{
    mm_rng_t r = MM_RNG();
    static uint16_t in[65536 + 8];
    static float out[65536 + 8];
    for (int f = OR_F16; f <= OR_BF16; f++) {
        size_t off = mm_rng_range(&r, 0, 7);
        for (uint32_t h = 0; h < 65536; h++)
            in[off + h] = (uint16_t)h;
        for (size_t at = 0, len; at < 65536; at += len) {
            len = (size_t)mm_rng_range(&r, 1, 1000);
            len = len < 65536 - at ? len : 65536 - at;
            MM_ASSERT_OK(widen_n((or_fmt_t)f, in + off + at, out + off + at, len));
        }
        for (uint32_t h = 0; h < 65536; h++)
            MM_CHECK(or_bits(out[off + h]) == widen_scalar(f, (uint16_t)h),
                     "bulk %s -> fp32 of 0x%04x gives 0x%08x, the scalar one 0x%08x",
                     name_of(f), h, or_bits(out[off + h]), widen_scalar(f, (uint16_t)h));
    }
}
MM_END_TEST

MM_TEST(test_bulk_bad_args)
{
    float x[3] = { 1.0f, -2.0f, 0.5f }, back[3] = { 0, 0, 0 };
    uint16_t h[3] = { 7, 7, 7 };
    MM_ASSERT_ERR(mp_f32_to_f16_n(NULL, h, 3), -EINVAL);
    MM_ASSERT_ERR(mp_f32_to_bf16_n(x, NULL, 3), -EINVAL);
    MM_ASSERT_ERR(mp_f16_to_f32_n(NULL, back, 3), -EINVAL);
    MM_ASSERT_ERR(mp_bf16_to_f32_n(h, NULL, 3), -EINVAL);
    ck_assert_msg(h[0] == 7 && back[0] == 0, "a rejected call must not write anything");
    MM_ASSERT_OK(mp_f32_to_f16_n(NULL, NULL, 0));
    MM_ASSERT_OK(mp_f32_to_bf16_n(x, h, 3));
    ck_assert_msg(h[0] == 0x3F80 && h[1] == 0xC000 && h[2] == 0x3F00, "bf16 of 1, -2, 0.5");
    MM_ASSERT_OK(mp_bf16_to_f32_n(h, back, 3));
    ck_assert_msg(back[0] == 1.0f && back[1] == -2.0f && back[2] == 0.5f, "and back");
}
MM_END_TEST
