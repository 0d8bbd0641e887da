"""A crash in lab 11's debug interpreter carries the interpreter's own words into the grade: the
_Py_NegativeRefcount line (naming the file and line of the Py_DECREF that went below zero) or the
"Fatal Python error" line, paired in order with the tests whose process a signal the interpreter
reports ended (SIGABRT; SIGSEGV and others through faulthandler); SIGKILL, a hidden test and a
passed one are handled as they must be."""
from grader.grading import fatal_lines
from grader.rules.results import PASSED, Item

# What CPython 3.11's debug build prints for a double Py_DECREF (Objects/object.c,
# _PyObject_AssertFailed), then for a second process's Py_FatalError with no refcount line.
STUDENT_OUTPUT = """\
src/refs.c:236: _Py_NegativeRefcount: Assertion failed: object has negative ref count
Enable tracemalloc to get the memory block allocation traceback

object address  : 0x7f0c2a1b3c40
object refcount : -1
Fatal Python error: _PyObject_AssertFailed: _PyObject_AssertFailed
Python runtime state: initialized
a line the student printed
Fatal Python error: PyThreadState_Get: the function must be called with the GIL held
"""
ABORT = "your code's process was killed by signal 6 (Aborted) during py"
KILLED = "your code's process was killed by signal 9 (Killed) during py"


def test_interpreter_errors_one_line_each():
    assert fatal_lines.interpreter_errors(STUDENT_OUTPUT) == [
        "src/refs.c:236: _Py_NegativeRefcount: Assertion failed: object has negative ref count",
        "Fatal Python error: PyThreadState_Get: the function must be called with the GIL held"]
    assert fatal_lines.interpreter_errors("no crash here\n") == []


def _attach(order: list[tuple[str, str]], hidden=()) -> dict[str, str]:
    items = [Item("11", "test", n, 3, output=m, hidden=n in hidden) for n, m in order]
    fatal_lines.attach(items, dict(order), STUDENT_OUTPUT)
    return {i.name: i.output for i in items}


SAID = "\n  the debug interpreter, before it stopped your process: "
FIRST = "src/refs.c:236: _Py_NegativeRefcount: Assertion failed: object has negative ref count"
SECOND = "Fatal Python error: PyThreadState_Get: the function must be called with the GIL held"


def test_lines_go_to_the_aborted_tests_in_the_order_they_ran():
    out = _attach([("b", KILLED), ("a", ABORT), ("c", "x == 3"), ("d", ABORT), ("e", ABORT)])
    assert out == {"b": KILLED, "a": ABORT + SAID + FIRST, "c": "x == 3",
                   "d": ABORT + SAID + SECOND, "e": ABORT}


def test_a_segfault_takes_its_line():
    segv = "your code's process was killed by signal 11 (Segmentation fault) during py"
    out = _attach([("s", segv), ("a", ABORT)])
    assert out == {"s": segv + SAID + FIRST, "a": ABORT + SAID + SECOND}


def test_a_hidden_test_takes_its_line_unshown():
    out = _attach([("h", ABORT), ("d", ABORT)], hidden={"h"})
    assert out == {"h": ABORT, "d": ABORT + SAID + SECOND}


def test_a_passed_test_gets_nothing():
    item = Item("11", "test", "a", 3, status=PASSED, output="passed")
    fatal_lines.attach([item], {"a": ABORT}, STUDENT_OUTPUT)
    assert item.output == "passed"
