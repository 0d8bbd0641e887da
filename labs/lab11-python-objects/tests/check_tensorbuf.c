/* Lab 11 tests, part A: TensorBuf through the buffer protocol (memoryview, numpy), its exports,
 * resize and views; the flags of bf_getbuffer checked from C (in your process: tu_getbuffer).
 * Shapes, formats, values and indices are drawn from the test's seed; every expected layout,
 * value and byte is computed here, by the harness. */
#include <Python.h> /* PyBUF_* */
#include "support.h"

#define MAX_DIMS 8

/* A layout drawn from r: ndim dimensions of lo..hi, C-contiguous strides, in the format f. */
typedef struct {
    const tu_format_t *f;
    int ndim;
    long shape[MAX_DIMS], strides[MAX_DIMS], nbytes;
} layout_t;

static void pick_layout(mm_rng_t *r, layout_t *l, int ndim, long lo, long hi, int ints_only)
{
    l->f = tu_pick_format(r, ints_only);
    l->ndim = ndim;
    for (int d = 0; d < ndim; d++)
        l->shape[d] = (long)mm_rng_range(r, (uint64_t)lo, (uint64_t)hi);
    l->nbytes = tu_c_strides(l->shape, ndim, l->f->itemsize, l->strides);
}

/* repr of the layout's shape, as a tuple (Python code too). */
static const char *shape_of(const layout_t *l, tu_text_t *t)
{
    t->n = 0;
    tu_cat_tuple(t, l->shape, l->ndim);
    return t->s;
}

/* A value of format f drawn from r, in Python's repr: an int that fits f (> 0), or a float
 * with a half that float32 holds exactly. */
static double pick_value(mm_rng_t *r, const tu_format_t *f, char *repr, size_t cap)
{
    long v = (long)mm_rng_range(r, 1, f->itemsize == 1 ? 100 : 30000);
    if (f->is_float) {
        snprintf(repr, cap, "%ld.5", v);
        return (double)v + 0.5;
    }
    snprintf(repr, cap, "%ld", v);
    return (double)v;
}

MM_TEST(test_tensorbuf_new_shape_format)
{
    mm_rng_t r = MM_RNG();
    for (int k = 0; k < 4; k++) { /* any shape, one with a dimension of 0, a list, a scalar */
        layout_t l;
        tu_text_t shape, code = { .n = 0 }, want = { .n = 0 };
        pick_layout(&r, &l, k == 3 ? 0 : (int)mm_rng_range(&r, 1, 4), 1, 5, 0);
        if (k == 1) {
            l.shape[mm_rng_range(&r, 0, (uint64_t)l.ndim - 1)] = 0;
            l.nbytes = tu_c_strides(l.shape, l.ndim, l.f->itemsize, l.strides);
        }
        int ro = (int)mm_rng_range(&r, 0, 1);
        shape_of(&l, &shape);
        if (k == 2) {
            tu_cat(&code, "[");
            for (int d = 0; d < l.ndim; d++)
                tu_cat(&code, "%s%ld", d ? ", " : "", l.shape[d]);
            tu_cat(&code, "]");
        } else {
            tu_cat(&code, "%s", shape.s);
        }
        if (l.f->code != 'f' || mm_rng_range(&r, 0, 1))
            tu_cat(&code, mm_rng_range(&r, 0, 1) ? ", '%c'" : ", format='%c'", l.f->code);
        tu_run("t = pyobj.TensorBuf(%s%s)\n", code.s, ro ? ", readonly=True" : "");
        tu_cat(&want, "(%s, ", shape.s);
        tu_cat_tuple(&want, l.strides, l.ndim);
        tu_cat(&want, ", '%c', %ld, %s, 0, None)", l.f->code, l.nbytes, ro ? "True" : "False");
        tu_expect(want.s, "(t.shape, t.strides, t.format, t.nbytes, t.readonly, t.exports, "
                  "t.base)");
        want.n = 0;
        tu_cat(&want, "(%ld, %s)", l.nbytes, l.nbytes ? "[0]" : "[]");
        tu_expect(want.s, "(len(bytes(memoryview(t))), sorted(set(bytes(memoryview(t)))))");
    }
}
MM_END_TEST

