/* Lab 11 tests, part A: TensorBuf through the buffer protocol (memoryview, numpy), its exports,
 * resize and views; the flags of bf_getbuffer checked from C (in your process: tu_getbuffer). */
#include <Python.h> /* PyBUF_* */
#include "support.h"

MM_TEST(test_tensorbuf_new_shape_format)
{
    tu_ok("t = pyobj.TensorBuf((2, 3))\n"
          "assert (t.shape, t.strides, t.format, t.nbytes) == ((2, 3), (12, 4), 'f', 24), \\\n"
          "    (t.shape, t.strides, t.format, t.nbytes)\n"
          "d = pyobj.TensorBuf([4, 0, 5], format='d', readonly=True)\n"
          "assert (d.shape, d.strides, d.nbytes, d.readonly) == ((4, 0, 5), (40, 40, 8), 0, True), \\\n"
          "    ('a zero-sized dimension counts as 1 in the strides before it', d.strides)\n"
          "s = pyobj.TensorBuf((), format='q')\n"
          "assert (s.shape, s.nbytes, s.exports, s.base) == ((), 8, 0, None)\n"
          "assert bytes(memoryview(pyobj.TensorBuf((3, 5), 'h'))) == bytes(30), 'not zero-filled'\n");
}
MM_END_TEST

MM_TEST(test_tensorbuf_bad_arguments)
{
    tu_ok("def raises(exc, *args, **kw):\n"
          "    try:\n"
          "        pyobj.TensorBuf(*args, **kw)\n"
          "    except exc:\n"
          "        return\n"
          "    raise AssertionError(f'TensorBuf{args} {kw} should raise {exc.__name__}')\n"
          "raises(ValueError, (2, -1))\n"
          "raises(ValueError, (1,) * 9)\n"
          "raises(ValueError, (2,), format='x')\n"
          "raises(ValueError, (2,), format='ff')\n"
          "raises(ValueError, (2**40, 2**40))\n"
          "raises(TypeError, 5)\n"
          "raises(TypeError, (2, 'a'))\n"
          "raises(TypeError, (2.0,))\n"
          "raises(TypeError)\n");
}
MM_END_TEST

MM_TEST(test_memoryview_describes_layout)
{
    tu_ok("t = pyobj.TensorBuf((2, 3, 4), 'i')\n"
          "m = memoryview(t)\n"
          "got = (m.shape, m.strides, m.format, m.itemsize, m.ndim, m.readonly, m.nbytes)\n"
          "assert got == ((2, 3, 4), (48, 16, 4), 'i', 4, 3, False, 96), got\n"
          "assert m.c_contiguous and m.obj is t\n"
          "m[1, 2, 3] = 7\n"
          "assert memoryview(t)[1, 2, 3] == 7, 'a write through one view must show in another'\n");
}
MM_END_TEST

MM_TEST(test_numpy_shares_memory)
{
    tu_ok("t = pyobj.TensorBuf((4, 5))\n"
          "a = np.asarray(t)\n"
          "assert a.dtype == np.float32 and a.shape == (4, 5), (a.dtype, a.shape)\n"
          "assert np.shares_memory(a, np.asarray(t)), 'numpy.asarray copied the TensorBuf'\n"
          "a[2, 3] = 1.5\n"
          "assert memoryview(t)[2, 3] == 1.5\n"
          "assert t.exports == 1, f'numpy holds one export, exports says {t.exports}'\n"
          "del a\n"
          "assert t.exports == 0, f'exports {t.exports} after the array died'\n");
}
MM_END_TEST

MM_TEST(test_readonly_refuses_writers)
{
    tu_ok("ro = pyobj.TensorBuf((3,), readonly=True)\n"
          "assert memoryview(ro).readonly\n"
          "a = np.asarray(ro)\n"
          "assert not a.flags.writeable, 'numpy got a writable array of read-only memory'\n"
          "try:\n"
          "    a[0] = 1\n"
          "    raise AssertionError('wrote to read-only memory')\n"
          "except ValueError:\n"
          "    pass\n"
          "del a\n");
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
    tu_ok("t = pyobj.TensorBuf((8,), 'B')\n"
          "m1, m2 = memoryview(t), memoryview(t)\n"
          "assert t.exports == 2, t.exports\n"
          "m1.release()\n"
          "assert t.exports == 1, t.exports\n"
          "del m2\n"
          "assert t.exports == 0, t.exports\n");
}
MM_END_TEST

