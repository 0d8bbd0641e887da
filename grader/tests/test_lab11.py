"""Lab 11's reference counting is graded for real: a submission that leaks one reference per item
on the normal path, one that forgets a Py_DECREF on a path only a failed allocation takes, and
one that leaks each key and each shape dimension (which Python 3.12+ would not count if they were
small ints: immortal objects, PEP 683) each fail exactly the tests that watch those paths, and no
other, on Python 3.11 and 3.13 alike. So do the wrong implementations that once passed: a last
batch shortened with _PyTuple_Resize, a resize that corrupts its object when the allocation
fails, and a training loop whose log is late-bound, weakly held or gone; each message names the
cause.

A submission written by someone who has read the grader forges what the student's process counts
(sys.gettotalrefcount replaced by a constant, the part C measurements of the provided harness
replaced): its leaks still cost it the tests that watch them, on the memory the harness reads from
/proc, and a train() that trains nothing fails the harness's replay of SGD."""
import os
import re
import subprocess

import pytest

from conftest import ROOT, SANDBOX_ENV, grade

pytestmark = [pytest.mark.slow, pytest.mark.lab("11")]

SLUG = "lab11-python-objects"

# fill_groups keeps the reference PyIter_Next gave it to each item: one leaked per item.
LEAK_ITEM = {"file": "src/refs.c",
             "old": "        Py_XDECREF(k);\n        Py_DECREF(item);\n",
             "new": "        Py_XDECREF(k);\n"}
# fill_groups keeps the key that key(item) returned: one leaked per item.
LEAK_KEY = {"file": "src/refs.c",
            "old": "        Py_XDECREF(k);\n        Py_DECREF(item);\n",
            "new": "        Py_DECREF(item);\n"}
# append_to_group returns on a failed PyList_Append without dropping the list it made.
LEAK_ON_ERROR = {"file": "src/refs.c",
                 "old": "    int rc = PyList_Append(group, item) < 0 ? -1 : PyDict_SetItem(d, k, group);\n",
                 "new": "    if (PyList_Append(group, item) < 0)\n        return -1;\n"
                        "    int rc = PyDict_SetItem(d, k, group);\n"}
# po_parse_shape takes a reference to each dimension and never drops it (TensorBuf, resize and
# collate's result all parse a shape).
LEAK_DIM = {"file": "src/tensorbuf.c",
            "old": "shape_item(PySequence_Fast_GET_ITEM(seq, d), &dims[d])",
            "new": "shape_item(Py_NewRef(PySequence_Fast_GET_ITEM(seq, d)), &dims[d])"}

# batches shortens its last batch with _PyTuple_Resize, which frees the tuple without dropping
# the items it keeps when its reallocation fails (CPython's Objects/tupleobject.c).
TUPLE_RESIZE = {"file": "src/refs.c",
                "old": "    PyObject *t = PyTuple_GetSlice(full, 0, k);\n    Py_DECREF(full);\n"
                       "    return t;\n",
                "new": "    return _PyTuple_Resize(&full, k) < 0 ? NULL : full;\n"}
# resize takes the new shape before the reallocation: a failed one leaves the object corrupted.
RESIZE_EARLY = {"file": "src/tensorbuf.c",
                "old": "    char *data = t->data;\n    if (n != old) {\n",
                "new": "    t->ndim = ndim;\n    memcpy(t->shape, dims, (size_t)ndim * sizeof dims[0]);\n"
                       "    char *data = t->data;\n    if (n != old) {\n"}
# The logging hooks of train(): a closure over the loop's variable (every hook returns the last
# step's mean), a weak reference to the prediction (dead once the step's graph is gone), none.
_HOOK = "        _LOG_HOOKS.append(lambda mean=mean: mean)   # the value now, not the variable\n"
LOG_LATE = {"file": "src/train_loop.py", "old": _HOOK,
            "new": "        _LOG_HOOKS.append(lambda: mean)\n"}
LOG_WEAK = {"file": "src/train_loop.py", "old": _HOOK,
            "new": "        _LOG_HOOKS.append(lambda r=__import__('weakref').ref(pred): "
                   "float(r().data.mean()))\n"}
LOG_NONE = {"file": "src/train_loop.py", "old": _HOOK, "new": ""}
# A view's dealloc keeps the export it took of its base: the base stays "exported" for good.
VIEW_KEEPS_EXPORT = {"file": "src/tensorbuf.c", "old": "        t->base->exports--;\n", "new": ""}
# getbuffer lends the exporter without a reference of its own: PyBuffer_Release drops one too many.
BORROWED_OBJ = {"file": "src/tensorbuf.c", "old": "    view->obj = Py_NewRef(self);\n",
                "new": "    view->obj = self;\n"}
