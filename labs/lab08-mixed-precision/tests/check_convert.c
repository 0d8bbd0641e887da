/* Lab 08 tests, part A: fp32 <-> fp16 / bf16. Fixed vectors, then every one of the 2^32 fp32
 * inputs against an independent oracle (tests/oracle.h: x86 F16C / AVX512-BF16 where the CPU has
 * them, exact double arithmetic otherwise). Your functions convert batches of inputs in your
 * process (the `convert` workload, serve/convert_work.c): this program names the inputs (by
 * their index: your process makes them) and checks every output, or their sum (mp_work.h),
 * against the oracle's answers, worked out here. Under AddressSanitizer, or with
 * MLMEM_SAMPLE=1, a seeded sample of 2^25 inputs rich in rounding ties, subnormals, overflow
 * boundaries and NaNs is checked instead of all 2^32 (a sanitizer makes each call ~10x slower);
 * this program draws them, keeps its own record and writes them to memory your process reads. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "mm_call.h"
#include "mm_check.h"
#include "mp_convert.h"
#include "oracle.h"
#include "../serve/mp_work.h"

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

static narrow_fn scalar_of(or_fmt_t f) { return f == OR_F16 ? mp_f32_to_f16 : mp_f32_to_bf16; }
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

/* ---- every input, in batches ---- */

#define BATCH (1u << 20) /* inputs per call of the workload */
#define GUARD 16         /* 16-bit guard values on both sides of the outputs */
#define MAX_BAD 5
#define SAMPLES (1u << 25)
#define MAX_THREADS 8
#define PIECE MP_WORK_BLOCK /* elements prepared at a time */
#define ROUND (32 * BATCH)  /* sweeping all 2^32: a round's first batch's outputs come here, so
                               that a write outside dst[0..n) shows in our guards; the other 31
                               batches are summed in your process in one call */
_Static_assert(BATCH % PIECE == 0 && SAMPLES % BATCH == 0, "batches of whole blocks");

static unsigned thread_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (unsigned)n;
}

/* Runs the `convert` workload: op on n elements, src to dst (both shared; src NULL: the inputs
 * are the fp32 values with bits first, first + 1, ...). Its result. */
static int work_from(mp_work_op_t op, const void *src, uint64_t first, void *dst, uint64_t n,
                     uint64_t seed)
{
    mp_work_convert_t q = { (uint32_t)op, thread_count(), seed, n, (uintptr_t)src,
                            (uintptr_t)dst, first };
    return mm_call_work("convert", &q, sizeof q, NULL, 0);
}

static int work(mp_work_op_t op, const void *src, void *dst, uint64_t n, uint64_t seed)
{
    return work_from(op, src, 0, dst, n, seed);
}

/* The workload on inputs first .. first + n - 1, its outputs summed in your process (*sum). */
static int work_sum(mp_work_op_t op, uint64_t first, uint64_t n, uint64_t seed, uint32_t *sum)
{
    mp_work_convert_t q = { (uint32_t)op, thread_count(), seed, n, 0, 0, first };
    return mm_call_work("convert", &q, sizeof q, sum, sizeof *sum);
}

/* One thread's share of a batch: what it found. */
typedef struct {
    uint64_t wrong;
    unsigned nbad;
    uint32_t bad_in[MAX_BAD];
    uint16_t bad_got[MAX_BAD], bad_want[MAX_BAD];
} tally_t;

/* A sweep over all inputs (or a sample). in is ours; src and dst are shared. */
typedef struct {
    or_fmt_t fmt;
    int bulk, sample;
    uint64_t first, n;  /* this call: inputs first .. first + n - 1 (sampling: n random ones) */
    uint32_t *in;       /* sampling only: the batch's inputs (else input k is first + k) */
    uint32_t *src;      /* sampling only, shared: the inputs, at a random offset of 0..15
                           elements (else your process makes them from their index) */
    uint16_t *dst;      /* shared: GUARD + BATCH + GUARD */
    size_t so;
    unsigned nt;
    mm_rng_t rng[MAX_THREADS];
    tally_t tally[MAX_THREADS];
    uint32_t sum[MAX_THREADS]; /* the oracle's answers, summed (mp_work_sum) */
    int unsteady;              /* a sum differed, and then the outputs were right */
    uint64_t unsteady_first, unsteady_n; /* the inputs of that sum */
} sweep_t;