MM_TEST(test_tensorbuf_bad_arguments)
{
    mm_rng_t r = MM_RNG();
    long a = (long)mm_rng_range(&r, 1, 9), b = (long)mm_rng_range(&r, 1, 9);
    int big = (int)mm_rng_range(&r, 32, 62), big2 = 64 - big + (int)mm_rng_range(&r, 0, 30);
    if (big2 > 62)
        big2 = 62;
    const char *not_formats[] = { "x", "z", "ff", "", "fd", "s", "?" };
    const char *bad = not_formats[mm_rng_range(&r, 0, 6)];
    if (mm_rng_range(&r, 0, 1))
        tu_expect_raises(NULL, "ValueError", "lambda: pyobj.TensorBuf((%ld, -%ld))", a, b);
    else
        tu_expect_raises(NULL, "ValueError", "lambda: pyobj.TensorBuf((-%ld, %ld, %ld))", b, a, a);
    tu_expect_raises(NULL, "ValueError", "lambda: pyobj.TensorBuf((1,) * %d)",
                     (int)mm_rng_range(&r, 9, 12));
    tu_expect_raises(NULL, "ValueError", "lambda: pyobj.TensorBuf((%ld,), format='%s')", a, bad);
    tu_expect_raises(NULL, "ValueError", "lambda: pyobj.TensorBuf((2**%d, 2**%d))", big, big2);
    tu_expect_raises(NULL, "TypeError", "lambda: pyobj.TensorBuf(%ld)", a);
    tu_expect_raises(NULL, "TypeError", "lambda: pyobj.TensorBuf((%ld, 'a'))", a);
    tu_expect_raises(NULL, "TypeError", "lambda: pyobj.TensorBuf((%ld.0,))", b);
    tu_expect_raises(NULL, "TypeError", "lambda: pyobj.TensorBuf()");
}
MM_END_TEST

/* The layout's bytes, all zero but item `at` (an offset in bytes), which holds v, as hex. */
static void bytes_with_item(tu_text_t *t, const layout_t *l, long at, double v)
{
    static unsigned char buf[4096];
    ck_assert_msg(l->nbytes <= (long)sizeof buf, "a test's layout is too large");
    memset(buf, 0, (size_t)l->nbytes);
    tu_encode(l->f, v, buf + at);
    t->n = 0;
    tu_cat(t, "'");
    tu_cat_hex(t, buf, (size_t)l->nbytes);
    tu_cat(t, "'");
}

MM_TEST(test_memoryview_describes_layout)
{
    mm_rng_t r = MM_RNG();
    layout_t l;
    tu_text_t shape, want = { .n = 0 };
    char v[32];
    pick_layout(&r, &l, 3, 1, 4, 0);
    tu_run("t = pyobj.TensorBuf(%s, '%c')\nm = memoryview(t)\n", shape_of(&l, &shape), l.f->code);
    tu_cat(&want, "(%s, ", shape.s);
    tu_cat_tuple(&want, l.strides, 3);
    tu_cat(&want, ", '%c', %d, 3, False, %ld, True, True)", l.f->code, l.f->itemsize, l.nbytes);
    tu_expect(want.s, "(m.shape, m.strides, m.format, m.itemsize, m.ndim, m.readonly, m.nbytes, "
              "m.c_contiguous, m.obj is t)");
    long i[3], at = 0;
    for (int d = 0; d < 3; d++) {
        i[d] = (long)mm_rng_range(&r, 0, (uint64_t)l.shape[d] - 1);
        at += i[d] * l.strides[d];
    }
    double x = pick_value(&r, l.f, v, sizeof v);
    tu_run("m[%ld, %ld, %ld] = %s\n", i[0], i[1], i[2], v);
    tu_expect(v, "memoryview(t)[%ld, %ld, %ld]", i[0], i[1], i[2]);
    bytes_with_item(&want, &l, at, x);
    tu_expect(want.s, "bytes(memoryview(t)).hex()");
}
MM_END_TEST

