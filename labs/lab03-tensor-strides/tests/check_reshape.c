/* Lab 03 tests, part B: view (PyTorch's oracle cases, -1, random views against an exhaustive
 * check of whether any strides exist) and reshape (a view when possible, else a copy). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "../serve/inplace.h"
#include "model.h"
#include "reshape.h"

#define SHAPE(...) ((const int64_t[]){ __VA_ARGS__ })

typedef struct {
    unsigned ndim;
    int64_t shape[4], strides[4];
    unsigned new_ndim;
    int64_t new_shape[4];
    int ok;                  /* 1: a view with new_strides; 0: no view (-ENOTSUP) */
    int64_t new_strides[4];
} oracle_t;

/* PyTorch's answers (torch.as_strided(...).view(...)), README.md section 2.4. */
static const oracle_t oracle[] = {
    { 3, { 2, 3, 4 }, { 12, 4, 1 }, 2, { 6, 4 }, 1, { 4, 1 } },
    { 2, { 4, 3 }, { 1, 4 }, 1, { 12 }, 0, { 0 } },
    { 2, { 4, 3 }, { 1, 4 }, 3, { 2, 2, 3 }, 1, { 2, 1, 4 } },
    { 3, { 2, 4, 3 }, { 12, 1, 4 }, 2, { 8, 3 }, 0, { 0 } },
    { 2, { 2, 3 }, { 6, 2 }, 1, { 6 }, 1, { 2 } },
    { 2, { 0, 3 }, { 3, 1 }, 2, { 3, 0 }, 1, { 1, 1 } },
};

static tv_t mk(void *data, int64_t storage, unsigned ndim, const int64_t *shape,
               const int64_t *strides)
{
    tv_t v = { .data = data, .storage_elems = storage, .elem_size = 4, .offset = 0,
               .ndim = ndim };
    memcpy(v.shape, shape, ndim * sizeof *shape);
    memcpy(v.strides, strides, ndim * sizeof *strides);
    return v;
}

MM_TEST(test_view_oracle_table)
{
    float *buf = mm_shared_alloc(64 * sizeof *buf);
    for (size_t c = 0; c < sizeof oracle / sizeof oracle[0]; c++) {
        const oracle_t *o = &oracle[c];
        tv_t v = mk(buf, 64, o->ndim, o->shape, o->strides), out;
        v.offset = 3;
        int rc = tv_view(&v, o->new_ndim, o->new_shape, &out);
        const char *from = shape_str(o->ndim, o->shape), *st = shape_str(o->ndim, o->strides);
        const char *to = shape_str(o->new_ndim, o->new_shape);
        if (!o->ok) {
            ck_assert_msg(rc == -ENOTSUP, "shape %s strides %s -> view %s: PyTorch finds no "
                          "view; expected -ENOTSUP, got %d", from, st, to, rc);
            continue;
        }
        ck_assert_msg(rc == 0, "shape %s strides %s -> view %s must succeed, got %d", from, st,
                      to, rc);
        ck_assert_msg(memcmp(out.strides, o->new_strides, o->new_ndim * sizeof(int64_t)) == 0 &&
                      out.ndim == o->new_ndim, "shape %s strides %s -> view %s: strides %s, "
                      "PyTorch gives %s", from, st, to, shape_str(out.ndim, out.strides),
                      shape_str(o->new_ndim, o->new_strides));
        ck_assert_msg(out.offset == 3 && out.data == buf, "a view keeps the storage and offset");
    }
}
MM_END_TEST

MM_TEST(test_view_infers_minus_one)
{
    float *buf = mm_shared_alloc(24 * sizeof *buf);
    tv_t v, out;
    MM_ASSERT_OK(tv_init(&v, buf, 4, 3, SHAPE(2, 3, 4)));
    MM_ASSERT_OK(tv_view(&v, 2, SHAPE(-1, 4), &out));
    ck_assert_msg(out.shape[0] == 6 && out.shape[1] == 4, "view(-1, 4) of (2, 3, 4) is (6, 4), "
                  "got %s", shape_str(out.ndim, out.shape));
    MM_ASSERT_OK(tv_view(&v, 3, SHAPE(4, -1, 1), &out));
    ck_assert_msg(out.shape[1] == 6, "view(4, -1, 1) of (2, 3, 4) is (4, 6, 1), got %s",
                  shape_str(out.ndim, out.shape));
    MM_ASSERT_ERR(tv_view(&v, 2, SHAPE(-1, 5), &out), -EINVAL); /* 24 is not a multiple of 5 */
    MM_ASSERT_ERR(tv_view(&v, 2, SHAPE(-1, -1), &out), -EINVAL);
    MM_ASSERT_OK(tv_init(&v, NULL, 4, 2, SHAPE(0, 3)));
    MM_ASSERT_OK(tv_view(&v, 2, SHAPE(-1, 3), &out));
    ck_assert_msg(out.shape[0] == 0, "view(-1, 3) of (0, 3) is (0, 3)");
    MM_ASSERT_ERR(tv_view(&v, 2, SHAPE(-1, 0), &out), -EINVAL); /* -1 could be anything */
}
MM_END_TEST

