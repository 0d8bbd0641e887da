/* Lab 03 tests, part C by simulated misses: your transpose and contiguous() traced through the
 * model cache of trace.h (L1 32 KiB 8-way, L2 512 KiB 8-way, 64-byte lines, LRU), so the verdict
 * is the same on every machine. The limits, in misses per distinct line the copy must touch:
 *   L1 <= 3.0: the naive strided loop makes 8.5 (a miss on every source element read); a blocked
 *              copy with 4 x 4 register blocks at most 2.5 (each 16-byte load of a strip misses
 *              on a shape whose rows share a few sets), a plain C tile loop of 16-32 about 1-2;
 *   L2 <= 1.5: a tile whose strips no longer fit the L2 on the benchmark's channels-last matrix
 *              (3136 x 256, rows 1 KiB apart: 64 of the L2's sets) makes 2.5 there (tile 1024).
 * Random shapes avoid leading dimensions that are multiples of 512 floats (2 KiB): those map a
 * column onto a few sets whatever the tile (README.md 2.5, "Sets"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "copy.h"
#include "mm_aligned.h"
#include "mm_check.h"
#include "trace.h"

#define L1_LIMIT 3.0
#define L2_LIMIT 1.5

typedef struct {
    size_t rows, cols, ld_src, ld_dst;
    const char *what;
} shape_t;

/* A size in [lo, hi] that is not a multiple of 512 elements. */
static size_t draw(mm_rng_t *r, size_t lo, size_t hi)
{
    size_t n;
    do
        n = (size_t)mm_rng_range(r, lo, hi);
    while (n % 512 == 0);
    return n;
}

static shape_t random_shape(mm_rng_t *r)
{
    shape_t s = { .rows = draw(r, 600, 1100), .cols = draw(r, 600, 1100), .what = "random" };
    do
        s.ld_src = s.cols + (size_t)mm_rng_range(r, 0, 8);
    while (s.ld_src % 512 == 0);
    do
        s.ld_dst = s.rows + (size_t)mm_rng_range(r, 0, 8);
    while (s.ld_dst % 512 == 0);
    return s;
}

static float *alloc_f32(size_t n)
{
    float *p = mm_aligned_alloc(64, n * sizeof *p);
    ck_assert_ptr_nonnull(p);
    return p;
}

/* Asserts that the trace saw the whole copy and that its misses are within the limits. */
static void assert_misses(const trace_stats_t *st, const char *fn, const char *shape)
{
    double l1 = (double)st->l1_misses / (double)st->lines;
    double l2 = (double)st->l2_misses / (double)st->lines;
    ck_assert_msg(st->unread < 0 && st->unwritten < 0, "%s, %s: the trace did not see %s byte "
                  "%lld being %s. The trace sees plain loads and stores, SSE/AVX load and store "
                  "intrinsics and memcpy; non-temporal stores and inline assembly are invisible "
                  "to it (tests/trace.h)", fn, shape, st->unread >= 0 ? "source" : "destination",
                  (long long)(st->unread >= 0 ? st->unread : st->unwritten),
                  st->unread >= 0 ? "read" : "written");
    ck_assert_msg(l1 <= L1_LIMIT && l2 <= L2_LIMIT, "%s, %s: %llu simulated L1 misses and %llu "
                  "L2 misses for %llu distinct lines: %.2f and %.2f misses per line (at most "
                  "%.1f and %.1f). %s", fn, shape, (unsigned long long)st->l1_misses,
                  (unsigned long long)st->l2_misses, (unsigned long long)st->lines, l1, l2,
                  L1_LIMIT, L2_LIMIT, l1 > L1_LIMIT ? "Over L1: the lines a tile reads are "
                  "evicted before the tile is done with them (is the copy blocked at all? does "
                  "tv_contiguous reach your blocked transpose for this view?)"
                  : "Over L2: a strip of your tile touches more lines than the L2's sets that "
                  "the rows map to can hold (try a smaller TV_TILE)");
}

