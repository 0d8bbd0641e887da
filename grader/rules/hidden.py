"""Instructor-only tests: `make grade HIDDEN=dir` (grader --hidden, or MLMEM_HIDDEN_TESTS) adds
the tests of dir/<lab slug>/ to that lab's build and score.

    dir/lab03-tensor-strides/hidden.toml   [[tests]] name, points (as in lab.toml)
    dir/lab03-tensor-strides/*.c           Check tests written with MM_TEST (each registers
                                           itself, as the lab's own tests do)

A hidden test's failure shows no details (its message would reveal the test); passes, crashes
and timeouts are reported as for any test."""
from __future__ import annotations

import dataclasses
import glob
import os

from . import config
from .labs import Lab, LabError, Test, entries, read_test

WITHHELD = "failed (a hidden test: the course staff withhold its details)"


def extend(lab: Lab, root: str | None) -> Lab:
    """`lab` with the hidden tests of root/<slug>/ added (the same lab if there are none)."""
    d = os.path.join(root, lab.slug) if root else ""
    if not d or not os.path.isdir(d):
        return lab
    path = os.path.join(d, "hidden.toml")
    if not os.path.isfile(path):
        raise LabError(f"{d}: no hidden.toml (its [[tests]] give each hidden test's name and "
                       "points)")
    tests = read(path)
    clash = {t.name for t in tests} & {t.name for t in lab.tests}
    if clash:
        raise LabError(f"{path}: hidden tests reuse published names: {', '.join(sorted(clash))}")
    files = sorted(glob.glob(os.path.join(d, "*.c")))
    if not files:
        raise LabError(f"{d}: hidden.toml but no .c test files")
    return dataclasses.replace(lab, tests=lab.tests + tests, extra_test_files=files)


def read(path: str) -> list[Test]:
    """The [[tests]] (name, points; nothing else) of a hidden.toml, as hidden Tests. Raises
    LabError (ConfigError) naming the file, the table and the key."""
    table, shown = config.read(path), config.shown(path)
    config.check_keys(table, ("tests",), f"{shown}: the top level")
    tests = [dataclasses.replace(t, hidden=True)
             for t in entries(table, "tests", read_test, shown)]
    if not tests:
        raise LabError(f"{shown}: needs [[tests]] with name and points")
    return tests