/* A random shape with `numel` elements: 1..max_rank sizes (some 1) whose product is numel. */
static unsigned random_shape(mm_rng_t *r, int64_t numel, unsigned max_rank, int64_t *shape)
{
    unsigned nd = (unsigned)mm_rng_range(r, 1, max_rank);
    for (unsigned k = 0; k < nd; k++)
        shape[k] = 1;
    if (numel == 0) {
        shape[mm_rng_range(r, 0, nd - 1)] = 0;
        return nd;
    }
    for (int64_t rest = numel, f = 2; rest > 1;) {
        while (rest % f != 0)
            f++;
        shape[mm_rng_range(r, 0, nd - 1)] *= f;
        rest /= f;
    }
    return nd;
}

MM_TEST(test_view_random_matches_existence)
{
    mm_rng_t r = MM_RNG();
    int views = 0, refusals = 0;
    for (int round = 0; round < 400; round++) {
        model_t m;
        tv_t v = random_chain(&r, 4, (int)mm_rng_range(&r, 0, 4), round % 8 == 0, &m), out;
        int64_t shape[TV_MAX_DIMS];
        unsigned nd = random_shape(&r, m.n, 5, shape);
        int exists = model_view_exists(&m, nd, shape), rc = tv_view(&v, nd, shape, &out);
        ck_assert_msg(rc == (exists ? 0 : -ENOTSUP), "shape %s strides %s -> view %s: %s, got %d",
                      shape_str(v.ndim, v.shape), shape_str(v.ndim, v.strides),
                      shape_str(nd, shape), exists ? "strides exist, expected 0" :
                      "no strides can do it, expected -ENOTSUP", rc);
        if (exists) {
            model_t x = model_reshape(&m, nd, shape);
            assert_view_is(&out, &x, "view");
            model_free(&x);
        }
        views += exists, refusals += !exists;
        model_free(&m);
        mm_shared_free(v.data);
    }
    ck_assert_msg(views > 50 && refusals > 50, "test bug: %d views, %d refusals", views, refusals);
}
MM_END_TEST

MM_TEST(test_view_bad_args)
{
    float *buf = mm_shared_alloc(24 * sizeof *buf);
    int64_t nine[TV_MAX_DIMS + 1] = { 2, 3, 4, 1, 1, 1, 1, 1, 1 };
    tv_t v, out;
    MM_ASSERT_OK(tv_init(&v, buf, 4, 3, SHAPE(2, 3, 4)));
    out = v, out.offset = 9;
    MM_ASSERT_ERR(tv_view(&v, 2, SHAPE(5, 5), &out), -EINVAL);
    MM_ASSERT_ERR(tv_view(&v, 2, SHAPE(-2, -12), &out), -EINVAL);
    MM_ASSERT_ERR(tv_view(&v, TV_MAX_DIMS + 1, nine, &out), -EINVAL);
    MM_ASSERT_ERR(tv_view(&v, 2, NULL, &out), -EINVAL);
    MM_ASSERT_ERR(tv_view(&v, 2, SHAPE(6, 4), NULL), -EINVAL);
    v.strides[2] = -1;
    MM_ASSERT_ERR(tv_view(&v, 2, SHAPE(6, 4), &out), -EINVAL);
    ck_assert_msg(out.offset == 9, "a failed view must not write *out");
}
MM_END_TEST