MM_TEST(test_numpy_shares_memory)
{
    mm_rng_t r = MM_RNG();
    layout_t l;
    tu_text_t shape, want = { .n = 0 };
    char v[32];
    pick_layout(&r, &l, 2, 1, 6, 0);
    tu_run("t = pyobj.TensorBuf(%s, '%c')\na = np.asarray(t)\n", shape_of(&l, &shape), l.f->code);
    tu_cat(&want, "('%s', %s, ", l.f->np_str, shape.s);
    tu_cat_tuple(&want, l.strides, 2);
    tu_cat(&want, ")");
    tu_expect(want.s, "(a.dtype.str, a.shape, a.strides)");
    tu_expect("True", "np.shares_memory(a, np.asarray(t))");
    long i = (long)mm_rng_range(&r, 0, (uint64_t)l.shape[0] - 1);
    long j = (long)mm_rng_range(&r, 0, (uint64_t)l.shape[1] - 1);
    double x = pick_value(&r, l.f, v, sizeof v);
    tu_run("a[%ld, %ld] = %s\n", i, j, v);
    tu_expect(v, "memoryview(t)[%ld, %ld]", i, j);
    bytes_with_item(&want, &l, i * l.strides[0] + j * l.strides[1], x);
    tu_expect(want.s, "bytes(memoryview(t)).hex()");
    tu_expect("1", "t.exports");
    tu_run("del a\n");
    tu_expect("0", "t.exports");
}
MM_END_TEST

MM_TEST(test_readonly_refuses_writers)
{
    mm_rng_t r = MM_RNG();
    layout_t l;
    tu_text_t shape;
    pick_layout(&r, &l, (int)mm_rng_range(&r, 1, 2), 1, 6, 0);
    tu_run("ro = pyobj.TensorBuf(%s, '%c', readonly=True)\na = np.asarray(ro)\n",
           shape_of(&l, &shape), l.f->code);
    tu_expect("(True, False)", "(memoryview(ro).readonly, a.flags.writeable)");
    tu_expect_raises("writing through numpy to read-only memory", "ValueError",
                     "lambda: a.__setitem__(%ld, 1)", (long)mm_rng_range(&r, 0,
                                                                      (uint64_t)l.shape[0] - 1));
    tu_run("del a\n");
    po_getbuffer_out_t b;
    tu_getbuffer("ro", PyBUF_WRITABLE, &b);
    ck_assert_msg(b.rc == -1 && !strcmp(b.raised, "BufferError"),
                  "a writable buffer of a read-only TensorBuf must raise BufferError");
    ck_assert_msg(b.obj_is_null, "a refused request must leave view->obj NULL");
    ck_assert_msg(b.exports == 0, "a refused request counted an export");
}
MM_END_TEST

MM_TEST(test_exports_counted)
{
    mm_rng_t r = MM_RNG();
    layout_t l;
    tu_text_t shape;
    char n[32];
    long k = (long)mm_rng_range(&r, 1, 6);
    pick_layout(&r, &l, (int)mm_rng_range(&r, 1, 3), 1, 4, 0);
    tu_run("t = pyobj.TensorBuf(%s, '%c')\nms = [memoryview(t) for _ in range(%ld)]\n",
           shape_of(&l, &shape), l.f->code, k);
    snprintf(n, sizeof n, "%ld", k);
    tu_expect(n, "t.exports");
    while (k > 0) {
        long i = (long)mm_rng_range(&r, 0, (uint64_t)k - 1);
        if (mm_rng_range(&r, 0, 1))
            tu_run("ms.pop(%ld).release()\n", i);
        else
            tu_run("del ms[%ld]\n", i);
        snprintf(n, sizeof n, "%ld", --k);
        tu_expect(n, "t.exports");
    }
}
MM_END_TEST

/* Appends "[v[0], ..., v[n - 1]" and `zeros` zeros "]". */
static void cat_list(tu_text_t *t, const long *v, long n, long zeros)
{
    tu_cat(t, "[");
    for (long i = 0; i < n + zeros; i++)
        tu_cat(t, "%s%ld", i ? ", " : "", i < n ? v[i] : 0);
    tu_cat(t, "]");
}

