"""`make grade` and `make labNN` as a student uses them, on a copy of the student tree: a bare
`make grade` grades the lab built last and says so (every lab before any build, and with
SUBMISSION= or LAB=all); `make labNN SAN=...` builds into a folder of its own, so a sanitizer run
never reuses uninstrumented objects, and the grader names its folders the same way."""
import json
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT
from grader.grading import build
from grader.classtools import handin, release
from grader.rules import labs
from grader.__main__ import grade_labs

LAB03 = "lab03-tensor-strides"


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """A student's clone (the release's files), in which `make lab03` has run."""
    dest = tmp_path_factory.mktemp("student") / "mlmem"
    release.export(str(dest), git=False)
    proc = make(dest, "lab03")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return dest


def make(tree, *args, timeout=600):
    return subprocess.run(["make", *args], cwd=tree, capture_output=True, text=True,
                          timeout=timeout)


def grader_line(*args) -> str:
    """The grader command `make grade ARGS` runs (make -n prints it)."""
    proc = make(ROOT, "-n", "grade", *args)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip().splitlines()[-1].split("-m grader", 1)[1]


def test_make_grade_passes_which_labs():
    assert "--lab last " in grader_line()
    assert "--lab all " in grader_line("LAB=all")
    assert "--lab 03 " in grader_line("LAB=03")
    staff = grader_line("SUBMISSION=solutions")
    assert "--lab" not in staff and '--submission "solutions"' in staff, "staff: every lab"
    assert "--lab 01 " in grader_line("SUBMISSION=solutions", "LAB=01")


def _stamp(build_dir, name, age, flags=""):
    d = build_dir / "labs" / name
    os.makedirs(d, exist_ok=True)
    (d / "made").write_text(flags + "\n")
    os.utime(d / "made", (1_700_000_000 - age, 1_700_000_000 - age))


def test_last_built_lab_and_what_it_says(tmp_path, monkeypatch):
    monkeypatch.setattr(build, "LABS_BUILD_DIR", str(tmp_path / "labs"))
    monkeypatch.setattr(build, "GRADE_DIR", str(tmp_path / "grade"))
    said = []
    assert [l.slug for l in grade_labs("last", said.append)] == labs.slugs()
    assert "grading every lab: you have built none yet" in said[-1] and "make labNN" in said[-1]
    assert [l.slug for l in grade_labs("all", said.append)] == labs.slugs()
    assert [l.slug for l in grade_labs("3", said.append)] == [LAB03]

    _stamp(tmp_path, "lab01-cache-lines", 100)
    _stamp(tmp_path, LAB03, 10)
    _stamp(tmp_path, f"{LAB03}-asan", 5, "SAN=asan")
    # a grade of every lab leaves lab 08's stage newest: grading it is not building it
    stage = tmp_path / "grade" / "labs" / "lab08-mixed-precision" / "out"
    os.makedirs(tmp_path / "grade" / "labs" / "lab08-mixed-precision" / "stage")
    os.makedirs(stage)
    (stage / "check_lab").write_bytes(b"")
    chosen = grade_labs("last", said.append)
    assert [l.slug for l in chosen] == [LAB03]
    assert said[-1].startswith("mlmem: grading lab 03, the lab you built last (make lab03 "
                               "SAN=asan at "), said[-1]
    assert "`make grade LAB=all` for every lab" in said[-1]
    # make handin still takes a lab graded last
    assert handin.last_touched()[0].slug == "lab08-mixed-precision"


