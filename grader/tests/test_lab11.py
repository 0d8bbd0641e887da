"""Lab 11's reference counting is graded for real: a submission that leaks one reference per item
on the normal path, and one that forgets a Py_DECREF on a path only a failed allocation takes,
each fail exactly the tests that watch those paths, and no other."""
import pytest

from conftest import SANDBOX_ENV, grade

pytestmark = [pytest.mark.slow, pytest.mark.lab("11")]

SLUG = "lab11-python-objects"

# fill_groups keeps the reference PyIter_Next gave it to each item: one leaked per item.
LEAK_ITEM = {"file": "src/refs.c",
             "old": "        Py_XDECREF(k);\n        Py_DECREF(item);\n",
             "new": "        Py_XDECREF(k);\n"}
# append_to_group returns on a failed PyList_Append without dropping the list it made.
LEAK_ON_ERROR = {"file": "src/refs.c",
                 "old": "    int rc = PyList_Append(group, item) < 0 ? -1 : PyDict_SetItem(d, k, group);\n",
                 "new": "    if (PyList_Append(group, item) < 0)\n        return -1;\n"
                        "    int rc = PyDict_SetItem(d, k, group);\n"}


def failed_tests(make_variant, tmp_path, patch) -> dict[str, str]:
    sub = make_variant(SLUG, [patch])
    g = grade(sub, "11", str(tmp_path / "out"), env=SANDBOX_ENV, extra=["--parts", "tests"])
    tests = g.tests("11")
    assert len(tests) == 25, g.stdout[-2000:]
    return {n: t["output"] for n, t in tests.items() if t["status"] != "passed"}


def test_a_leaked_reference_fails_the_refcount_tests(make_variant, tmp_path):
    failed = failed_tests(make_variant, tmp_path, LEAK_ITEM)
    assert sorted(failed) == ["test_alloc_failures_group_by", "test_group_by_refcounts"], failed
    assert "each call leaves 8 reference(s) behind" in failed["test_group_by_refcounts"]
    assert "reference(s) left behind" in failed["test_alloc_failures_group_by"]


def test_a_missing_decref_on_an_error_path_fails_the_allocation_sweep(make_variant, tmp_path):
    failed = failed_tests(make_variant, tmp_path, LEAK_ON_ERROR)
    assert sorted(failed) == ["test_alloc_failures_group_by"], failed
    assert "reference(s) left behind" in failed["test_alloc_failures_group_by"]
