/* Lab 03 tests, part A: validity, contiguous strides, index <-> offset, is_contiguous, and the
 * views that only rewrite metadata (permute, transpose, slice, expand). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "model.h"
#include "view.h"

/* A hand-made view of `data` (storage_elems elements of 4 bytes). */
static tv_t mk(void *data, int64_t storage, int64_t offset, unsigned ndim, const int64_t *shape,
               const int64_t *strides)
{
    tv_t v = { .data = data, .storage_elems = storage, .elem_size = 4, .offset = offset,
               .ndim = ndim };
    if (ndim > 0) {
        memcpy(v.shape, shape, ndim * sizeof *shape);
        memcpy(v.strides, strides, ndim * sizeof *strides);
    }
    return v;
}

#define SHAPE(...) ((const int64_t[]){ __VA_ARGS__ })

static void assert_strides(const tv_t *v, unsigned ndim, const int64_t *want, const char *what)
{
    ck_assert_msg(v->ndim == ndim && memcmp(v->strides, want, ndim * sizeof *want) == 0,
                  "%s: strides %s, expected %s", what, shape_str(v->ndim, v->strides),
                  shape_str(ndim, want));
}

MM_TEST(test_validate_accepts_and_rejects)
{
    float *buf = mm_shared_alloc(24 * sizeof *buf);
    tv_t ok = mk(buf, 24, 0, 3, SHAPE(2, 3, 4), SHAPE(12, 4, 1)), v;
    MM_ASSERT_OK(tv_validate(&ok));
    MM_ASSERT_ERR(tv_validate(NULL), -EINVAL);
    v = ok, v.ndim = TV_MAX_DIMS + 1;
    MM_ASSERT_ERR(tv_validate(&v), -EINVAL);
    v = ok, v.elem_size = 0;
    MM_ASSERT_ERR(tv_validate(&v), -EINVAL);
    v = ok, v.strides[1] = -4; /* negative strides are rejected, as in PyTorch */
    MM_ASSERT_ERR(tv_validate(&v), -EINVAL);
    v = ok, v.shape[0] = -1;
    MM_ASSERT_ERR(tv_validate(&v), -EINVAL);
    v = ok, v.offset = -1;
    MM_ASSERT_ERR(tv_validate(&v), -EINVAL);
    v = ok, v.data = NULL;
    MM_ASSERT_ERR(tv_validate(&v), -EINVAL);
    v = ok, v.offset = 1; /* the last element would be storage element 24 of 0..23 */
    MM_ASSERT_ERR(tv_validate(&v), -ERANGE);
    v = ok, v.strides[0] = 13;
    MM_ASSERT_ERR(tv_validate(&v), -ERANGE);
    v = ok, v.shape[0] = (int64_t)1 << 40, v.shape[1] = (int64_t)1 << 40, v.strides[0] = 0,
    v.strides[1] = 0;
    MM_ASSERT_ERR(tv_validate(&v), -ERANGE); /* 2^80 elements */
}
MM_END_TEST

MM_TEST(test_validate_edge_cases)
{
    float *buf = mm_shared_alloc(24 * sizeof *buf);
    tv_t v = mk(buf, 24, 0, 3, SHAPE(2, 3, 4), SHAPE(0, 0, 1)); /* expanded: stride 0 */
    MM_ASSERT_OK(tv_validate(&v));
    v = mk(NULL, 0, 1000, 2, SHAPE(5, 0), SHAPE(77, 3)); /* no elements: reaches nothing */
    MM_ASSERT_OK(tv_validate(&v));
    v = mk(buf, 1, 0, 0, NULL, NULL); /* a scalar is one element */
    MM_ASSERT_OK(tv_validate(&v));
    v.storage_elems = 0;
    MM_ASSERT_ERR(tv_validate(&v), -ERANGE);
    v = mk(buf, 24, 23, 2, SHAPE(1, 1), SHAPE(1000, 1000)); /* size-1 strides reach nothing */
    MM_ASSERT_OK(tv_validate(&v));
}
MM_END_TEST