MM_TEST(test_reshape_views_when_possible)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 100; round++) {
        model_t m;
        tv_t v = random_chain(&r, 4, (int)mm_rng_range(&r, 0, 3), 0, &m), out;
        int64_t shape[TV_MAX_DIMS];
        unsigned nd = random_shape(&r, m.n, 5, shape);
        if (!model_view_exists(&m, nd, shape)) {
            model_free(&m), mm_shared_free(v.data);
            continue;
        }
        void *copy = &round;
        MM_ASSERT_OK(tv_reshape(&v, nd, shape, &out, &copy));
        ck_assert_msg(copy == NULL && out.data == v.data,
                      "reshape %s -> %s: a view exists, so no copy must be made",
                      shape_str(v.ndim, v.shape), shape_str(nd, shape));
        model_t x = model_reshape(&m, nd, shape);
        assert_view_is(&out, &x, "reshape (as a view)");
        model_free(&x), model_free(&m);
        mm_shared_free(v.data);
    }
}
MM_END_TEST

/* Whether element e of the contiguous buffer `got` is storage element `at` of the pattern. */
static int element_is(const unsigned char *got, int64_t e, int64_t at, size_t esz)
{
    for (size_t b = 0; b < esz; b++)
        if (got[(size_t)e * esz + b] != pattern_byte(at, b))
            return 0;
    return 1;
}

/* Asserts that the buffer tv_reshape made (`copy`, your process's memory, read with mm_peek)
 * holds m's elements of the storage pattern, contiguous; then frees it there (free_copy), as
 * the contract asks of the caller. */
static void assert_copied(void *copy, const model_t *m, size_t esz, const char *what)
{
    size_t bytes = (size_t)m->n * esz;
    unsigned char *got = malloc(bytes ? bytes : 1);
    ck_assert_ptr_nonnull(got);
    ck_assert_msg(mm_peek(copy, got, bytes) == 0, "%s: *copy (%p) is not %zu readable bytes of "
                  "your process's memory", what, copy, bytes);
    int64_t e = 0;
    while (e < m->n && element_is(got, e, m->at[e], esz)) /* Check records every assertion: */
        e++;                                              /* find a mismatch first */
    free(got);
    ck_assert_msg(e == m->n, "%s: element %lld of the copy is not storage element %lld", what,
                  (long long)e, (long long)(e < m->n ? m->at[e] : 0));
    tv_free_copy_t f = { (uintptr_t)copy };
    MM_ASSERT_OK(mm_call_work("free_copy", &f, sizeof f, NULL, 0));
}

MM_TEST(test_reshape_copies_when_needed)
{
    mm_rng_t r = MM_RNG();
    int copies = 0;
    for (int round = 0; round < 200; round++) {
        model_t m;
        size_t esz = round % 2 ? 4 : 2;
        tv_t v = random_chain(&r, esz, (int)mm_rng_range(&r, 1, 4), 0, &m), out;
        int64_t shape[TV_MAX_DIMS];
        unsigned nd = random_shape(&r, m.n, 5, shape);
        void *copy = NULL;
        if (!model_view_exists(&m, nd, shape)) {
            MM_ASSERT_OK(tv_reshape(&v, nd, shape, &out, &copy));
            ck_assert_msg(copy != NULL && out.data == copy && out.offset == 0 &&
                          tv_is_contiguous(&out) == 1 && out.storage_elems == m.n &&
                          out.elem_size == esz, "reshape %s -> %s needs a copy: out must be a "
                          "contiguous view at offset 0 of the new buffer *copy",
                          shape_str(v.ndim, v.shape), shape_str(nd, shape));
            assert_copied(copy, &m, esz, "reshape (a copy)");
            copies++;
        }
        model_free(&m);
        mm_shared_free(v.data);
    }
    ck_assert_msg(copies > 20, "test bug: only %d copies", copies);
}
MM_END_TEST

MM_TEST(test_reshape_bad_args)
{
    float *buf = mm_shared_alloc(24 * sizeof *buf);
    tv_t v, out;
    void *copy = buf;
    MM_ASSERT_OK(tv_init(&v, buf, 4, 2, SHAPE(4, 6)));
    MM_ASSERT_OK(inplace_transpose(&v, 0, 1));
    out = v, out.offset = 5;
    MM_ASSERT_ERR(tv_reshape(&v, 1, SHAPE(23), &out, &copy), -EINVAL);
    MM_ASSERT_ERR(tv_reshape(&v, 1, SHAPE(24), &out, NULL), -EINVAL);
    MM_ASSERT_ERR(tv_reshape(&v, 1, SHAPE(24), NULL, &copy), -EINVAL);
    MM_ASSERT_ERR(tv_reshape(NULL, 1, SHAPE(24), &out, &copy), -EINVAL);
    ck_assert_msg(out.offset == 5 && copy == buf, "a failed reshape must not write its outputs");
}
MM_END_TEST
