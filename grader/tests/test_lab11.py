"""Lab 11's reference counting is graded for real: a submission that leaks one reference per item
on the normal path, one that forgets a Py_DECREF on a path only a failed allocation takes, and
one that leaks each key and each shape dimension (which Python 3.12+ would not count if they were
small ints: immortal objects, PEP 683) each fail exactly the tests that watch those paths, and no
other, on Python 3.11 and 3.13 alike."""
import pytest

from conftest import SANDBOX_ENV, grade

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