MM_TEST(test_contiguous_strides_pytorch)
{
    static const struct {
        unsigned ndim;
        int64_t shape[4], strides[4];
    } cases[] = {
        { 3, { 2, 3, 4 }, { 12, 4, 1 } }, { 2, { 3, 0 }, { 1, 1 } },
        { 3, { 2, 0, 3 }, { 3, 3, 1 } },  { 1, { 5 }, { 1 } },
        { 3, { 4, 1, 3 }, { 3, 3, 1 } },  { 4, { 0, 2, 0, 2 }, { 4, 2, 2, 1 } },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int64_t got[4] = { -7, -7, -7, -7 };
        MM_ASSERT_OK(tv_contiguous_strides(cases[c].ndim, cases[c].shape, got));
        ck_assert_msg(memcmp(got, cases[c].strides, cases[c].ndim * sizeof *got) == 0,
                      "shape %s: strides %s, PyTorch gives %s (sizes 0 count as 1)",
                      shape_str(cases[c].ndim, cases[c].shape), shape_str(cases[c].ndim, got),
                      shape_str(cases[c].ndim, cases[c].strides));
    }
    MM_ASSERT_OK(tv_contiguous_strides(0, NULL, NULL)); /* a scalar has no strides */
}
MM_END_TEST

MM_TEST(test_contiguous_strides_bad_args)
{
    int64_t shape[TV_MAX_DIMS + 1] = { 2, 2, 2, 2, 2, 2, 2, 2, 2 }, st[TV_MAX_DIMS + 1];
    for (int k = 0; k <= TV_MAX_DIMS; k++)
        st[k] = -7;
    MM_ASSERT_ERR(tv_contiguous_strides(TV_MAX_DIMS + 1, shape, st), -EINVAL);
    MM_ASSERT_ERR(tv_contiguous_strides(2, SHAPE(3, -1), st), -EINVAL);
    MM_ASSERT_ERR(tv_contiguous_strides(2, NULL, st), -EINVAL);
    MM_ASSERT_ERR(tv_contiguous_strides(2, shape, NULL), -EINVAL);
    MM_ASSERT_ERR(tv_contiguous_strides(3, SHAPE(1 << 30, 1 << 30, 1 << 30), st), -ERANGE);
    ck_assert_msg(st[0] == -7 && st[1] == -7, "a failed call must not write the strides");
}
MM_END_TEST

MM_TEST(test_init_numel)
{
    float *buf = mm_shared_alloc(24 * sizeof *buf);
    tv_t v;
    MM_ASSERT_OK(tv_init(&v, buf, 4, 3, SHAPE(2, 3, 4)));
    ck_assert_msg(v.data == buf && v.storage_elems == 24 && v.elem_size == 4 && v.offset == 0,
                  "tv_init: data, storage_elems 24, elem_size 4, offset 0 expected");
    assert_strides(&v, 3, SHAPE(12, 4, 1), "tv_init (2, 3, 4)");
    ck_assert_msg(tv_numel(&v) == 24, "numel of (2, 3, 4) is 24, got %lld", (long long)tv_numel(&v));
    MM_ASSERT_OK(tv_init(&v, NULL, 2, 2, SHAPE(3, 0)));
    ck_assert_msg(tv_numel(&v) == 0, "numel of (3, 0) is 0");
    MM_ASSERT_OK(tv_init(&v, buf, 8, 0, NULL));
    ck_assert_msg(tv_numel(&v) == 1, "a scalar has one element");
    MM_ASSERT_ERR(tv_init(NULL, buf, 4, 1, SHAPE(2)), -EINVAL);
    MM_ASSERT_ERR(tv_init(&v, buf, 0, 1, SHAPE(2)), -EINVAL);
    MM_ASSERT_ERR(tv_init(&v, NULL, 4, 1, SHAPE(2)), -EINVAL);
    ck_assert_msg(tv_numel(NULL) == -EINVAL, "tv_numel(NULL) must be -EINVAL");
}
MM_END_TEST