MM_TEST(test_resize_refused_while_exported)
{
    tu_ok("t = pyobj.TensorBuf((4,), 'i')\n"
          "np.asarray(t)[:] = [1, 2, 3, 4]\n"
          "m = memoryview(t)\n"
          "try:\n"
          "    t.resize((1000,))\n"
          "    raise AssertionError('resized while a memoryview was exported')\n"
          "except BufferError:\n"
          "    pass\n"
          "assert t.shape == (4,) and m.tolist() == [1, 2, 3, 4]\n"
          "m.release()\n"
          "t.resize((2, 3))\n"
          "assert (t.shape, t.strides) == ((2, 3), (12, 4)), (t.shape, t.strides)\n"
          "assert np.asarray(t).ravel().tolist() == [1, 2, 3, 4, 0, 0], 'kept bytes, zero tail'\n"
          "t.resize((3,))\n"
          "assert np.asarray(t).tolist() == [1, 2, 3]\n"
          "t.resize((0,))\n"
          "t.resize((2,))\n"
          "assert np.asarray(t).tolist() == [0, 0]\n"
          "v = t.transpose()\n"
          "for obj in (t, v):\n"
          "    try:\n"
          "        obj.resize((9,))\n"
          "        raise AssertionError('resized an owner with a live view, or a view')\n"
          "    except BufferError:\n"
          "        pass\n");
}
MM_END_TEST

MM_TEST(test_transpose_view)
{
    tu_ok("t = pyobj.TensorBuf((2, 3), 'd')\n"
          "np.asarray(t)[:] = np.arange(6).reshape(2, 3)\n"
          "v = t.transpose()\n"
          "assert (v.shape, v.strides, v.base) == ((3, 2), (8, 24), t), (v.shape, v.strides)\n"
          "assert t.exports == 1, f'a live view is an export of its base: {t.exports}'\n"
          "a = np.asarray(v)\n"
          "assert np.shares_memory(a, np.asarray(t)) and (a == np.asarray(t).T).all()\n"
          "assert not memoryview(v).c_contiguous and memoryview(v).f_contiguous\n"
          "w = v.transpose()\n"
          "assert w.base is t and w.shape == (2, 3), 'the view of a view has the owner as base'\n"
          "assert bytes(v) == np.asarray(t).T.tobytes(), 'bytes() copies a view in its order'\n"
          "del a, v, w\n"
          "assert t.exports == 0, t.exports\n");
}
MM_END_TEST

MM_TEST(test_view_keeps_base_alive)
{
    tu_ok("t = pyobj.TensorBuf((64, 64))\n"
          "np.asarray(t)[:] = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)\n"
          "n = sys.getrefcount(t)\n"
          "v = t.transpose()\n"
          "assert sys.getrefcount(t) == n + 1, 'a view holds one reference to its base'\n"
          "del t\n"
          "junk = [pyobj.TensorBuf((64, 64)) for _ in range(8)]\n"
          "a = np.asarray(v)\n"
          "want = np.arange(64 * 64, dtype=np.float32).reshape(64, 64).T\n"
          "assert (a == want).all(), 'the base was freed under its view'\n");
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
    tu_ok("t = pyobj.TensorBuf((3, 4), 'h')\n"
          "v = pyobj.TensorBuf((3, 4), 'h').transpose()\n");
    po_getbuffer_out_t b;
    ck_assert_int_eq(get("t", PyBUF_SIMPLE, &b), 0);
    ck_assert_msg(b.len == 24 && b.itemsize == 2 && !b.has_format && !b.has_shape &&
                  !b.has_strides && b.obj_is_target && !b.has_suboffsets,
                  "PyBUF_SIMPLE: len 24, no format/shape/strides");
    ck_assert_int_eq(get("t", PyBUF_ND | PyBUF_FORMAT, &b), 0);
    ck_assert_msg(b.has_shape && b.shape[1] == 4 && !b.has_strides && b.has_format &&
                  !strcmp(b.format, "h"), "PyBUF_ND | PyBUF_FORMAT: shape and format, no strides");
    ck_assert_int_eq(get("t", PyBUF_STRIDES, &b), 0);
    ck_assert_msg(b.has_strides && b.strides[0] == 8 && b.ndim == 2, "PyBUF_STRIDES: strides");
    ck_assert_msg(b.exports == 0, "every release must be counted");
    ck_assert_msg(get("v", PyBUF_ND, &b) < 0 && b.obj_is_null,
                  "a strided view without PyBUF_STRIDES");
    ck_assert_msg(get("v", PyBUF_C_CONTIGUOUS, &b) < 0, "a transposed view is not C-contiguous");
    ck_assert_int_eq(get("v", PyBUF_F_CONTIGUOUS, &b), 0);
    ck_assert_int_eq(get("v", PyBUF_RECORDS, &b), 0);
    ck_assert_msg(b.strides[0] == 2 && b.strides[1] == 8 && b.shape[0] == 4, "the view's layout");
    ck_assert_msg(tu_long("t.exports") == 0, "every release must be counted");
}
MM_END_TEST
