"""`make handin`: on a copy of the student tree (the release, as a student clones it), the archive
holds exactly the lab's editable files, answers.md, the time log if kept and the grade of exactly
that code, never build output; without LAB it takes the lab built last and says so; errors name
what to fix; the unpacked archive is a submission the grader reads, answers included."""
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time

import pytest

from conftest import ROOT
from grader.grading import grade
from grader.rules import labs, submission
from grader.classtools import release
from grader.reports import report
from grader.rules.results import FAILED, PASSED, SKIPPED, Item

pytestmark = pytest.mark.slow

SLUG = "lab01-cache-lines"
ANSWERS = """# Lab 01 — your answers

This file is part of your submission (`make handin LAB=01`).

## Q1. Why is your speed-up what it is?

_Your answer:_
Two workers wrote one line.

## Q2. Where is your knee?

_Your answer:_

"""


@pytest.fixture
def tree(tmp_path):
    """A student's clone: the release's files (no git needed), with answers.md written."""
    dest = tmp_path / "mlmem"
    release.export(str(dest), git=False)
    (dest / "labs" / SLUG / "answers.md").write_text(ANSWERS)
    (dest / "labs" / SLUG / "timelog.md").unlink(missing_ok=True)
    return dest


def handin(tree, *args, make=False):
    cmd = (["make", "handin", *args] if make else
           [sys.executable, "-m", "grader.classtools.handin", *args])
    return subprocess.run(cmd, cwd=tree, capture_output=True, text=True, timeout=300)


def members(path) -> dict[str, bytes]:
    with tarfile.open(path) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


def expected(lab, *extra):
    return {f"{lab.slug}/{rel}" for rel in lab.editable + ["answers.md", "HANDIN.md", *extra]}