MM_TEST(test_offset_matches_walk)
{
    float *buf = mm_shared_alloc(24 * sizeof *buf);
    int64_t off = -1;
    tv_t v = mk(buf, 24, 0, 3, SHAPE(2, 3, 4), SHAPE(12, 4, 1));
    MM_ASSERT_OK(tv_offset(&v, SHAPE(1, 2, 3), &off));
    ck_assert_msg(off == 23, "(2, 3, 4) contiguous: [1, 2, 3] is element 23, got %lld",
                  (long long)off);
    v = mk(buf, 24, 0, 3, SHAPE(4, 3, 2), SHAPE(1, 4, 12)); /* its permute(2, 1, 0) */
    MM_ASSERT_OK(tv_offset(&v, SHAPE(3, 2, 1), &off));
    ck_assert_msg(off == 23, "permuted: [3, 2, 1] is still element 23, got %lld", (long long)off);
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 200; round++) {
        tv_t w = random_strided(&r, 4, TV_MAX_DIMS, 4, 0);
        int64_t idx[TV_MAX_DIMS], want = w.offset;
        for (unsigned k = 0; k < w.ndim; k++) {
            idx[k] = (int64_t)mm_rng_range(&r, 0, (uint64_t)w.shape[k] - 1);
            want += idx[k] * w.strides[k];
        }
        MM_ASSERT_OK(tv_offset(&w, idx, &off));
        ck_assert_msg(off == want, "shape %s strides %s offset %lld: got %lld, expected %lld",
                      shape_str(w.ndim, w.shape), shape_str(w.ndim, w.strides),
                      (long long)w.offset, (long long)off, (long long)want);
        mm_shared_free(w.data);
    }
}
MM_END_TEST

MM_TEST(test_offset_out_of_range)
{
    float *buf = mm_shared_alloc(24 * sizeof *buf);
    int64_t off = -1;
    tv_t v = mk(buf, 24, 0, 3, SHAPE(2, 3, 4), SHAPE(12, 4, 1));
    MM_ASSERT_ERR(tv_offset(&v, SHAPE(2, 0, 0), &off), -ERANGE);
    MM_ASSERT_ERR(tv_offset(&v, SHAPE(0, 3, 0), &off), -ERANGE);
    MM_ASSERT_ERR(tv_offset(&v, SHAPE(0, 0, -1), &off), -ERANGE);
    MM_ASSERT_ERR(tv_offset(&v, NULL, &off), -EINVAL);
    MM_ASSERT_ERR(tv_offset(&v, SHAPE(0, 0, 0), NULL), -EINVAL);
    MM_ASSERT_ERR(tv_offset(NULL, SHAPE(0, 0, 0), &off), -EINVAL);
    ck_assert_msg(off == -1, "a failed tv_offset must not write *off");
}
MM_END_TEST

MM_TEST(test_unravel_row_major)
{
    float *buf = mm_shared_alloc(6 * sizeof *buf);
    int64_t idx[TV_MAX_DIMS] = { -1, -1 };
    tv_t v = mk(buf, 6, 0, 2, SHAPE(2, 3), SHAPE(1, 2)); /* strides do not matter */
    MM_ASSERT_OK(tv_unravel(&v, 4, idx));
    ck_assert_msg(idx[0] == 1 && idx[1] == 1, "shape (2, 3): linear 4 is [1, 1], got [%lld, %lld]",
                  (long long)idx[0], (long long)idx[1]);
    MM_ASSERT_ERR(tv_unravel(&v, 6, idx), -ERANGE);
    MM_ASSERT_ERR(tv_unravel(&v, -1, idx), -ERANGE);
    MM_ASSERT_ERR(tv_unravel(&v, 0, NULL), -EINVAL);
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 100; round++) { /* unravel + offset = the reference walk */
        tv_t w = random_strided(&r, 4, 5, 4, 0);
        model_t m = model_of(&w);
        for (int64_t e = 0; e < m.n; e++) {
            int64_t off = -1;
            MM_ASSERT_OK(tv_unravel(&w, e, idx));
            MM_ASSERT_OK(tv_offset(&w, idx, &off));
            ck_assert_msg(off == m.at[e], "shape %s: element %lld is storage element %lld, got %lld",
                          shape_str(w.ndim, w.shape), (long long)e, (long long)m.at[e],
                          (long long)off);
        }
        model_free(&m);
        mm_shared_free(w.data);
    }
}
MM_END_TEST

