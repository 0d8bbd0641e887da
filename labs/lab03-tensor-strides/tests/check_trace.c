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
#include "../serve/trace_log.h"
#include "mm_call.h"
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

/* Shared memory for a test's traced copies: source and destination of up to `elems` floats
 * each, source element k = k, and the log (one entry per byte of both: room for a copy that
 * moves one byte at a time). */
typedef struct {
    float *src, *dst;
    uint64_t *log;
    size_t elems;
} bufs_t;

static bufs_t shared_bufs(size_t elems)
{
    bufs_t b = { mm_shared_alloc(elems * sizeof(float)), mm_shared_alloc(elems * sizeof(float)),
                 mm_shared_alloc(2 * elems * sizeof(float) * sizeof(uint64_t)), elems };
    for (size_t k = 0; k < elems; k++)
        b.src[k] = (float)k;
    return b;
}

/* Runs the trace workload for q (its buffers b, already marked in the model with trace_begin and
 * trace_need_*), replays the log it made and ends the model (*st). Returns the traced call's
 * result. */
static int traced(tv_trace_req_t *q, const bufs_t *b, trace_stats_t *st, const char *fn,
                  const char *shape)
{
    tv_trace_res_t res;
    q->src = (uintptr_t)b->src, q->dst = (uintptr_t)b->dst;
    q->log = (uintptr_t)b->log, q->cap = q->src_bytes + q->dst_bytes;
    int rc = mm_call_work("trace", q, sizeof *q, &res, sizeof res);
    ck_assert_msg(rc == 0, "%s, %s: the trace could not run (%d)", fn, shape, rc);
    ck_assert_msg(!res.overflow && res.n <= q->cap, "%s, %s: more than %llu recorded accesses to "
                  "the source and the destination (one per byte moved)", fn, shape,
                  (unsigned long long)q->cap);
    trace_replay(b->log, (size_t)res.n);
    trace_end(st);
    return res.rc;
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
static void check_transpose_shape(const shape_t *s, const bufs_t *b)
{
    char shape[160];
    snprintf(shape, sizeof shape, "%s %zu x %zu (ld_src %zu, ld_dst %zu)", s->what, s->rows,
             s->cols, s->ld_src, s->ld_dst);
    ck_assert_msg(s->rows * s->ld_src <= b->elems && s->cols * s->ld_dst <= b->elems,
                  "test bug: %s does not fit the buffers", shape);
    tv_trace_req_t q = { .kind = TV_TRACE_TRANSPOSE, .rows = s->rows, .cols = s->cols,
                         .ld_src = s->ld_src, .ld_dst = s->ld_dst,
                         .src_bytes = s->rows * s->ld_src * sizeof(float),
                         .dst_bytes = s->cols * s->ld_dst * sizeof(float) };
    MM_ASSERT_OK(trace_begin(q.src_bytes, q.dst_bytes));
    for (size_t i = 0; i < s->rows; i++)
        trace_need_read(i * s->ld_src * sizeof(float), s->cols * sizeof(float));
    for (size_t j = 0; j < s->cols; j++)
        trace_need_write(j * s->ld_dst * sizeof(float), s->rows * sizeof(float));
    trace_stats_t st;
    int rc = traced(&q, b, &st, "tv_transpose2d_f32", shape);
    ck_assert_msg(rc == 0, "tv_transpose2d_f32, %s: returned %d", shape, rc);
    size_t bad = SIZE_MAX;
    for (size_t j = 0; j < s->cols && bad == SIZE_MAX; j++) /* source element k is k */
        for (size_t i = 0; i < s->rows; i++)
            if (b->dst[j * s->ld_dst + i] != (float)(i * s->ld_src + j)) {
                bad = j * s->ld_dst + i;
                break;
            }
    ck_assert_msg(bad == SIZE_MAX, "tv_transpose2d_f32, %s: wrong element dst[%zu]", shape, bad);
    assert_misses(&st, "tv_transpose2d_f32", shape);
}

MM_TEST(test_transpose2d_simulated_misses)
{
    mm_rng_t r = MM_RNG();
    bufs_t b = shared_bufs(1100 * 1108); /* the largest random shape */
    /* One image of the benchmark's channels-last case: (C, H*W) read from (H*W, C). */
    shape_t cl = { 3136, 256, 256, 3136, "the benchmark's channels-last matrix" };
    check_transpose_shape(&cl, &b);
    for (int round = 0; round < 3; round++) {
        shape_t s = random_shape(&r);
        check_transpose_shape(&s, &b);
    }
}
MM_END_TEST

/* tv_contiguous of v (float32, its whole storage: b's source), traced; checks the result, the
 * coverage and the misses. */
static void check_contiguous_traced(const tv_t *v, const bufs_t *b, const char *shape)
{
    size_t n = (size_t)v->storage_elems, bytes = n * sizeof(float);
    tv_trace_req_t q = { .kind = TV_TRACE_CONTIGUOUS, .v = *v, .src_bytes = bytes,
                         .dst_bytes = bytes };
    MM_ASSERT_OK(trace_begin(bytes, bytes));
    trace_need_read(0, bytes);
    trace_need_write(0, bytes);
    trace_stats_t st;
    int rc = traced(&q, b, &st, "tv_contiguous", shape);
    ck_assert_msg(rc == 0, "tv_contiguous, %s: returned %d", shape, rc);
    /* Element e of the output: walk the index in row-major order (source element k is k). */
    int64_t idx[TV_MAX_DIMS] = { 0 };
    size_t bad = SIZE_MAX;
    for (size_t e = 0; e < n && bad == SIZE_MAX; e++) {
        int64_t off = v->offset;
        for (unsigned k = 0; k < v->ndim; k++)
            off += idx[k] * v->strides[k];
        if (b->dst[e] != (float)off)
            bad = e;
        for (unsigned k = v->ndim; k-- > 0 && ++idx[k] == v->shape[k];)
            idx[k] = 0;
    }
    ck_assert_msg(bad == SIZE_MAX, "tv_contiguous, %s: wrong element %zu", shape, bad);
    assert_misses(&st, "tv_contiguous", shape);
}

MM_TEST(test_contiguous_simulated_misses)
{
    mm_rng_t r = MM_RNG();
    /* The benchmark's channels-last activation with a batch of 2: (2, 256, 56, 56) as NCHW
     * over NHWC storage. */
    enum { N = 2, C = 256, H = 56, W = 56 };
    bufs_t b = shared_bufs((size_t)N * C * H * W); /* more than x.t() of 1100 x 1100 */
    tv_t cl = { .data = b.src, .storage_elems = N * C * H * W, .elem_size = 4, .ndim = 4,
                .shape = { N, C, H, W }, .strides = { H * W * C, 1, W * C, C } };
    check_contiguous_traced(&cl, &b, "(2, 256, 56, 56) stored channels last");
    /* x.t() of a random matrix. */
    size_t rows = draw(&r, 600, 1100), cols = draw(&r, 600, 1100);
    tv_t t = { .data = b.src, .storage_elems = (int64_t)(rows * cols), .elem_size = 4,
               .ndim = 2, .shape = { (int64_t)cols, (int64_t)rows },
               .strides = { 1, (int64_t)cols } };
    char shape[96];
    snprintf(shape, sizeof shape, "x.t() of a %zu x %zu matrix", rows, cols);
    check_contiguous_traced(&t, &b, shape);
}
MM_END_TEST
