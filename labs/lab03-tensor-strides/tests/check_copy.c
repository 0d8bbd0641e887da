/* Lab 03 tests, part C: contiguous() of any view, checked element by element against the
 * model, and the tiled float32 transpose. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "copy.h"
#include "model.h"

#define GUARD 16 /* bytes after the expected output that must stay untouched */

/* A buffer of `bytes` + GUARD bytes, all 0xA5, in shared memory (your code writes it). */
static unsigned char *guarded(size_t bytes)
{
    unsigned char *p = mm_shared_alloc(bytes + GUARD);
    memset(p, 0xA5, bytes + GUARD);
    return p;
}

static void assert_guard(const unsigned char *p, size_t bytes, const char *what)
{
    for (size_t i = 0; i < GUARD; i++)
        ck_assert_msg(p[bytes + i] == 0xA5, "%s: byte %zu past the end of the output was written",
                      what, i);
}

/* The first element of dst (n elements of esz bytes) that is not m's, or -1. Check records
 * every assertion, so the loops look for a mismatch first and assert once. */
static int64_t first_wrong(const unsigned char *dst, const model_t *m, size_t esz)
{
    for (int64_t e = 0; e < m->n; e++)
        for (size_t b = 0; b < esz; b++)
            if (dst[(size_t)e * esz + b] != pattern_byte(m->at[e], b))
                return e;
    return -1;
}

/* Runs tv_contiguous on v and checks every byte against the model. */
static void check_contiguous(const tv_t *v, const model_t *m, const char *what)
{
    size_t bytes = (size_t)m->n * v->elem_size;
    unsigned char *dst = guarded(bytes);
    MM_ASSERT_OK(tv_contiguous(v, dst, bytes));
    int64_t e = first_wrong(dst, m, v->elem_size);
    ck_assert_msg(e < 0, "%s: shape %s strides %s offset %lld, %zu-byte elements: element %lld "
                  "of the output is not storage element %lld", what, shape_str(v->ndim, v->shape),
                  shape_str(v->ndim, v->strides), (long long)v->offset, v->elem_size,
                  (long long)e, (long long)(e < 0 ? 0 : m->at[e]));
    assert_guard(dst, bytes, what);
    mm_shared_free(dst);
}

MM_TEST(test_contiguous_of_contiguous)
{
    float *buf = mm_shared_alloc(40 * sizeof *buf), *out = mm_shared_alloc(16 * sizeof *out);
    for (int i = 0; i < 40; i++)
        buf[i] = (float)i;
    tv_t v = { .data = buf, .storage_elems = 40, .elem_size = 4, .offset = 7, .ndim = 2,
               .shape = { 3, 5 }, .strides = { 5, 1 } };
    MM_ASSERT_OK(tv_contiguous(&v, out, 16 * sizeof *out));
    for (int i = 0; i < 15; i++)
        ck_assert_msg(out[i] == (float)(7 + i), "(3, 5) at offset 7: out[%d] = %g, expected %d",
                      i, (double)out[i], 7 + i);
    v.offset = 8, v.shape[1] = 3; /* x[:, 1:4] */
    MM_ASSERT_OK(tv_contiguous(&v, out, 16 * sizeof *out));
    for (int i = 0; i < 9; i++)
        ck_assert_msg(out[i] == (float)(8 + i / 3 * 5 + i % 3),
                      "x[:, 1:4] of (3, 5) at offset 7: out[%d] = %g, expected %d", i,
                      (double)out[i], 8 + i / 3 * 5 + i % 3);
}
MM_END_TEST

MM_TEST(test_contiguous_random_views)
{
    static const size_t sizes[] = { 1, 2, 4, 8, 12 };
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 300; round++) {
        size_t esz = sizes[mm_rng_range(&r, 0, 4)];
        model_t m;
        tv_t v;
        if (round % 2) {
            v = random_strided(&r, esz, 6, 5, round % 16 == 1);
            m = model_of(&v);
        } else {
            v = random_chain(&r, esz, (int)mm_rng_range(&r, 0, 5), round % 16 == 0, &m);
        }
        check_contiguous(&v, &m, round % 2 ? "a strided view" : "a chain of views");
        model_free(&m);
        mm_shared_free(v.data);
    }
}
MM_END_TEST

/* base.permute(perm) for a new contiguous float32 tensor of shape `base`, made by hand, in
 * shared memory. The caller frees v.data with mm_shared_free. */
static tv_t permuted(unsigned ndim, const int64_t *base, const unsigned *perm)
{
    int64_t st[TV_MAX_DIMS], n = 1;
    for (unsigned k = ndim; k-- > 0;) {
        st[k] = n;
        n *= base[k];
    }
    tv_t v = { .data = mm_shared_alloc((size_t)n * 4), .storage_elems = n, .elem_size = 4,
               .ndim = ndim };
    for (unsigned k = 0; k < ndim; k++) {
        v.shape[k] = base[perm[k]];
        v.strides[k] = st[perm[k]];
    }
    fill_pattern(&v);
    return v;
}

static void check_permuted(unsigned ndim, const int64_t *base, const unsigned *perm,
                           const char *what)
{
    tv_t v = permuted(ndim, base, perm);
    model_t m = model_of(&v);
    check_contiguous(&v, &m, what);
    model_free(&m);
    mm_shared_free(v.data);
}