MM_TEST(test_is_contiguous_rules)
{
    static const struct {
        unsigned ndim;
        int64_t shape[3], strides[3];
        int want;
        const char *why;
    } cases[] = {
        { 2, { 2, 3 }, { 3, 1 }, 1, "row-major (2, 3)" },
        { 2, { 3, 2 }, { 1, 3 }, 0, "a transposed (2, 3)" },
        { 2, { 1, 4 }, { 99, 1 }, 1, "a size-1 dimension's stride never matters" },
        { 2, { 4, 1 }, { 1, 77 }, 1, "a size-1 dimension's stride never matters" },
        { 2, { 0, 3 }, { 5, 9 }, 1, "no elements: contiguous" },
        { 2, { 3, 4 }, { 0, 1 }, 0, "expanded (stride 0) rows" },
        { 1, { 1 }, { 0 }, 1, "one element" },
        { 2, { 2, 2 }, { 4, 1 }, 0, "a slice of rows of a (2, 4)" },
        { 1, { 3 }, { 2 }, 0, "every other element" },
        { 3, { 2, 1, 3 }, { 3, 3, 1 }, 1, "PyTorch's strides for (2, 1, 3)" },
        { 3, { 2, 3, 2 }, { 6, 1, 3 }, 0, "last two dimensions swapped" },
    };
    float *buf = mm_shared_alloc(64 * sizeof *buf);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tv_t v = mk(buf, 64, 0, cases[c].ndim, cases[c].shape, cases[c].strides);
        int got = tv_is_contiguous(&v);
        ck_assert_msg(got == cases[c].want, "shape %s strides %s (%s): got %d, expected %d",
                      shape_str(v.ndim, v.shape), shape_str(v.ndim, v.strides), cases[c].why, got,
                      cases[c].want);
    }
    tv_t scalar = mk(buf, 1, 0, 0, NULL, NULL);
    ck_assert_msg(tv_is_contiguous(&scalar) == 1, "a scalar is contiguous");
    ck_assert_msg(tv_is_contiguous(NULL) == -EINVAL, "NULL must give -EINVAL");
}
MM_END_TEST

MM_TEST(test_permute_random)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 100; round++) {
        tv_t v = random_strided(&r, 4, TV_MAX_DIMS, 3, 1), out;
        unsigned perm[TV_MAX_DIMS];
        random_perm(&r, v.ndim, perm);
        model_t m = model_of(&v), p = model_permute(&m, perm);
        MM_ASSERT_OK(tv_permute(&v, perm, &out));
        assert_view_is(&out, &p, "permute");
        ck_assert_msg(out.data == v.data && out.offset == v.offset, "permute moves no data");
        MM_ASSERT_OK(inplace_permute(&v, perm)); /* in place: out == v */
        assert_view_is(&v, &p, "permute in place (out == v)");
        model_free(&m), model_free(&p);
        mm_shared_free(v.data);
    }
}
MM_END_TEST

