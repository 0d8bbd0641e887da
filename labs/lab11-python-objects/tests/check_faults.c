/* Lab 11 tests, parts A and B under allocation failure: each scenario runs once per allocation it
 * makes, with that allocation failing (support.h, tu_sweep); every run must fail cleanly (NULL
 * and an exception), crash nothing, and leave no reference behind. Your functions are called
 * from C, so the failures land in your code and in what it calls. The objects whose references are
 * counted are made at run time (tu_assert_counted; sizes and items above 256): Python 3.12+ counts
 * no reference to an immortal object (PEP 683), so a leak of one would go unseen. */
#include "support.h"

/* What every sweep must show: clean failures, no leak, and some allocation actually failed.
 * The scenario's argument is `arg_expr` evaluated in tu_ns() before the sweep. */
static void assert_clean_sweep(const char *what, tu_scenario_fn fn, const char *arg_expr)
{
    tu_sweep_t s;
    PyObject *arg = tu_eval(arg_expr);
    tu_sweep(fn, arg, &s);
    Py_DECREF(arg);
    ck_assert_msg(!s.bad[0], "%s: %s", what, s.bad);
    ck_assert_msg(s.refs_left == 0, "%s: %ld reference(s) left behind over %d runs, each with "
                  "one allocation failing", what, s.refs_left, s.runs / 2);
    ck_assert_msg(s.failed_runs > 0, "%s: no allocation of it ever failed", what);
}

/* TensorBuf(args), resized to (262, 263) (harness.mortal_ints(5, 6)), a transposed view of it
 * exported and released. */
static PyObject *tensorbuf_life(void *args)
{
    PyObject *t = po_tensorbuf_new(&po_tensorbuf_type, args, NULL);
    if (!t)
        return NULL;
    PyObject *shape = Py_BuildValue("(ii)", 257 + 5, 257 + 6);
    PyObject *r = shape ? po_tensorbuf_resize(t, shape) : NULL;
    Py_XDECREF(shape);
    PyObject *v = r ? po_tensorbuf_transpose(t, NULL) : NULL;
    Py_XDECREF(r);
    Py_buffer b;
    if (v && PyObject_GetBuffer(v, &b, PyBUF_RECORDS) == 0)
        PyBuffer_Release(&b);
    else
        Py_CLEAR(t);
    Py_XDECREF(v);
    return t;
}

static PyObject *group_by_call(void *args)
{
    return po_group_by(NULL, args);
}

/* Every batch of batches(*args), dropped as it comes; None when all came. */
static PyObject *batches_drain(void *args)
{
    PyObject *b = po_batches_new(&po_batches_type, args, NULL), *t;
    if (!b)
        return NULL;
    while ((t = po_batches_next(b)))
        Py_DECREF(t);
    Py_DECREF(b);
    return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
}

static PyObject *collate_call(void *samples)
{
    return po_collate(NULL, samples);
}

MM_TEST_F(test_alloc_failures_tensorbuf, &tu_py)
{
    tu_assert_counted("harness.mortal_ints(3, 4, 5, 6)");
    assert_clean_sweep("TensorBuf, resize, transpose", tensorbuf_life,
                       "(harness.mortal_ints(3, 4), 'f')");
}
MM_END_TEST

MM_TEST_F(test_alloc_failures_group_by, &tu_py)
{
    tu_ok("items = list(harness.mortal_ints(*(i * 37 % 13 for i in range(40))))\n");
    tu_assert_counted("items + [str(x) for x in items]");
    assert_clean_sweep("group_by(40 ints in 13 groups, str)", group_by_call, "(items, str)");
}
MM_END_TEST

MM_TEST_F(test_alloc_failures_batches, &tu_py)
{
    /* A list, not an iterator: each run iterates it afresh. */
    tu_ok("items = list(harness.mortal_ints(*range(20)))\n");
    tu_assert_counted("items");
    assert_clean_sweep("batches(20 items, 3), every batch taken", batches_drain, "(items, 3)");
}
MM_END_TEST

MM_TEST_F(test_alloc_failures_collate, &tu_py)
{
    /* CPython's own exporters, whose references the debug interpreter counts (not NumPy's); 8
     * kinds of sample, 264 samples of 261 floats: the collated shape's ints are above 256. */
    tu_ok("import array\n"
          "n, = harness.mortal_ints(4)\n"
          "kinds = [array.array('f', [i] * n) for i in range(6)]\n"
          "kinds += [pyobj.TensorBuf((n,)), memoryview(bytes(4 * n)).cast('f')]\n");
    tu_assert_counted("kinds");
    assert_clean_sweep("collate(264 samples of 261 floats)", collate_call, "kinds * 33");
}
MM_END_TEST
