"""A compiler that crashes (an internal compiler error) is the toolchain's fault, not the
student's: in the lab's own files the lab's items are skipped as the course's problem, with
what to report and no `make hint`; in the student's files the build fails as code that does not
compile does, still without the hint. An ordinary compile error is reported as before.
(gcc 12 for aarch64 once crashed at -O3 in lab 10's pristine oracle.c and the student was told
"BUILD FAILED ... stuck? `make hint LAB=10`".)"""

import pytest

from grader.grading import build, grade
from grader.rules import labs, variants
from grader.confinement import sandbox
from grader.rules.results import FAILED, SKIPPED

LAB = "lab10-roofline"
GCC_ICE = ("lab10-roofline/tests/oracle.c: In function 'tu_softmax_oracle':\n"
           "lab10-roofline/tests/oracle.c:36:6: internal compiler error: in "
           "vect_transform_reduction, at tree-vect-loop.cc:7457\n"
           "Please submit a full bug report, with preprocessed source (by using "
           "-freport-bug).\n")
CRASHES = [
    GCC_ICE,
    "gcc: internal compiler error: Segmentation fault signal terminated program cc1\n",
    "clang: error: clang frontend command failed due to signal (use -v to see invocation)\n",
    "clang: error: unable to execute command: Segmentation fault (core dumped)\n",
]
NOT_CRASHES = [
    "lab10-roofline/src/kernels.c:12:5: error: expected ';' before 'return'\n",
    "/usr/bin/ld: liblab.a(student.o): undefined reference to `tu_softmax'\n",
    "lab10-roofline/src/kernels.c:3:2: error: #error internal-compiler-error\n",
    "",
]


@pytest.mark.parametrize("log", CRASHES)
def test_a_crashing_compiler_is_recognized(log):
    assert build.compiler_crash("  CC      tests/oracle.c\n" + log)


@pytest.mark.parametrize("log", NOT_CRASHES)
def test_a_compile_error_is_not_a_crash(log):
    assert build.compiler_crash(log) == ""


def _fake_run(log, timed_out=False):
    def run(cmd, limits, cwd, env=None, **kw):
        if timed_out:
            return sandbox.RunResult(None, 9, True, log, "", 0, 0.1, limits)
        return sandbox.RunResult(4, None, False, log, "", 0, 0.1, limits)
    return run


def test_build_tells_where_the_compiler_crashed(monkeypatch):
    lab = labs.load(LAB)
    real_compile_student = build.compile_student
    monkeypatch.setattr(build, "compile_student", lambda *a: (True, "", ""))
    monkeypatch.setattr(build.sandbox, "run", _fake_run(GCC_ICE))
    built = build.build(lab, variants.SOLUTIONS, tag="crash-pristine")
    assert not built.ok and "vect_transform_reduction" in built.compiler_crash
    assert not built.crash_in_student
    # The student's step, as it runs (its sandbox run faked): a crash, then one at its limits.
    monkeypatch.setattr(build, "compile_student", real_compile_student)
    built = build.build(lab, variants.SOLUTIONS, tag="crash-student")
    assert built.compiler_crash and built.crash_in_student
    monkeypatch.setattr(build.sandbox, "run", _fake_run(GCC_ICE, timed_out=True))
    built = build.build(lab, variants.SOLUTIONS, tag="crash-limits")
    assert not built.ok and "took longer than" in built.log and not built.compiler_crash


def _graded(monkeypatch, tmp_path, built):
    lab = labs.load(LAB)
    monkeypatch.setattr(grade.build, "build", lambda *a, **k: built)
    out = []
    items = grade.Grading(variants.SOLUTIONS, None, out=out.append, results_dir=str(tmp_path)).run([lab])
    return items, "\n".join(out)


def test_a_crash_in_the_lab_s_files_is_the_course_s_problem(monkeypatch, tmp_path):
    built = build.Built(False, str(tmp_path), GCC_ICE, [],
                        compiler_crash=build.compiler_crash(GCC_ICE))
    items, out = _graded(monkeypatch, tmp_path, built)
    assert items and all(i.status == SKIPPED for i in items)
    assert "the compiler crashed compiling the lab's own files" in out
    assert "Not your fault" in out and "report it to the course staff" in out
    assert "make hint" not in out and "vect_transform_reduction" in out


def test_a_crash_in_the_student_s_files_fails_without_blame(monkeypatch, tmp_path):
    built = build.Built(False, str(tmp_path), GCC_ICE, [], crash_in_student=True,
                        compiler_crash=build.compiler_crash(GCC_ICE))
    items, out = _graded(monkeypatch, tmp_path, built)
    assert items and all(i.status == FAILED for i in items)
    assert "compiling your files" in out and "Not your fault" in out
    assert "make hint" not in out


def test_a_compile_error_is_still_the_student_s(monkeypatch, tmp_path):
    log = NOT_CRASHES[0]
    items, out = _graded(monkeypatch, tmp_path, build.Built(False, str(tmp_path), log, []))
    assert all(i.status == FAILED for i in items)
    assert "BUILD FAILED" in out and "make hint LAB=10" in out and "Not your fault" not in out