typedef struct {
    sweep_t *s;
    unsigned t;
    void (*fn)(sweep_t *, unsigned, uint64_t, uint64_t);
} part_t;

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

/* Inputs [at, at + n) of the batch into in[0, PIECE): consecutive ones from the batch's first
 * (a fixed trip count: the compiler vectorizes it), or our record of the sample. */
static void inputs(const sweep_t *s, uint32_t *in, uint64_t at, size_t n)
{
    if (s->sample) {
        memcpy(in, s->in + at, n * sizeof *in);
        return;
    }
    for (uint32_t k = 0; k < PIECE; k++)
        in[k] = (uint32_t)(s->first + at) + k;
}

/* An output that no correct conversion of x gives: a zero of the other sign (every conversion
 * keeps the sign, NaNs included), so that an output your code did not write is always wrong. */
static uint16_t never(uint32_t x) { return (uint16_t)((x >> 16 & 0x8000) ^ 0x8000); }

/* Outputs that are all wrong until your code writes them (sampling: also the inputs, drawn
 * here, our record of them and the shared copy), a piece at a time, in this thread's cache. */
static void prepare(sweep_t *s, unsigned t, uint64_t lo, uint64_t hi)
{
    uint32_t in[PIECE];
    uint16_t wrong[PIECE];
    for (uint64_t at = lo, n; at < hi; at += n) {
        n = hi - at < PIECE ? hi - at : PIECE;
        if (s->sample) {
            for (size_t k = 0; k < n; k++)
                in[k] = sample_input(&s->rng[t]);
            memcpy(s->in + at, in, n * sizeof *in);
            memcpy(s->src + s->so + at, in, n * sizeof *in);
        } else {
            inputs(s, in, at, n);
        }
        for (uint32_t k = 0; k < PIECE; k++)
            wrong[k] = never(in[k]);
        memcpy(s->dst + GUARD + at, wrong, n * sizeof *wrong);
    }
}

typedef void (*piece_fn)(sweep_t *s, unsigned t, uint64_t at, const uint32_t *in,
                         const uint16_t *want, size_t n);

/* fn on each piece of [lo, hi): its inputs, and the oracle's answers worked out here. */
static void with_answers(sweep_t *s, unsigned t, uint64_t lo, uint64_t hi, piece_fn fn)
{
    uint32_t in[PIECE];
    uint16_t want[PIECE];
    for (uint64_t at = lo, n; at < hi; at += n) {
        n = hi - at < PIECE ? hi - at : PIECE;
        inputs(s, in, at, n);
        or_narrow(s->fmt, in, want, n);
        fn(s, t, at, in, want, n);
    }
}

/* Your outputs of a piece against the oracle's answers. */
static void compare_piece(sweep_t *s, unsigned t, uint64_t at, const uint32_t *in,
                          const uint16_t *want, size_t n)
{
    const uint16_t *got = s->dst + GUARD + at;
    tally_t *y = &s->tally[t];
    if (memcmp(got, want, n * sizeof *want) == 0)
        return;
    for (size_t k = 0; k < n; k++) {
        if (got[k] == want[k])
            continue;
        y->wrong++;
        if (y->nbad < MAX_BAD) {
            y->bad_in[y->nbad] = in[k], y->bad_got[y->nbad] = got[k];
            y->bad_want[y->nbad++] = want[k];
        }
    }
}

static void compare(sweep_t *s, unsigned t, uint64_t lo, uint64_t hi)
{
    with_answers(s, t, lo, hi, compare_piece);
}

/* The oracle's answers of a piece (whole units), summed as your process sums its outputs. */
static void sum_piece(sweep_t *s, unsigned t, uint64_t at, const uint32_t *in,
                      const uint16_t *want, size_t n)
{
    (void)in;
    s->sum[t] += mp_work_sum(want, (uint32_t)((s->first + at) / 2), n / 2);
}

static void sum_part(sweep_t *s, unsigned t, uint64_t lo, uint64_t hi)
{
    s->sum[t] = 0;
    with_answers(s, t, lo, hi, sum_piece);
}