MM_TEST(test_permute_rejects_non_permutations)
{
    float *buf = mm_shared_alloc(24 * sizeof *buf);
    tv_t v = mk(buf, 24, 0, 3, SHAPE(2, 3, 4), SHAPE(12, 4, 1)), out = v;
    out.offset = 5;
    static const unsigned dup[3] = { 0, 1, 1 }, big[3] = { 0, 1, 3 };
    MM_ASSERT_ERR(tv_permute(&v, dup, &out), -EINVAL);
    MM_ASSERT_ERR(tv_permute(&v, big, &out), -EINVAL);
    MM_ASSERT_ERR(tv_permute(&v, NULL, &out), -EINVAL);
    MM_ASSERT_ERR(tv_permute(&v, dup, NULL), -EINVAL);
    ck_assert_msg(out.offset == 5, "a failed permute must not write *out");
}
MM_END_TEST

MM_TEST(test_transpose_swaps)
{
    float *buf = mm_shared_alloc(24 * sizeof *buf);
    tv_t v = mk(buf, 24, 0, 3, SHAPE(2, 3, 4), SHAPE(12, 4, 1)), out;
    MM_ASSERT_OK(tv_transpose(&v, 0, 2, &out));
    ck_assert_msg(out.shape[0] == 4 && out.shape[1] == 3 && out.shape[2] == 2,
                  "transpose(0, 2) of (2, 3, 4) has shape (4, 3, 2), got %s",
                  shape_str(out.ndim, out.shape));
    assert_strides(&out, 3, SHAPE(1, 4, 12), "transpose(0, 2) of contiguous (2, 3, 4)");
    MM_ASSERT_OK(tv_transpose(&v, 1, 1, &out));
    assert_strides(&out, 3, SHAPE(12, 4, 1), "transpose(1, 1) changes nothing");
    MM_ASSERT_ERR(tv_transpose(&v, 0, 3, &out), -EINVAL);
    MM_ASSERT_ERR(tv_transpose(&v, 3, 0, &out), -EINVAL);
    MM_ASSERT_ERR(tv_transpose(&v, 0, 1, NULL), -EINVAL);
}
MM_END_TEST

MM_TEST(test_slice_random)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 200; round++) {
        tv_t v = random_strided(&r, 4, 5, 9, 1), out;
        unsigned dim = (unsigned)mm_rng_range(&r, 0, v.ndim - 1);
        int64_t size = v.shape[dim], start = (int64_t)mm_rng_range(&r, 0, (uint64_t)size);
        int64_t stop = (int64_t)mm_rng_range(&r, (uint64_t)start, (uint64_t)size + 3);
        int64_t step = (int64_t)mm_rng_range(&r, 1, 4);
        model_t m = model_of(&v), s = model_slice(&m, dim, start, stop, step);
        MM_ASSERT_OK(tv_slice(&v, dim, start, stop, step, &out));
        assert_view_is(&out, &s, "slice");
        ck_assert_msg(out.data == v.data, "a slice moves no data");
        model_free(&m), model_free(&s);
        mm_shared_free(v.data);
    }
}
MM_END_TEST

MM_TEST(test_slice_bounds)
{
    float *buf = mm_shared_alloc(40 * sizeof *buf);
    tv_t v = mk(buf, 40, 0, 2, SHAPE(4, 10), SHAPE(10, 1)), out = v;
    MM_ASSERT_OK(tv_slice(&v, 1, 1, 7, 2, &out)); /* x[:, 1:7:2] */
    ck_assert_msg(out.shape[1] == 3 && out.offset == 1, "x[:, 1:7:2] of (4, 10): shape (4, 3), "
                  "offset 1; got %s, offset %lld", shape_str(out.ndim, out.shape),
                  (long long)out.offset);
    assert_strides(&out, 2, SHAPE(10, 2), "x[:, 1:7:2] of contiguous (4, 10)");
    MM_ASSERT_OK(tv_slice(&v, 1, 2, 100, 3, &out)); /* stop clamped: 2, 5, 8 */
    ck_assert_msg(out.shape[1] == 3, "x[:, 2:100:3] has 3 columns, got %lld",
                  (long long)out.shape[1]);
    MM_ASSERT_OK(tv_slice(&v, 0, 4, 4, 1, &out));
    ck_assert_msg(out.shape[0] == 0, "x[4:4] is empty");
    out.offset = 99;
    MM_ASSERT_ERR(tv_slice(&v, 0, 5, 6, 1, &out), -ERANGE);
    MM_ASSERT_ERR(tv_slice(&v, 0, -1, 2, 1, &out), -ERANGE);
    MM_ASSERT_ERR(tv_slice(&v, 1, 5, 3, 1, &out), -ERANGE);
    MM_ASSERT_ERR(tv_slice(&v, 1, 0, 3, 0, &out), -EINVAL);
    MM_ASSERT_ERR(tv_slice(&v, 2, 0, 1, 1, &out), -EINVAL);
    ck_assert_msg(out.offset == 99, "a failed slice must not write *out");
}
MM_END_TEST