@pytest.mark.slow
def test_make_grade_grades_the_lab_built_last(tree):
    (tree / "build" / "grade").mkdir(parents=True, exist_ok=True)
    proc = make(tree, "grade")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    first = proc.stdout.splitlines()[0]
    assert re.match(r"mlmem: grading lab 03, the lab you built last \(make lab03 (CC=\S+ )?at ",
                    first), first
    assert "`make grade LAB=all` for every lab" in first
    with open(tree / "build" / "grade" / "results.json") as f:
        res = json.load(f)
    graded = {t["name"].split(" / ")[0] for t in res["tests"]}
    assert graded == {"lab03"}, graded
    # `make lab01`, then `make lab03` again with nothing to rebuild: lab 03 is still the last
    assert make(tree, "lab01").returncode == 0
    assert make(tree, "lab03").returncode == 0
    proc = subprocess.run([sys.executable, "-c", "from grader.classtools import handin; "
                           "print(handin.last_touched(graded=False)[1])"],
                          cwd=tree, capture_output=True, text=True)
    assert re.match(r"make lab03 (CC=\S+ )?at ", proc.stdout), proc.stdout + proc.stderr


def _symbols(path) -> str:
    return subprocess.run(["nm", path], capture_output=True, text=True).stdout


@pytest.mark.slow
def test_sanitizer_build_has_its_own_folder(tree):
    cc = build.flags_tag()   # the compiler's part: '' for cc/gcc
    plain = tree / "build" / "labs" / (LAB03 + cc)
    before = (plain / "check_lab").stat().st_mtime_ns
    proc = make(tree, "lab03", "SAN=asan")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    folder = f"build/labs/{LAB03}-asan{cc}/"
    assert f"building into {folder}" in proc.stdout.splitlines()[0], proc.stdout[:500]
    asan = tree / folder
    assert "__asan_init" in _symbols(asan / "obj" / "student.o"), "instrumented"
    assert "__asan_init" not in _symbols(plain / "obj" / "student.o")
    assert (plain / "check_lab").stat().st_mtime_ns == before, "the plain build is untouched"
    # back to the plain build: nothing to rebuild, and its objects stay uninstrumented
    proc = make(tree, "lab03")
    assert proc.returncode == 0 and "  CC " not in proc.stdout, proc.stdout[:500]
    assert ("building into" in proc.stdout) == bool(cc), "said only for flags (CC=clang is one)"
    proc = make(tree, "lab03", "SAN=bogus")
    assert proc.returncode != 0 and "SAN must be asan, ubsan or tsan" in proc.stdout + proc.stderr


def test_grader_folders_follow_the_flags(monkeypatch):
    monkeypatch.delenv("CC", raising=False)
    assert build.flags_tag() == ""
    assert build.flags_tag("asan") == "-asan"
    assert build.flags_tag("tsan", werror=True) == "-tsan-werror"
    monkeypatch.setenv("CC", "clang")
    assert build.flags_tag("ubsan") == "-ubsan-clang"
    # common/flags.mk names make labNN's folders alike
    proc = make(ROOT, "-n", "lab03", "SAN=ubsan", "WERROR=1", "CC=clang")
    assert f"build/labs/{LAB03}-ubsan-werror-clang" in proc.stdout, proc.stdout + proc.stderr


def lab_build_sees(slug: str, out, *args: str) -> str:
    """What common/lab-build.mk makes of labs/<slug> with these arguments (parsed, nothing
    built): the student's objects and the CUDA define, as 'a.o b.o|-DMM_HAVE_CUDA=1'."""
    show = "mm-show: ; @echo '$(notdir $(STUDENT_OBJS))|$(filter -DMM_HAVE_CUDA%,$(CPPFLAGS))'"
    proc = subprocess.run(["make", "-s", "--no-print-directory", "-f", "common/lab-build.mk",
                           f"LABSRC=labs/{slug}", f"OUT={out}", "--eval", show, "mm-show", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.strip().splitlines()[-1]


@pytest.mark.lab("07")
def test_the_build_takes_lab_toml_from_its_callers(tmp_path):
    """lab.toml's editable files and `cuda = true` reach the build only as make variables (what
    `make labNN` and the grader pass): without them a lab is built as common/selftest is."""
    lab = labs.load("lab07-caching-allocator")
    assert lab.cuda
    assert lab_build_sees(lab.slug, tmp_path, *lab.make_vars()) == \
        "allocator.o blockset.o sizes.o|-DMM_HAVE_CUDA=1"
    assert lab_build_sees(lab.slug, tmp_path) == "|"