MM_TEST(test_resize_refused_while_exported)
{
    mm_rng_t r = MM_RNG();
    const tu_format_t *f = tu_pick_format(&r, 1);
    long n = (long)mm_rng_range(&r, 2, 8), v[8];
    tu_text_t want = { .n = 0 };
    for (long i = 0; i < n; i++)
        v[i] = (long)mm_rng_range(&r, 1, 100);
    cat_list(&want, v, n, 0);
    tu_run("t = pyobj.TensorBuf((%ld,), '%c')\nnp.asarray(t)[:] = %s\nm = memoryview(t)\n", n,
           f->code, want.s);
    tu_expect_raises("resize while a memoryview is exported", "BufferError",
                     "lambda: t.resize((%ld,))", (long)mm_rng_range(&r, 100, 1000));
    want.n = 0;
    tu_cat(&want, "((%ld,), ", n);
    cat_list(&want, v, n, 0);
    tu_cat(&want, ")");
    tu_expect(want.s, "(t.shape, m.tolist())");
    long rows = (long)mm_rng_range(&r, 2, 4), cols = n / rows + (long)mm_rng_range(&r, 1, 3);
    tu_run("m.release()\nt.resize((%ld, %ld))\n", rows, cols);
    want.n = 0;
    tu_cat(&want, "((%ld, %ld), (%ld, %d))", rows, cols, cols * f->itemsize, f->itemsize);
    tu_expect(want.s, "(t.shape, t.strides)");
    want.n = 0;
    cat_list(&want, v, n, rows * cols - n); /* the bytes kept, a tail of zeros */
    tu_expect(want.s, "np.asarray(t).ravel().tolist()");
    long p = (long)mm_rng_range(&r, 1, (uint64_t)n - 1);
    tu_run("t.resize((%ld,))\n", p);
    want.n = 0;
    cat_list(&want, v, p, 0);
    tu_expect(want.s, "np.asarray(t).tolist()");
    long q = (long)mm_rng_range(&r, 1, 9);
    tu_run("t.resize((0,))\nt.resize((%ld,))\n", q);
    want.n = 0;
    cat_list(&want, v, 0, q);
    tu_expect(want.s, "np.asarray(t).tolist()");
    tu_run("v = t.transpose()\n");
    tu_expect_raises("resize an owner with a live view", "BufferError", "lambda: t.resize((9,))");
    tu_expect_raises("resize a view", "BufferError", "lambda: v.resize((9,))");
}
MM_END_TEST

MM_TEST(test_transpose_view)
{
    mm_rng_t r = MM_RNG();
    layout_t l;
    tu_text_t shape, want = { .n = 0 };
    pick_layout(&r, &l, 2, 2, 6, 0);
    long rows = l.shape[0], cols = l.shape[1], isz = l.f->itemsize;
    tu_run("t = pyobj.TensorBuf(%s, '%c')\nnp.asarray(t)[:] = np.arange(%ld).reshape%s\n"
           "v = t.transpose()\n", shape_of(&l, &shape), l.f->code, rows * cols, shape.s);
    tu_cat(&want, "((%ld, %ld), (%ld, %ld), True, 1)", cols, rows, isz, cols * isz);
    tu_expect(want.s, "(v.shape, v.strides, v.base is t, t.exports)");
    tu_expect("True", "np.shares_memory(np.asarray(v), np.asarray(t))");
    unsigned char item[8];
    want.n = 0;
    tu_cat(&want, "'");
    for (long i = 0; i < cols; i++) /* the view in its order: element (i, j) is t's (j, i) */
        for (long j = 0; j < rows; j++) {
            tu_encode(l.f, (double)(j * cols + i), item);
            tu_cat_hex(&want, item, (size_t)isz);
        }
    tu_cat(&want, "'");
    tu_expect(want.s, "bytes(v).hex()");
    tu_expect(want.s, "np.asarray(v).tobytes().hex()");
    tu_expect("(False, True)", "(memoryview(v).c_contiguous, memoryview(v).f_contiguous)");
    tu_run("w = v.transpose()\n");
    want.n = 0;
    tu_cat(&want, "(True, (%ld, %ld), (%ld, %ld))", rows, cols, cols * isz, isz);
    tu_expect(want.s, "(w.base is t, w.shape, w.strides)");
    tu_run("del v, w\n# the views are gone: each view's dealloc gives back the export of t it "
           "took\n");
    tu_expect("0", "t.exports");
}
MM_END_TEST