/* tv_transpose2d_f32 of one shape, traced; checks the result, the coverage and the misses. */
static void check_transpose_shape(const shape_t *s)
{
    float *src = alloc_f32(s->rows * s->ld_src), *dst = alloc_f32(s->cols * s->ld_dst);
    char shape[160];
    snprintf(shape, sizeof shape, "%s %zu x %zu (ld_src %zu, ld_dst %zu)", s->what, s->rows,
             s->cols, s->ld_src, s->ld_dst);
    for (size_t k = 0; k < s->rows * s->ld_src; k++)
        src[k] = (float)k;
    MM_ASSERT_OK(trace_begin(src, s->rows * s->ld_src * sizeof(float), dst,
                             s->cols * s->ld_dst * sizeof(float)));
    for (size_t i = 0; i < s->rows; i++)
        trace_need_read(i * s->ld_src * sizeof(float), s->cols * sizeof(float));
    for (size_t j = 0; j < s->cols; j++)
        trace_need_write(j * s->ld_dst * sizeof(float), s->rows * sizeof(float));
    int rc = tvtrace_transpose2d_f32(src, s->rows, s->cols, s->ld_src, dst, s->ld_dst);
    trace_stats_t st;
    trace_end(&st);
    ck_assert_msg(rc == 0, "tv_transpose2d_f32, %s: returned %d", shape, rc);
    size_t bad = SIZE_MAX;
    for (size_t j = 0; j < s->cols && bad == SIZE_MAX; j++)
        for (size_t i = 0; i < s->rows; i++)
            if (dst[j * s->ld_dst + i] != src[i * s->ld_src + j]) {
                bad = j * s->ld_dst + i;
                break;
            }
    ck_assert_msg(bad == SIZE_MAX, "tv_transpose2d_f32, %s: wrong element dst[%zu]", shape, bad);
    assert_misses(&st, "tv_transpose2d_f32", shape);
    mm_aligned_free(src);
    mm_aligned_free(dst);
}

MM_TEST(test_transpose2d_simulated_misses)
{
    mm_rng_t r = MM_RNG();
    /* One image of the benchmark's channels-last case: (C, H*W) read from (H*W, C). */
    shape_t cl = { 3136, 256, 256, 3136, "the benchmark's channels-last matrix" };
    check_transpose_shape(&cl);
    for (int round = 0; round < 3; round++) {
        shape_t s = random_shape(&r);
        check_transpose_shape(&s);
    }
}
MM_END_TEST

/* tv_contiguous of v (float32, its whole storage), traced; checks result, coverage, misses. */
static void check_contiguous_traced(const tv_t *v, const char *shape)
{
    size_t n = (size_t)v->storage_elems, bytes = n * sizeof(float);
    float *dst = alloc_f32(n);
    MM_ASSERT_OK(trace_begin(v->data, bytes, dst, bytes));
    trace_need_read(0, bytes);
    trace_need_write(0, bytes);
    int rc = tvtrace_contiguous(v, dst, bytes);
    trace_stats_t st;
    trace_end(&st);
    ck_assert_msg(rc == 0, "tv_contiguous, %s: returned %d", shape, rc);
    /* Element e of the output: walk the index in row-major order. */
    const float *s = v->data;
    int64_t idx[TV_MAX_DIMS] = { 0 };
    size_t bad = SIZE_MAX;
    for (size_t e = 0; e < n && bad == SIZE_MAX; e++) {
        int64_t off = v->offset;
        for (unsigned k = 0; k < v->ndim; k++)
            off += idx[k] * v->strides[k];
        if (dst[e] != s[off])
            bad = e;
        for (unsigned k = v->ndim; k-- > 0 && ++idx[k] == v->shape[k];)
            idx[k] = 0;
    }
    ck_assert_msg(bad == SIZE_MAX, "tv_contiguous, %s: wrong element %zu", shape, bad);
    assert_misses(&st, "tv_contiguous", shape);
    mm_aligned_free(dst);
}

MM_TEST(test_contiguous_simulated_misses)
{
    mm_rng_t r = MM_RNG();
    /* The benchmark's channels-last activation with a batch of 2: (2, 256, 56, 56) as NCHW
     * over NHWC storage. */
    enum { N = 2, C = 256, H = 56, W = 56 };
    float *a = alloc_f32((size_t)N * C * H * W);
    for (size_t k = 0; k < (size_t)N * C * H * W; k++)
        a[k] = (float)k;
    tv_t cl = { .data = a, .storage_elems = N * C * H * W, .elem_size = 4, .ndim = 4,
                .shape = { N, C, H, W }, .strides = { H * W * C, 1, W * C, C } };
    check_contiguous_traced(&cl, "(2, 256, 56, 56) stored channels last");
    mm_aligned_free(a);
    /* x.t() of a random matrix. */
    size_t rows = draw(&r, 600, 1100), cols = draw(&r, 600, 1100);
    float *m = alloc_f32(rows * cols);
    for (size_t k = 0; k < rows * cols; k++)
        m[k] = (float)k;
    tv_t t = { .data = m, .storage_elems = (int64_t)(rows * cols), .elem_size = 4, .ndim = 2,
               .shape = { (int64_t)cols, (int64_t)rows }, .strides = { 1, (int64_t)cols } };
    char shape[96];
    snprintf(shape, sizeof shape, "x.t() of a %zu x %zu matrix", rows, cols);
    check_contiguous_traced(&t, shape);
    mm_aligned_free(m);
}
MM_END_TEST