MM_TEST(test_expand_broadcasts)
{
    float *buf = mm_shared_alloc(3 * sizeof *buf);
    tv_t v = mk(buf, 3, 0, 2, SHAPE(3, 1), SHAPE(1, 1)), out;
    MM_ASSERT_OK(tv_expand(&v, 3, SHAPE(2, 3, 4), &out));
    ck_assert_msg(out.shape[0] == 2 && out.shape[1] == 3 && out.shape[2] == 4,
                  "expand (3, 1) -> (2, 3, 4): got %s", shape_str(out.ndim, out.shape));
    assert_strides(&out, 3, SHAPE(0, 1, 0), "expand (3, 1) -> (2, 3, 4)");
    MM_ASSERT_OK(tv_expand(&v, 3, SHAPE(2, -1, 4), &out));
    assert_strides(&out, 3, SHAPE(0, 1, 0), "expand (3, 1) -> (2, -1, 4)");
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 100; round++) {
        tv_t w = random_strided(&r, 4, 4, 2, 1);
        unsigned lead = (unsigned)mm_rng_range(&r, 0, TV_MAX_DIMS - w.ndim), nd = w.ndim + lead;
        int64_t shape[TV_MAX_DIMS];
        for (unsigned k = 0; k < nd; k++) {
            int64_t old = k < lead ? 1 : w.shape[k - lead];
            shape[k] = old == 1 ? (int64_t)mm_rng_range(&r, 0, 3) : k % 2 ? -1 : old;
        }
        model_t m = model_of(&w), x = model_expand(&m, nd, shape);
        MM_ASSERT_OK(tv_expand(&w, nd, shape, &out));
        assert_view_is(&out, &x, "expand");
        model_free(&m), model_free(&x);
        mm_shared_free(w.data);
    }
}
MM_END_TEST

MM_TEST(test_expand_bad_args)
{
    float *buf = mm_shared_alloc(3 * sizeof *buf);
    int64_t nine[TV_MAX_DIMS + 1] = { 1, 1, 1, 1, 1, 1, 1, 1, 3 };
    tv_t v = mk(buf, 3, 0, 1, SHAPE(3), SHAPE(1)), out = v;
    out.offset = 7;
    MM_ASSERT_ERR(tv_expand(&v, 1, SHAPE(4), &out), -EINVAL);
    MM_ASSERT_ERR(tv_expand(&v, 0, NULL, &out), -EINVAL);
    MM_ASSERT_ERR(tv_expand(&v, 2, SHAPE(-1, 3), &out), -EINVAL);
    MM_ASSERT_ERR(tv_expand(&v, 2, SHAPE(2, -2), &out), -EINVAL);
    MM_ASSERT_ERR(tv_expand(&v, TV_MAX_DIMS + 1, nine, &out), -EINVAL);
    MM_ASSERT_ERR(tv_expand(&v, 2, SHAPE(2, 3), NULL), -EINVAL);
    ck_assert_msg(out.offset == 7, "a failed expand must not write *out");
}
MM_END_TEST
