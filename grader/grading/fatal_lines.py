"""What the debug interpreter said when it stopped a student's process: CPython's debug build
checks every reference count and aborts on a broken one (Objects/object.c,
_Py_NegativeRefcount: "Assertion failed: object has negative ref count", then Py_FatalError),
printing to the student's stderr, which the harness never sees; with faulthandler on, a
segfault prints "Fatal Python error: Segmentation fault" too. The grader pairs those lines with
the tests whose process such a signal killed, in the order both happened, so a double release
reads as what it is and not as a bare signal. The lines come from the student's process:
diagnostics only, never a score."""
from __future__ import annotations

import re

from ..rules.results import PASSED, Item

# The first line worth quoting of one fatal error; a refcount check's line comes before the
# "Fatal Python error:" line that ends every fatal error.
REFCOUNT = "_Py_NegativeRefcount"
FATAL = "Fatal Python error:"
# A test whose process a signal ended that the interpreter reports (SIGABRT from Py_FatalError;
# SIGSEGV, SIGBUS, SIGFPE, SIGILL through faulthandler, which lab 11's harness enables): the
# harness's words (common/harness/mm_call.c) or Check's.
ABORTED = re.compile(r"(killed by|Received) signal (4|6|7|8|11)\b")
MAX_LINE = 300


def interpreter_errors(output: str) -> list[str]:
    """One line per fatal error of the interpreter in output, in order: its _Py_NegativeRefcount
    line where one came first, else its 'Fatal Python error:' line (each at most MAX_LINE)."""
    found, pending = [], None
    for line in output.splitlines():
        if REFCOUNT in line and pending is None:
            pending = line.strip()
        elif line.startswith(FATAL):
            found.append((pending or line.strip())[:MAX_LINE])
            pending = None
    return found


def attach(items: list[Item], messages: dict[str, str], student_output: str) -> None:
    """Pairs the interpreter errors of student_output, in order, with the tests whose message
    (messages: test name -> Check's message, in the order the tests ran) says ABORTED's signal ended their
    process, and appends each one's line to that test's item (not to a hidden test's: its
    message is withheld, but it takes its line)."""
    errors = iter(interpreter_errors(student_output))
    by_name = {i.name: i for i in items}
    for name, msg in messages.items():
        if not ABORTED.search(msg):
            continue
        line = next(errors, None)
        if line is None:
            return
        item = by_name.get(name)
        if item is not None and not item.hidden and item.status != PASSED:
            item.output += f"\n  the debug interpreter, before it stopped your process: {line}"
