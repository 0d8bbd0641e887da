/* Lab 10 tests: the helpers and oracles of support.h, written from the headers' rules alone. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "support.h"

/* ---- Part A: counting -------------------------------------------------------------------- */

typedef unsigned __int128 u128;

/* Far above 2^64, far below 2^128: a product of two capped values still fits in 128 bits. */
#define CAP ((u128)1 << 100)

static u128 sat_mul(u128 a, u128 b)
{
    if (a == 0 || b == 0)
        return 0;
    if (a > CAP / b)
        return CAP;
    return a * b > CAP ? CAP : a * b;
}

static u128 sat_add(u128 a, u128 b)
{
    return a + b > CAP ? CAP : a + b; /* both <= CAP: no wrap */
}

const char *tu_cost_name(tu_kind_t k)
{
    static const char *names[] = { "rl_cost_embedding_bag", "rl_cost_gemv", "rl_cost_softmax",
                                   "rl_cost_layernorm" };
    return names[k];
}

int tu_cost_dims(tu_kind_t k)
{
    return k == TU_EMB ? 3 : 2;
}

int tu_cost_oracle(tu_kind_t k, const size_t d[3], rl_cost_t *c)
{
    u128 flops, bytes, a = d[0], b = d[1];
    if (k == TU_EMB) { /* bags, bag_size, dim: indices, rows looked up, outputs */
        u128 lookups = sat_mul(a, b), dim = d[2];
        flops = sat_mul(lookups, dim);
        bytes = sat_mul(4, sat_add(sat_add(lookups, flops), sat_mul(a, dim)));
    } else if (k == TU_GEMV) { /* 2 m n; A, x and y */
        flops = sat_mul(2, sat_mul(a, b));
        bytes = sat_mul(4, sat_add(sat_add(sat_mul(a, b), b), a));
    } else if (k == TU_SOFTMAX) { /* 5 per element, 1 per row; x and y */
        flops = sat_add(sat_mul(5, sat_mul(a, b)), a);
        bytes = sat_mul(8, sat_mul(a, b));
    } else { /* 7 per element, 7 per row; x, y, gamma and beta */
        flops = sat_add(sat_mul(7, sat_mul(a, b)), sat_mul(7, a));
        bytes = sat_mul(4, sat_add(sat_mul(2, sat_mul(a, b)), sat_mul(2, b)));
    }
    if (flops > UINT64_MAX || bytes > UINT64_MAX)
        return -EOVERFLOW;
    *c = (rl_cost_t){ (uint64_t)flops, (uint64_t)bytes };
    return 0;
}

int tu_call_cost(tu_kind_t k, const size_t d[3], rl_cost_t *c)
{
    switch (k) {
    case TU_EMB: return rl_cost_embedding_bag(d[0], d[1], d[2], c);
    case TU_GEMV: return rl_cost_gemv(d[0], d[1], c);
    case TU_SOFTMAX: return rl_cost_softmax(d[0], d[1], c);
    default: return rl_cost_layernorm(d[0], d[1], c);
    }
}

static void format_dims(char *buf, size_t cap, tu_kind_t k, const size_t d[3])
{
    if (tu_cost_dims(k) == 3)
        snprintf(buf, cap, "%s(%zu, %zu, %zu)", tu_cost_name(k), d[0], d[1], d[2]);
    else
        snprintf(buf, cap, "%s(%zu, %zu)", tu_cost_name(k), d[0], d[1]);
}

#define SENTINEL_FLOPS 0x5EED5EED5EED5EEDull
#define SENTINEL_BYTES 0xFEEDFACECAFEBEEFull

int tu_expect_cost(tu_kind_t k, const size_t d[3])
{
    rl_cost_t want = { SENTINEL_FLOPS, SENTINEL_BYTES }, got = want;
    int want_rc = tu_cost_oracle(k, d, &want), rc = tu_call_cost(k, d, &got);
    char call[160];
    format_dims(call, sizeof call, k, d);
    MM_CHECK(rc == want_rc, "%s returned %d (%s), expected %d (%s)", call, rc,
             rc ? strerror(-rc) : "success", want_rc, want_rc ? strerror(-want_rc) : "success");
    MM_CHECK(got.flops == want.flops && got.bytes == want.bytes,
             "%s: flops %llu, bytes %llu; expected %s %llu, %llu", call,
             (unsigned long long)got.flops, (unsigned long long)got.bytes,
             want_rc ? "untouched (a failed call writes nothing)" : "",
             (unsigned long long)want.flops, (unsigned long long)want.bytes);
    return want_rc;
}

int tu_stream_oracle(rl_stream_op_t op, size_t n, size_t elem, uint64_t *bytes)
{
    u128 arrays = op == RL_COPY || op == RL_SCALE ? 2 : 3;
    u128 b = sat_mul(arrays, sat_mul(n, elem));
    if (b > UINT64_MAX)
        return -EOVERFLOW;
    *bytes = (uint64_t)b;
    return 0;
}

void tu_expect_stream_bytes(rl_stream_op_t op, size_t n, size_t elem)
{
    uint64_t want = SENTINEL_BYTES, got = want;
    int want_rc = tu_stream_oracle(op, n, elem, &want), rc = rl_stream_bytes(op, n, elem, &got);
    MM_CHECK(rc == want_rc, "rl_stream_bytes(op %d, n %zu, elem_size %zu) returned %d (%s), "
             "expected %d (%s)", (int)op, n, elem, rc, rc ? strerror(-rc) : "success", want_rc,
             want_rc ? strerror(-want_rc) : "success");
    MM_CHECK(got == want, "rl_stream_bytes(op %d, n %zu, elem_size %zu): %llu bytes, expected "
             "%s%llu", (int)op, n, elem, (unsigned long long)got,
             want_rc ? "untouched: " : "", (unsigned long long)want);
}