static void *run_part(void *arg)
{
    part_t *p = arg;
    sweep_t *s = p->s;
    uint64_t words = s->n / 4; /* parts of whole words, as your process splits the batch */
    p->fn(s, p->t, 4 * (words * p->t / s->nt), 4 * (words * (p->t + 1) / s->nt));
    return NULL;
}

/* fn on the batch, split over this program's threads. */
static void in_parallel(sweep_t *s, void (*fn)(sweep_t *, unsigned, uint64_t, uint64_t))
{
    part_t p[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    int started[MAX_THREADS] = { 0 };
    for (unsigned t = s->nt; t-- > 0;) { /* part 0 last, on this thread */
        p[t] = (part_t){ s, t, fn };
        started[t] = t > 0 && pthread_create(&tid[t], NULL, run_part, &p[t]) == 0;
        if (!started[t])
            run_part(&p[t]);
    }
    for (unsigned t = 0; t < s->nt; t++)
        if (started[t])
            pthread_join(tid[t], NULL);
}

/* "0x... (x): got 0x..., want 0x...; ..." for the first mismatches of every thread. */
static void describe_bad(const sweep_t *s, char *msg, size_t len)
{
    size_t pos = 0;
    for (unsigned t = 0; t < s->nt; t++)
        for (unsigned b = 0; b < s->tally[t].nbad && pos + 1 < len; b++) {
            const tally_t *y = &s->tally[t];
            int w = snprintf(msg + pos, len - pos, "%s0x%08x (%g): got 0x%04x, want 0x%04x",
                             pos ? "; " : "", y->bad_in[b], (double)or_float(y->bad_in[b]),
                             y->bad_got[b], y->bad_want[b]);
            pos += w > 0 ? (size_t)w : 0;
        }
}

/* The outputs found wrong so far, over every thread's tally. */
static uint64_t wrong_of(const sweep_t *s)
{
    uint64_t wrong = 0;
    for (unsigned t = 0; t < s->nt; t++)
        wrong += s->tally[t].wrong;
    return wrong;
}

static mp_work_op_t op_of(const sweep_t *s)
{
    return s->fmt == OR_F16 ? (s->bulk ? MP_WORK_F16_BULK : MP_WORK_F16)
                            : (s->bulk ? MP_WORK_BF16_BULK : MP_WORK_BF16);
}

/* Inputs first .. first + n - 1 through your code, their outputs summed in your process: 1 if
 * the sum is the oracle's (and the workload returned 0). */
static int summed_right(sweep_t *s, uint64_t first, uint64_t n, uint64_t seed)
{
    uint32_t theirs = 0, ours = 0;
    s->first = first, s->n = n;
    int rc = work_sum(op_of(s), first, n, seed, &theirs);
    in_parallel(s, sum_part);
    for (unsigned t = 0; t < s->nt; t++)
        ours += s->sum[t];
    return rc == 0 && theirs == ours;
}

/* One batch (inputs first .. first + n - 1, or the sample's next n) through your code, its
 * outputs in shared memory, every one compared here; 0, or the workload's result. *overrun: a
 * guard was written. */
static int outputs_right(sweep_t *s, uint64_t first, uint64_t n, uint64_t seed, int *overrun)
{
    static const uint16_t guard[GUARD] = { 0xA5A5, 0xA5A5, 0xA5A5, 0xA5A5, 0xA5A5, 0xA5A5,
                                           0xA5A5, 0xA5A5, 0xA5A5, 0xA5A5, 0xA5A5, 0xA5A5,
                                           0xA5A5, 0xA5A5, 0xA5A5, 0xA5A5 };
    s->first = first, s->n = n;
    in_parallel(s, prepare);
    memcpy(s->dst, guard, sizeof guard);
    memcpy(s->dst + GUARD + n, guard, sizeof guard);
    int rc = work_from(op_of(s), s->sample ? s->src + s->so : NULL, first, s->dst + GUARD, n,
                       seed);
    in_parallel(s, compare);
    *overrun |= memcmp(s->dst, guard, sizeof guard) != 0 ||
                memcmp(s->dst + GUARD + n, guard, sizeof guard) != 0;
    return rc;
}

/* 1 once the sweep has found a fault: a workload's error, a guard written or a wrong output. */
static int failed(const sweep_t *s, int rc, int overrun)
{
    return rc || overrun || wrong_of(s);
}

/* A round of the sweep of all 2^32 (inputs first .. first + n - 1, n <= ROUND): its first
 * batch with outputs here, the rest summed in your process. Where the sum is wrong, those
 * batches run again one by one with their outputs here (the same seed: the same calls, up to
 * the first that is wrong; none wrong: the sweep is unsteady). 0, or the workload's result. */
static int run_round(sweep_t *s, uint64_t first, uint64_t n, uint64_t seed, int *overrun)
{
    uint64_t head = n < BATCH ? n : BATCH, end = first + n;
    int rc = outputs_right(s, first, head, seed, overrun);
    if (failed(s, rc, *overrun) || n == head || summed_right(s, first + head, n - head, seed))
        return rc;
    for (uint64_t at = first + head; at < end && !failed(s, rc, *overrun); at += BATCH)
        rc = outputs_right(s, at, end - at < BATCH ? end - at : BATCH, seed, overrun);
    if (!failed(s, rc, *overrun))
        s->unsteady = 1, s->unsteady_first = first + head, s->unsteady_n = n - head;
    return rc;
}

/* The next call's inputs, from `at` of total, through your code: a round of all 2^32, or a batch
 * of the sample (bulk: at a random offset of the shared input); their count in *n. 0, or the
 * workload's result. */
static int run_next(sweep_t *s, mm_rng_t *r, uint64_t at, uint64_t total, uint64_t *n,
                    int *overrun)
{
    uint64_t seed = mm_rng_next(r);
    if (!s->sample) {
        *n = total - at < ROUND ? total - at : ROUND;
        return run_round(s, at, *n, seed, overrun);
    }
    *n = total - at < BATCH ? total - at : BATCH;
    s->so = s->bulk ? (size_t)mm_rng_range(r, 0, 15) : 0;
    return outputs_right(s, at, *n, seed, overrun);
}

static void check_all(or_fmt_t fmt, int bulk, mm_rng_t *r)
{
    sweep_t *s = calloc(1, sizeof *s);
    ck_assert_ptr_nonnull(s);
    int sample = sample_mode();
    *s = (sweep_t){ .fmt = fmt, .bulk = bulk, .sample = sample, .nt = thread_count(),
                    .in = sample ? malloc(BATCH * sizeof *s->in) : NULL,
                    .src = sample ? mm_shared_alloc((BATCH + 16) * sizeof *s->src) : NULL,
                    .dst = mm_shared_alloc((BATCH + 2 * GUARD) * sizeof *s->dst) };
    ck_assert_msg((s->in && s->src) || !sample, "out of memory");
    for (unsigned t = 0; t < s->nt; t++)
        s->rng[t] = mm_rng_new(mm_rng_next(r));
    uint64_t total = s->sample ? SAMPLES : 1ull << 32, checked = 0, wrong = 0, n;
    int rc = 0, overrun = 0;
    for (uint64_t at = 0; at < total && !failed(s, rc, overrun) && !s->unsteady; at += n) {
        rc = run_next(s, r, at, total, &n, &overrun);
        checked += n, wrong = wrong_of(s);
    }
    printf("mlmem: %s fp32 -> %s, %s: %llu inputs checked against %s\n",
           bulk ? "bulk" : "scalar", name_of(fmt), s->sample ? "seeded sample" : "all 2^32",
           (unsigned long long)checked, or_name(fmt, 1));
    char msg[1400] = "";
    describe_bad(s, msg, sizeof msg);
    int unsteady = s->unsteady;
    uint64_t ufirst = s->unsteady_first, ulast = ufirst + s->unsteady_n - 1;
    free(s->in), free(s);
    ck_assert_msg(rc == 0, "the bulk function returned %d (%s) for valid arguments", rc,
                  strerror(rc < 0 ? -rc : 0));
    ck_assert_msg(!overrun, "the bulk function wrote outside dst[0..n)");
    ck_assert_msg(wrong == 0, "fp32 -> %s (%s) is wrong; first mismatches: %s (%llu wrong in "
                  "%llu checked; each thread reports its first %d)", name_of(fmt),
                  bulk ? "bulk" : "scalar", msg, (unsigned long long)wrong,
                  (unsigned long long)checked, MAX_BAD);
    ck_assert_msg(!unsteady, "fp32 -> %s (%s) gave different outputs for the same inputs in two "
                  "runs (inputs 0x%08llx to 0x%08llx): a conversion must depend on its input "
                  "alone", name_of(fmt), bulk ? "bulk" : "scalar",
                  (unsigned long long)ufirst, (unsigned long long)ulast);
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

/* Your scalar widening of every 16-bit value, h at index h, into wide (ours). */
static void widen_all(or_fmt_t fmt, uint32_t *wide)
{
    uint16_t *src = mm_shared_alloc(65536 * sizeof *src);
    uint32_t *dst = mm_shared_alloc(65536 * sizeof *dst);
    for (uint32_t h = 0; h < 65536; h++)
        src[h] = (uint16_t)h;
    mp_work_op_t op = fmt == OR_F16 ? MP_WORK_F16_WIDEN : MP_WORK_BF16_WIDEN;
    MM_ASSERT_OK(work(op, src, dst, 65536, 0));
    memcpy(wide, dst, 65536 * sizeof *wide);
}

static void check_widen(or_fmt_t fmt)
{
    static uint16_t in[65536];
    static uint32_t want[65536], got[65536];
    for (uint32_t h = 0; h < 65536; h++)
        in[h] = (uint16_t)h;
    or_widen(fmt, in, want, 65536);
    widen_all(fmt, got);
    for (uint32_t h = 0; h < 65536; h++)
        MM_CHECK(got[h] == want[h], "%s 0x%04x -> fp32: got 0x%08x, want 0x%08x (%s)",
                 name_of(fmt), h, got[h], want[h], or_name(fmt, 0));
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
    static uint32_t wide[65536];
    uint32_t *src = mm_shared_alloc(65536 * sizeof *src);
    uint16_t *dst = mm_shared_alloc(65536 * sizeof *dst);
    for (int f = OR_F16; f <= OR_BF16; f++) {
        widen_all((or_fmt_t)f, wide);
        memcpy(src, wide, sizeof wide);
        MM_ASSERT_OK(work(f == OR_F16 ? MP_WORK_F16 : MP_WORK_BF16, src, dst, 65536, 0));
        for (uint32_t h = 0; h < 65536; h++) {
            uint16_t quiet = f == OR_F16 ? 0x0200 : 0x0040;
            uint16_t want = (uint16_t)(is_nan16(f, (uint16_t)h) ? h | quiet : h);
            MM_CHECK(dst[h] == want, "%s 0x%04x -> fp32 -> %s gives 0x%04x: every 16-bit value "
                     "is an fp32 value, so the round trip must give it back (0x%04x)",
                     name_of(f), h, name_of(f), dst[h], want);
        }
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
    static uint32_t scalar[65536];
    uint16_t *in = mm_shared_alloc((65536 + 8) * sizeof *in);
    float *out = mm_shared_alloc((65536 + 8) * sizeof *out);
    for (int f = OR_F16; f <= OR_BF16; f++) {
        size_t off = mm_rng_range(&r, 0, 7);
        for (uint32_t h = 0; h < 65536; h++)
            in[off + h] = (uint16_t)h;
        for (size_t at = 0, len; at < 65536; at += len) {
            len = (size_t)mm_rng_range(&r, 1, 1000);
            len = len < 65536 - at ? len : 65536 - at;
            MM_ASSERT_OK(widen_n((or_fmt_t)f, in + off + at, out + off + at, len));
        }
        widen_all((or_fmt_t)f, scalar);
        for (uint32_t h = 0; h < 65536; h++)
            MM_CHECK(or_bits(out[off + h]) == scalar[h],
                     "bulk %s -> fp32 of 0x%04x gives 0x%08x, the scalar one 0x%08x",
                     name_of(f), h, or_bits(out[off + h]), scalar[h]);
    }
}
MM_END_TEST

MM_TEST(test_bulk_bad_args)
{
    float *x = mm_shared_alloc(3 * sizeof *x), *back = mm_shared_alloc(3 * sizeof *back);
    uint16_t *h = mm_shared_alloc(3 * sizeof *h);
    x[0] = 1.0f, x[1] = -2.0f, x[2] = 0.5f;
    h[0] = h[1] = h[2] = 7;
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