MM_TEST(test_contiguous_ml_layouts)
{
    static const unsigned nhwc[4] = { 0, 2, 3, 1 }, heads[4] = { 0, 2, 1, 3 }, t2[2] = { 1, 0 };
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 30; round++) {
        int64_t base[4], big[2];
        for (int k = 0; k < 4; k++)
            base[k] = (int64_t)mm_rng_range(&r, 1, k == 0 ? 3 : 40);
        for (int k = 0; k < 2; k++)
            big[k] = (int64_t)mm_rng_range(&r, 1, 300);
        check_permuted(4, base, nhwc, "NCHW -> NHWC (channels last)");
        check_permuted(4, base, heads, "(B, S, H, D) -> (B, H, S, D) (attention heads)");
        check_permuted(2, big, t2, "a transposed matrix");
    }
}
MM_END_TEST

MM_TEST(test_contiguous_bad_args)
{
    const size_t size = 24 * sizeof(float);
    float *buf = mm_shared_alloc(size), *out = mm_shared_alloc(size); /* zeroed */
    tv_t v = { .data = buf, .storage_elems = 24, .elem_size = 4, .ndim = 2, .shape = { 4, 6 },
               .strides = { 1, 4 } };
    MM_ASSERT_ERR(tv_contiguous(&v, out, size - 1), -ENOBUFS);
    ck_assert_msg(out[0] == 0.0f, "a refused copy must not write dst");
    MM_ASSERT_ERR(tv_contiguous(&v, NULL, size), -EINVAL);
    MM_ASSERT_ERR(tv_contiguous(NULL, out, size), -EINVAL);
    v.offset = 1; /* now reaches storage element 24 of 0..23 */
    MM_ASSERT_ERR(tv_contiguous(&v, out, size), -ERANGE);
    v.offset = 0, v.shape[0] = 0;
    MM_ASSERT_OK(tv_contiguous(&v, NULL, 0)); /* nothing to copy */
}
MM_END_TEST

/* A rows x cols matrix with leading dimension ld, element (i, j) = i * 1000 + j + 0.5, in
 * shared memory. */
static float *matrix(size_t rows, size_t cols, size_t ld)
{
    float *m = mm_shared_alloc((rows * ld + 1) * sizeof *m);
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < ld; j++)
            m[i * ld + j] = j < cols ? (float)(i * 1000 + j) + 0.5f : -2.0f;
    return m;
}

/* Transposes a random matrix with `tile` (0: tv_transpose2d_f32) and checks every element of
 * dst, including that the padding between rows stays untouched. */
static void check_transpose(mm_rng_t *r, size_t max, size_t tile)
{
    size_t rows = (size_t)mm_rng_range(r, 0, max), cols = (size_t)mm_rng_range(r, 0, max);
    size_t ls = cols + (size_t)mm_rng_range(r, 0, 5), ld = rows + (size_t)mm_rng_range(r, 0, 5);
    float *src = matrix(rows, cols, ls), *dst = mm_shared_alloc((cols * ld + 1) * sizeof *dst);
    for (size_t k = 0; k < cols * ld + 1; k++)
        dst[k] = -1.0f;
    int rc = tile ? tv_transpose2d_f32_tiled(src, rows, cols, ls, dst, ld, tile)
                  : tv_transpose2d_f32(src, rows, cols, ls, dst, ld);
    ck_assert_msg(rc == 0, "%s of %zu x %zu (ld_src %zu, ld_dst %zu, tile %zu) returned %d",
                  tile ? "tv_transpose2d_f32_tiled" : "tv_transpose2d_f32", rows, cols, ls, ld,
                  tile, rc);
    size_t bad_i = 0, bad_j = cols;
    float want = 0;
    for (size_t j = 0; j < cols && bad_j == cols; j++)
        for (size_t i = 0; i < ld; i++) {
            want = i < rows ? (float)(i * 1000 + j) + 0.5f : -1.0f;
            if (dst[j * ld + i] != want) {
                bad_i = i, bad_j = j;
                break;
            }
        }
    ck_assert_msg(bad_j == cols, "%zu x %zu (ld_src %zu, ld_dst %zu, tile %zu): dst[%zu][%zu] = "
                  "%g, expected %g%s", rows, cols, ls, ld, tile, bad_j, bad_i,
                  bad_j < cols ? (double)dst[bad_j * ld + bad_i] : 0.0, (double)want,
                  bad_i < rows ? "" : " (padding must stay untouched)");
    ck_assert_msg(dst[cols * ld] == -1.0f, "written past the end of dst");
    mm_shared_free(src);
    mm_shared_free(dst);
}

MM_TEST(test_transpose2d_random)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 60; round++)
        check_transpose(&r, round % 4 ? 70 : 400, 0);
}
MM_END_TEST

MM_TEST(test_transpose2d_tiles)
{
    mm_rng_t r = MM_RNG();
    for (size_t tile = 1; tile <= 70; tile++)
        check_transpose(&r, 150, tile);
    check_transpose(&r, 150, 1000000);
}
MM_END_TEST

MM_TEST(test_transpose2d_bad_args)
{
    float *a = mm_shared_alloc(12 * sizeof *a), *b = mm_shared_alloc(12 * sizeof *b);
    MM_ASSERT_ERR(tv_transpose2d_f32_tiled(a, 3, 4, 4, b, 3, 0), -EINVAL);
    MM_ASSERT_ERR(tv_transpose2d_f32(a, 3, 4, 3, b, 3), -EINVAL);  /* ld_src < cols */
    MM_ASSERT_ERR(tv_transpose2d_f32(a, 3, 4, 4, b, 2), -EINVAL);  /* ld_dst < rows */
    MM_ASSERT_ERR(tv_transpose2d_f32(NULL, 3, 4, 4, b, 3), -EINVAL);
    MM_ASSERT_ERR(tv_transpose2d_f32(a, 3, 4, 4, NULL, 3), -EINVAL);
    MM_ASSERT_OK(tv_transpose2d_f32(NULL, 0, 4, 4, NULL, 0)); /* nothing to move */
}
MM_END_TEST