size_t tu_dim(mm_rng_t *r, unsigned maxbits)
{
    uint64_t b = mm_rng_range(r, 0, maxbits);
    return (size_t)mm_rng_range(r, 1, b >= 64 ? UINT64_MAX : (uint64_t)1 << b);
}

/* ---- Part B: doubles --------------------------------------------------------------------- */

int tu_near(double a, double b)
{
    return a == b || fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b));
}

/* ---- Part C: buffers and oracles --------------------------------------------------------- */

void *tu_shared(size_t n, size_t size)
{
    MM_CHECK(n <= SIZE_MAX / size, "test buffer too large (%zu x %zu bytes)", n, size);
    return mm_shared_alloc((n ? n : 1) * size);
}

void tu_free(void *p)
{
    mm_shared_free(p);
}

/* p[0..n), each uniform in [lo, hi). */
static float *fill_uniform(float *p, mm_rng_t *r, size_t n, double lo, double hi)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (float)(lo + (hi - lo) * mm_rng_unit(r));
    return p;
}

float *tu_floats(mm_rng_t *r, size_t n, double lo, double hi)
{
    return fill_uniform(tu_shared(n, sizeof(float)), r, n, lo, hi);
}

float *tu_copy(const float *src, size_t n)
{
    return tu_share(src, n * sizeof *src);
}

float *tu_own_floats(mm_rng_t *r, size_t n, double lo, double hi)
{
    float *p = malloc((n ? n : 1) * sizeof *p);
    MM_CHECK(p != NULL, "test out of memory (%zu floats)", n);
    return fill_uniform(p, r, n, lo, hi);
}

void *tu_share(const void *own, size_t bytes)
{
    void *p = tu_shared(bytes, 1);
    memcpy(p, own, bytes);
    return p;
}

int32_t *tu_ints(size_t n)
{
    return tu_shared(n, sizeof(int32_t));
}

double *tu_doubles(size_t n)
{
    double *p = calloc(n ? n : 1, sizeof *p);
    MM_CHECK(p != NULL, "test out of memory (%zu doubles)", n);
    return p;
}

static uint32_t pattern_bits(size_t i)
{
    return 0x7FC00000u | (uint32_t)(i * 2654435761u & 0x3FFFFFu); /* a quiet NaN */
}

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

void tu_fill_pattern(float *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t u = pattern_bits(i);
        memcpy(&p[i], &u, sizeof u);
    }
}

/* The first i < n where p[i] is not pattern_bits(first + i), or n. */
static size_t first_change(const float *p, size_t n, size_t first)
{
    size_t i = 0;
    while (i < n && bits_of(p[i]) == pattern_bits(first + i))
        i++;
    return i;
}

void tu_expect_pattern(const float *p, size_t n, const char *what)
{
    size_t i = first_change(p, n, 0);
    MM_CHECK(i == n, "%s: float %zu of %zu was written (now %g, bits 0x%08x); a failed call must "
             "write nothing", what, i, n, i < n ? (double)p[i] : 0.0, i < n ? bits_of(p[i]) : 0);
}

float *tu_guarded(size_t n)
{
    float *base = tu_shared(n + 2 * TU_GUARD, sizeof *base);
    tu_fill_pattern(base, n + 2 * TU_GUARD);
    return base + TU_GUARD;
}

void tu_guarded_check(const float *p, size_t n, const char *what)
{
    size_t before = first_change(p - TU_GUARD, TU_GUARD, 0);
    size_t after = first_change(p + n, TU_GUARD, TU_GUARD + n);
    MM_CHECK(before == TU_GUARD, "%s wrote %zu floats before the start of its output",
             what, TU_GUARD - before);
    MM_CHECK(after == TU_GUARD, "%s wrote past the end of its output (%zu floats): at [%zu]",
             what, n, n + after);
}

void tu_guarded_free(float *p)
{
    if (p)
        tu_free(p - TU_GUARD);
}

void tu_expect_close(const float *got, const double *want, const double *scale, size_t rows,
                     size_t cols, double rel, double abs, const char *what)
{
    size_t n = rows * cols, k = 0;
    for (; k < n; k++) {
        double s = scale ? scale[k] : fabs(want[k]);
        if (!isfinite(got[k]) || !(fabs(got[k] - want[k]) <= rel * s + abs))
            break;
    }
    MM_CHECK(k == n, "%s (%zu x %zu): element [%zu][%zu] is %.9g, expected %.9g (tolerance "
             "%.3g)", what, rows, cols, k / cols, k % cols, k < n ? (double)got[k] : 0.0,
             k < n ? want[k] : 0.0, k < n ? rel * (scale ? scale[k] : fabs(want[k])) + abs : 0.0);
}

void tu_expect_rows_sum_to_1(const float *y, size_t rows, size_t cols, double tol,
                             const char *what)
{
    for (size_t i = 0; i < rows; i++) {
        double s = 0.0;
        for (size_t j = 0; j < cols; j++)
            s += y[i * cols + j];
        MM_CHECK(fabs(s - 1.0) <= tol, "%s (%zu x %zu): row %zu sums to %.9g, not 1", what,
                 rows, cols, i, s);
    }
}