def test_archive_holds_exactly_the_submission(tree, tmp_path):
    lab = labs.load(SLUG)
    # build output a student has lying around: none of it may go in
    (tree / "labs" / SLUG / "src" / "stats.o").write_bytes(b"\x7fELF")
    os.makedirs(tree / "build" / "labs" / SLUG)
    (tree / "build" / "labs" / SLUG / "check_lab").write_bytes(b"\x7fELF")
    out = tmp_path / "out"
    proc = handin(tree, "LAB=01", "NOGRADE=1", f"DEST={out}", make=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = members(out / f"{SLUG}-handin.tar.gz")
    assert set(got) == expected(lab)
    for rel in lab.editable:
        assert got[f"{SLUG}/{rel}"] == (tree / "labs" / SLUG / rel).read_bytes()
    assert got[f"{SLUG}/answers.md"].decode() == ANSWERS
    note = got[f"{SLUG}/HANDIN.md"].decode()
    assert "1 of 2 questions answered" in note and "you kept no time log" in note
    assert "grade: none" in note and "NOGRADE=1" in note
    assert "1 of 2 questions answered" in proc.stdout and "no time log" in proc.stdout
    assert not (tree / f"{SLUG}-handin.tar.gz").exists(), "DEST= moves it"


def test_timelog_and_the_grade_of_this_code_go_in(tree):
    lab = labs.load(SLUG)
    (tree / "labs" / SLUG / "timelog.md").write_text("- Mon: 2 h reading\n")
    _fake_grade(tree, lab)
    proc = handin(tree, "--lab", "1", "--no-grade")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = members(tree / f"{SLUG}-handin.tar.gz")
    assert set(got) == expected(lab, "timelog.md", "grade.txt", "grade.json")
    assert got[f"{SLUG}/timelog.md"] == b"- Mon: 2 h reading\n"
    text = got[f"{SLUG}/grade.txt"].decode()
    assert "PASS  test_line_size_matches_os" in text and "lab 01 total 2/5" in text, text
    assert "SKIP  counters_speedup" in text and "test_amat_one_level" not in text
    graded = json.loads(got[f"{SLUG}/grade.json"])
    assert {t["name"] for t in graded["tests"]} == {
        "lab01 / test_line_size_matches_os", "lab01 / test_slots_line_aligned",
        "lab01 / performance: counters_speedup"}, "only this lab's part of results.json"
    assert "TOTAL 2/5" in got[f"{SLUG}/HANDIN.md"].decode()
    # the code changes after the grade: that grade no longer describes it
    with open(tree / "labs" / SLUG / lab.editable[0], "a") as f:
        f.write("\n/* later */\n")
    proc = handin(tree, "--lab", "01", "--no-grade")
    got = members(tree / f"{SLUG}-handin.tar.gz")
    assert f"{SLUG}/grade.txt" not in got
    assert f"you changed {lab.editable[0]} since the latest `make grade`" in proc.stdout


def _fake_grade(tree, lab):
    """What `make grade LAB=01` leaves, written by the grader's own writers: results.json, the
    lab's score table, and the staged copy of the code it graded."""
    stage = tree / "build" / "grade" / "labs" / lab.slug / "stage"
    for rel in lab.editable:
        os.makedirs((stage / rel).parent, exist_ok=True)
        shutil.copyfile(tree / "labs" / lab.slug / rel, stage / rel)
    items = [Item("01", "test", "test_line_size_matches_os", 2, 2, PASSED, "passed"),
             Item("01", "test", "test_slots_line_aligned", 3, 0, FAILED, "slot 1 at offset 8\nmore"),
             Item("01", "metric", "counters_speedup", 0, 0, SKIPPED, "needs 2 cores"),
             Item("02", "test", "test_amat_one_level", 1, 1, PASSED, "passed")]
    results = tree / "build" / "grade"
    staged = {"01": {"submission": "labs", "stage": f"build/grade/labs/{lab.slug}/stage"}}
    report.write_results(str(results / "results.json"), items, 1.0, [], True, staged=staged)
    report.write_text(grade.table_path(str(results), "01"),
                      report.lab_table("01", items[:3]) + "\n")


def test_without_lab_the_lab_built_last(tree):
    for slug, age in (("lab03-tensor-strides", 0), (SLUG, 100)):
        d = tree / "build" / "labs" / slug
        os.makedirs(d)
        (d / "check_lab").write_bytes(b"")
        os.utime(d / "check_lab", (time.time() - age, time.time() - age))
    lab = labs.load("lab03-tensor-strides")
    (tree / "labs" / lab.slug / "answers.md").write_text("# Lab 03 — your answers\n")
    proc = handin(tree, "--no-grade")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no LAB given: lab 03 (lab03-tensor-strides), the lab you built or graded last" \
        in proc.stdout and "make lab03" in proc.stdout
    assert (tree / "lab03-tensor-strides-handin.tar.gz").exists()


def test_errors_say_what_to_do(tree):
    proc = handin(tree, "LAB=42", make=True)
    assert proc.returncode != 0 and "there is no lab '42'" in proc.stderr
    (tree / "labs" / SLUG / "answers.md").unlink()
    proc = handin(tree, "--lab", "01", "--no-grade")
    assert proc.returncode == 2
    assert f"labs/{SLUG}/answers.md is missing" in proc.stderr and "git checkout" in proc.stderr
    assert not (tree / f"{SLUG}-handin.tar.gz").exists()
    shutil.rmtree(tree / "build", ignore_errors=True)
    proc = handin(tree, "--no-grade")
    assert proc.returncode == 2 and "make handin LAB=NN" in proc.stderr


def test_the_archive_is_a_submission_answers_included(tree, tmp_path):
    lab = labs.load(SLUG)
    assert handin(tree, "--lab", "01", "--no-grade").returncode == 0
    unpacked = tmp_path / "alice"
    with tarfile.open(tree / f"{SLUG}-handin.tar.gz") as tar:
        tar.extractall(unpacked)
    resolved = submission.resolve(str(unpacked), [lab], str(tmp_path / "scratch"))
    assert resolved == str(unpacked)
    assert submission.answers(resolved, lab) == str(unpacked / SLUG / "answers.md")
    # loose files, as uploaded to Gradescope: answers.md goes with the code, never into a build
    loose = tmp_path / "upload"
    loose.mkdir()
    for rel in lab.editable + ["answers.md"]:
        shutil.copy(unpacked / SLUG / rel, loose)
    resolved = submission.resolve(str(loose), [lab], str(tmp_path / "scratch2"))
    assert submission.answers(resolved, lab) and "answers.md" not in lab.editable


def test_handin_is_in_make_help():
    proc = subprocess.run(["make", "help"], cwd=ROOT, capture_output=True, text=True)
    assert "make handin [LAB=NN]" in proc.stdout


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("git"), reason="needs root and git")
def test_commit_of_a_checkout_owned_by_another_uid(tmp_path, monkeypatch):
    """In a container (root) over a clone mounted from the host (the student's uid), git's
    ownership check would make the manifest say "(not a git repository)"; the commit is read."""
    from grader.classtools import handin
    repo = tmp_path / "clone"
    repo.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", f"safe.directory={repo}"]
    subprocess.run(git + ["init", "-q"], cwd=repo, check=True)
    (repo / "f").write_text("x\n")
    subprocess.run(git + ["add", "f"], cwd=repo, check=True)
    subprocess.run(git + ["commit", "-qm", "x"], cwd=repo, check=True)
    for d, dirs, files in os.walk(repo):
        for n in [d] + [os.path.join(d, x) for x in dirs + files]:
            os.lchown(n, 54321, 54321)
    plain = subprocess.run(["git", "describe", "--always"], cwd=repo, capture_output=True,
                           text=True, env={**os.environ, "HOME": str(tmp_path)})
    assert plain.returncode != 0, "git refuses a checkout another uid owns"
    monkeypatch.setattr(handin, "ROOT", str(repo))
    monkeypatch.setenv("HOME", str(tmp_path))
    got = handin._commit()
    assert got != "(not a git repository)" and len(got) >= 7, got