MM_TEST(test_view_keeps_base_alive)
{
    mm_rng_t r = MM_RNG();
    long rows = (long)mm_rng_range(&r, 8, 64), cols = (long)mm_rng_range(&r, 8, 64);
    long mul = (long)mm_rng_range(&r, 3, 99991), add = (long)mm_rng_range(&r, 0, 9999);
    const long mod = 1L << 20; /* float32 holds every value exactly */
    tu_run("t = pyobj.TensorBuf((%ld, %ld))\n"
           "np.asarray(t)[:] = ((np.arange(%ld) * %ld + %ld) %% %ld).reshape(%ld, %ld)\n",
           rows, cols, rows * cols, mul, add, mod, rows, cols);
    long n = tu_long("sys.getrefcount(t)");
    char want_refs[32];
    snprintf(want_refs, sizeof want_refs, "%ld", n + 1);
    tu_run("v = t.transpose()\n");
    tu_expect(want_refs, "sys.getrefcount(t)");
    tu_run("del t\njunk = [pyobj.TensorBuf((%ld, %ld)) for _ in range(8)]\na = np.asarray(v)\n",
           rows, cols);
    tu_text_t is = { .n = 0 }, js = { .n = 0 }, want = { .n = 0 };
    tu_cat(&want, "((%ld, %ld), [", cols, rows);
    for (int k = 0; k < 16; k++) {
        long i = (long)mm_rng_range(&r, 0, (uint64_t)cols - 1);
        long j = (long)mm_rng_range(&r, 0, (uint64_t)rows - 1);
        tu_cat(&is, "%s%ld", k ? ", " : "", i);
        tu_cat(&js, "%s%ld", k ? ", " : "", j);
        tu_cat(&want, "%s%ld.0", k ? ", " : "", ((j * cols + i) * mul + add) % mod);
    }
    tu_cat(&want, "])");
    tu_expect(want.s, "(a.shape, a[[%s], [%s]].tolist())", is.s, js.s);
}
MM_END_TEST

/* PyObject_GetBuffer(name, flags) as C sees it: 0 and the view filled, or -1 and BufferError.
 * The view is released at once; b->exports is the object's count after that. */
static int get(const char *name, int flags, po_getbuffer_out_t *b)
{
    tu_getbuffer(name, flags, b);
    if (b->rc < 0)
        ck_assert_msg(!strcmp(b->raised, "BufferError"),
                      "a refused request (flags %#x) must raise BufferError, not %s", flags,
                      b->raised);
    return b->rc;
}

MM_TEST(test_getbuffer_flags)
{
    mm_rng_t r = MM_RNG();
    layout_t l;
    tu_text_t shape;
    pick_layout(&r, &l, 2, 2, 6, 0);
    long isz = l.f->itemsize, cols = l.shape[1];
    char fmt[2] = { l.f->code, 0 };
    tu_run("t = pyobj.TensorBuf(%s, '%c')\nv = pyobj.TensorBuf(%s, '%c').transpose()\n",
           shape_of(&l, &shape), l.f->code, shape.s, l.f->code);
    po_getbuffer_out_t b;
    ck_assert_int_eq(get("t", PyBUF_SIMPLE, &b), 0);
    ck_assert_msg(b.len == l.nbytes && b.itemsize == isz && !b.has_format && !b.has_shape &&
                  !b.has_strides && b.obj_is_target && !b.has_suboffsets,
                  "PyBUF_SIMPLE of TensorBuf(%s, '%c'): len %ld, itemsize %ld, no "
                  "format/shape/strides/suboffsets, obj the TensorBuf", shape.s, fmt[0],
                  l.nbytes, isz);
    ck_assert_int_eq(get("t", PyBUF_ND | PyBUF_FORMAT, &b), 0);
    ck_assert_msg(b.has_shape && b.ndim == 2 && b.shape[0] == l.shape[0] && b.shape[1] == cols &&
                  !b.has_strides && b.has_format && !strcmp(b.format, fmt),
                  "PyBUF_ND | PyBUF_FORMAT: shape %s and format '%s', no strides", shape.s, fmt);
    ck_assert_int_eq(get("t", PyBUF_STRIDES, &b), 0);
    ck_assert_msg(b.has_strides && b.strides[0] == cols * isz && b.strides[1] == isz &&
                  b.ndim == 2, "PyBUF_STRIDES: strides (%ld, %ld)", cols * isz, isz);
    ck_assert_msg(b.exports == 0, "every release must be counted");
    ck_assert_msg(get("v", PyBUF_ND, &b) < 0 && b.obj_is_null,
                  "a strided view without PyBUF_STRIDES");
    ck_assert_msg(get("v", PyBUF_C_CONTIGUOUS, &b) < 0, "a transposed view is not C-contiguous");
    ck_assert_int_eq(get("v", PyBUF_F_CONTIGUOUS, &b), 0);
    ck_assert_int_eq(get("v", PyBUF_RECORDS, &b), 0);
    ck_assert_msg(b.strides[0] == isz && b.strides[1] == cols * isz && b.shape[0] == cols &&
                  b.shape[1] == l.shape[0], "the view's layout: shape (%ld, %ld), strides "
                  "(%ld, %ld)", cols, l.shape[0], isz, cols * isz);
    tu_expect("0", "t.exports");
}
MM_END_TEST