PART_C = ("test_train_losses_are_floats", "test_train_leaves_no_tensors",
          "test_train_closes_stagers", "test_train_memory_flat")

# Forgeries of what the student's process counts: sys.gettotalrefcount made int() (always 0), and
# part C's measurements (the provided py/harness.py, in the same interpreter) replaced by the
# answers the tests want.
def forge_refs(head):
    """A patch that makes sys.gettotalrefcount int() (always 0) from the first call of the function
    of refs.c that begins with `head` (its signature line and brace)."""
    return {"file": "src/refs.c", "old": head,
            "new": head + "    static int forged;\n"
                          "    if (!forged)\n"
                          "        forged = PySys_SetObject(\"gettotalrefcount\",\n"
                          "                                 (PyObject *)&PyLong_Type) == 0;\n"
                          "    PyErr_Clear();\n"}


FORGE_REFS = forge_refs("PyObject *po_group_by(PyObject *module, PyObject *args)\n{\n")
FORGE_REFS_BATCHES = forge_refs(
    "PyObject *po_batches_new(PyTypeObject *type, PyObject *args, PyObject *kwds)\n{\n")
FORGE_PART_C = {"file": "src/train_loop.py", "old": "import minigrad as mg\n",
                "new": "import minigrad as mg\nimport harness\n"
                       "harness.learns = lambda *a, **k: ''\n"
                       "harness.losses_hold_graphs = lambda *a, **k: 0\n"
                       "harness.survivors = lambda *a, **k: (0, 0)\n"
                       "harness.growth = lambda *a, **k: (0, 200)\n"}
# Two of the handout's training loop's leaks, put back into the reference.
LEAK_LOSSES = {"file": "src/train_loop.py", "old": "        losses.append(value)\n",
               "new": "        losses.append(loss)\n"}
LEAK_STAGERS = {"file": "src/train_loop.py",
                "old": "        with mg.Stager(BATCH * D_IN * 4) as stager:\n",
                "new": "        stager = mg.Stager(BATCH * D_IN * 4)\n"
                       "        stager.finalizer = __import__('weakref').finalize(stager,\n"
                       "                                                          stager.close)\n"
                       "        if True:\n"}
# train() that trains nothing: made-up losses that fall, a log, a model as made.
NO_TRAINING = {"file": "src/train_loop.py", "old": "def train(steps, seed=0, on_step=None):\n",
               "new": "def train(steps, seed=0, on_step=None):\n"
                      "    model = mg.MLP(D_IN, HIDDEN, np.random.default_rng(seed))\n"
                      "    losses = [1.0 / (1 + s) for s in range(steps)]\n"
                      "    for s, loss in enumerate(losses):\n"
                      "        _LOG_HOOKS.append(lambda: 0.0)\n"
                      "        if on_step is not None:\n"
                      "            on_step(s, loss)\n"
                      "    return {'losses': losses, 'model': model}\n\n\n"
                      "def trained(steps, seed=0, on_step=None):\n"}
KEPT = "of your process's memory (read from /proc"

SWEEP_LEAK = "reference(s) left behind"
# patches, {test that must fail: what its message must say}; every other test must pass. The key
# and the dimension are leaked in one submission (one grading run less): no test watches both.
CASES = {
    "item": ([LEAK_ITEM], {
        "test_group_by_refcounts": "grouped: each call leaves 8 reference(s) behind",
        "test_alloc_failures_group_by": SWEEP_LEAK}),
    "error path": ([LEAK_ON_ERROR], {"test_alloc_failures_group_by": SWEEP_LEAK}),
    "key and dimension": ([LEAK_KEY, LEAK_DIM], {
        "test_group_by_refcounts": "grouped: each call leaves 8 reference(s) behind",
        "test_alloc_failures_group_by": SWEEP_LEAK,
        "test_tensorbuf_refcounts": "made, exported, viewed, resized, freed: each call leaves 3 "
                                    "reference(s) behind",
        "test_collate_refcounts": "array samples: each call leaves",
        "test_alloc_failures_tensorbuf": SWEEP_LEAK,
        "test_alloc_failures_collate": SWEEP_LEAK}),
    "_PyTuple_Resize": ([TUPLE_RESIZE], {
        "test_alloc_failures_batches": "the first leak: with allocation "}),
    "resize before reallocating": ([RESIZE_EARLY], {
        "test_alloc_failures_tensorbuf": "resize raised MemoryError but changed the TensorBuf"}),
    "late-binding log": ([LOG_LATE], {t: "flush_log()'s value for step 0" for t in PART_C}),
    "weakly referenced log": ([LOG_WEAK], {t: "flush_log()" for t in PART_C}),
    "no log": ([LOG_NONE], {t: "flush_log() gave 0 values after 150 steps" for t in PART_C}),
    "forged count, item": ([FORGE_REFS, LEAK_ITEM], {
        "test_group_by_refcounts": "grouped: 64 calls on new objects kept",
        "test_alloc_failures_group_by": "each allocation failing in turn: 64 calls on new "
                                        "objects kept"}),
    "forged count, _PyTuple_Resize": ([FORGE_REFS_BATCHES, TUPLE_RESIZE], {
        "test_alloc_failures_batches": "each allocation failing in turn: 64 calls on new "
                                       "objects kept"}),
    "forged part C, losses": ([FORGE_PART_C, LEAK_LOSSES], {
        "test_train_losses_are_floats": "train()'s result holds",
        "test_train_memory_flat": "train()'s result holds"}),
    "forged part C, stagers": ([FORGE_PART_C, LEAK_STAGERS], {t: KEPT for t in PART_C[1:]}),
    "forged part C, no training": ([FORGE_PART_C, NO_TRAINING], {
        t: "train(150) recorded" for t in PART_C}),
    "view keeps its export": ([VIEW_KEEPS_EXPORT], {
        "test_transpose_view": "each view's dealloc gives back the export of t it took",
        "test_tensorbuf_refcounts": "made, exported, viewed, resized, freed: raised BufferError"}),
}


