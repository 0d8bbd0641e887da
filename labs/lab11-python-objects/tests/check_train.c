/* Lab 11 tests, part C: your src/train_loop.py still trains, and leaves nothing behind: no loss
 * holding its graph, no Tensor kept by a global, no staging buffer left open, and memory flat
 * over 200 steps (tracemalloc). The measurements are the provided py/harness.py's. */
#include "pysrc.h"
#include "support.h"

/* Bytes per step that tracemalloc may see kept (a float per step in a list, and noise). */
#define MAX_GROWTH_PER_STEP 512

/* Loads your train_loop.py as the module train_loop (in tu_ns()) and checks that it still
 * trains as its docstring says. */
static void load_train_loop(void)
{
    PyObject *code = Py_CompileString(po_src_train_loop, "train_loop.py", Py_file_input);
    PyObject *m = code ? PyImport_ExecCodeModule("train_loop", code) : NULL;
    Py_XDECREF(code);
    if (!m)
        tu_ok("raise ImportError('src/train_loop.py does not import') from sys.exc_info()[1]");
    PyDict_SetItemString(tu_ns(), "train_loop", m);
    Py_DECREF(m);
    tu_ok("why = harness.learns(train_loop)\n"
          "assert not why, why\n");
}

MM_TEST_F(test_train_losses_are_floats, &tu_py)
{
    load_train_loop();
    tu_ok("n = harness.losses_hold_graphs(train_loop)\n"
          "assert n == 0, f'{n} of the 20 losses train() returned are not floats: each keeps ' \\\n"
          "    'its step\\'s whole graph alive'\n");
}
MM_END_TEST

MM_TEST_F(test_train_leaves_no_tensors, &tu_py)
{
    load_train_loop();
    tu_ok("tensors, _ = harness.survivors(train_loop)\n"
          "assert tensors == 0, f'{tensors} Tensors outlive train() and its result (after ' \\\n"
          "    'gc.collect()): something global still refers to them'\n");
}
MM_END_TEST

MM_TEST_F(test_train_closes_stagers, &tu_py)
{
    load_train_loop();
    tu_ok("_, stagers = harness.survivors(train_loop)\n"
          "assert stagers == 0, f'{stagers} Stagers of 20 steps are still open after train() ' \\\n"
          "    'and gc.collect(): their buffers are never given back'\n");
}
MM_END_TEST

MM_TEST_F(test_train_memory_flat, &tu_py)
{
    load_train_loop();
    PyObject *g = tu_eval("harness.growth(train_loop)");
    ck_assert_msg(g != Py_None, "on_step was not called at the steps measured");
    long grown = PyLong_AsLong(PyTuple_GetItem(g, 0)), steps = PyLong_AsLong(PyTuple_GetItem(g, 1));
    Py_DECREF(g);
    ck_assert_msg(grown <= MAX_GROWTH_PER_STEP * steps, "memory grew by %ld bytes over %ld steps "
                  "(%ld per step; at most %d allowed)", grown, steps, grown / steps,
                  MAX_GROWTH_PER_STEP);
}
MM_END_TEST
