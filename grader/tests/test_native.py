"""The C side of `make test`: common/'s unit tests; every skeleton and solution built with
warnings as errors; every solution clean under ASan+UBSan, and under TSan where the lab's
lab.toml says it is threaded."""
import dataclasses
import os
import subprocess

import pytest

from conftest import ROOT
from grader.grading import build, checkrun
from grader.rules import labs

pytestmark = pytest.mark.slow

SLUGS = labs.slugs()
SANITIZER_REPORTS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
                     "WARNING: ThreadSanitizer")


def test_common_helpers():
    out = os.path.join(ROOT, "build", "selftest", "common")
    subprocess.run(["make", "-s", "-f", "common/lab-build.mk", "LABSRC=common/selftest",
                    f"OUT={out}", "WERROR=1"], cwd=ROOT, check=True)
    res = subprocess.run([os.path.join(out, "check_lab")], capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "Failures: 0, Errors: 0" in res.stdout


# A lab's four builds one after the other (conftest.py keeps a lab's tests on one worker), the
# skeleton's and the solution's with one compiler in one build folder: the second compiles only
# its student's files and links (staging renews their times; the pristine objects stay valid).
WERROR_CASES = [(cc, tree, slug) for slug in SLUGS for cc in ("gcc", "clang")
                for tree in ("solutions", "labs")]


@pytest.mark.parametrize("cc,tree,slug", WERROR_CASES, ids=["-".join(c) for c in WERROR_CASES])
def test_builds_without_warnings(slug, tree, cc, monkeypatch):
    """Students build with whatever their distribution ships: both compilers, no warnings."""
    monkeypatch.setenv("CC", cc)
    built = build.build(labs.load(slug), os.path.join(ROOT, tree), werror=True, tag="werror")
    assert built.ok, build.first_errors(built.log, 20)


def _sanitizer_cases():
    cases = []
    for slug in SLUGS:
        cases.append((slug, "asan"))
        if labs.load(slug).threaded:
            cases.append((slug, "tsan"))
    return cases


@pytest.mark.parametrize("slug,san", _sanitizer_cases())
def test_solution_clean_under_sanitizer(slug, san, tmp_path, monkeypatch):
    lab = labs.load(slug)
    built = build.build(lab, os.path.join(ROOT, "solutions"), variant=san, werror=True)
    assert built.ok, build.first_errors(built.log, 20)
    monkeypatch.setenv("CK_TIMEOUT_MULTIPLIER", "10")
    monkeypatch.setenv("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
    monkeypatch.setenv("TSAN_OPTIONS", "halt_on_error=1:exitcode=66")
    unlimited = dataclasses.replace(lab, address_space_mb=None)
    items, transcript, _ = checkrun.run_tests(unlimited, os.path.join(built.out_dir, "check_lab"),
                                           f"sanitizer-{slug}-{san}", None)
    reports = [r for r in SANITIZER_REPORTS if r in transcript]
    assert reports == [], transcript[-4000:]
    bad = {i.name: i.output for i in items if i.status not in ("passed", "skipped")}
    assert bad == {}, transcript[-4000:]