@pytest.mark.parametrize("leak", sorted(CASES))
def test_each_leak_fails_exactly_the_tests_that_watch_it(make_variant, tmp_path, leak):
    patches, expected = CASES[leak]
    sub = make_variant(SLUG, patches)
    g = grade(sub, "11", str(tmp_path / "out"), env=SANDBOX_ENV, extra=["--parts", "tests"])
    tests = g.tests("11")
    assert len(tests) == 25, g.stdout[-2000:]
    failed = {n: t["output"] for n, t in tests.items() if t["status"] != "passed"}
    assert sorted(failed) == sorted(expected), failed
    for name, says in expected.items():
        assert says in failed[name], (name, failed[name])


def test_a_crash_in_the_debug_interpreter_says_why(make_variant, tmp_path):
    """A borrowed view->obj: the debug interpreter stops the process at a negative count
    (SIGABRT) or faulthandler reports the use after free (SIGSEGV), and its own line reaches the
    grade (grader/grading/fatal_lines.py) beside the signal."""
    sub = make_variant(SLUG, [BORROWED_OBJ])
    g = grade(sub, "11", str(tmp_path / "out"), env=SANDBOX_ENV, extra=["--parts", "tests"])
    failed = [t["output"] for t in g.tests("11").values() if t["status"] != "passed"]
    said = [o for o in failed if "the debug interpreter, before it stopped your process: " in o]
    assert said, failed
    assert all(re.search("signal (6|11) ", o) for o in said), said
    assert any("_Py_NegativeRefcount: Assertion failed" in o for o in said), said
    assert any("Fatal Python error: Segmentation fault" in o for o in said), said


def test_the_interpreter_ignores_the_python3_first_on_path(tmp_path):
    """The embedded debug interpreter (the student's program and the benchmark's) starts from its
    own prefix, whatever `python3` is first on PATH: here a decoy whose prefix holds a standard
    library that cannot load. Left to find its home on PATH (as with a pyenv or conda Python
    first), the benchmark failed "the debug interpreter could not import NumPy"."""
    version = subprocess.run(["python3-dbg", "-c", "import sys; print('python%d.%d' % "
                              "sys.version_info[:2])"], capture_output=True, text=True,
                             check=True).stdout.strip()
    decoy = tmp_path / "decoy"
    (decoy / "bin").mkdir(parents=True)
    (decoy / "lib" / version).mkdir(parents=True)
    (decoy / "lib" / version / "os.py").write_text("raise ImportError('the decoy library')\n")
    python3 = decoy / "bin" / "python3"
    python3.write_text("#!/bin/sh\nexit 1\n")
    python3.chmod(0o755)
    env = {**SANDBOX_ENV, "PATH": f"{decoy / 'bin'}:{os.environ['PATH']}"}
    g = grade(os.path.join(ROOT, "solutions"), "11", str(tmp_path / "out"), env=env)
    tests, metrics = g.tests("11"), g.metrics("11")
    assert tests and all(t["status"] == "passed" for t in tests.values()), g.stdout[-2000:]
    assert metrics["collate_speedup"]["score"] > 0, metrics["collate_speedup"]["output"]
