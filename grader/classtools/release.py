"""`make release [DEST=dir]`: the student tree: this repository without solutions/, the
project's own tests and CI, as a fresh git repository with one commit (no history that could
hold a solution, no build outputs). Then verified: every lab builds and grades, correctness is
zero everywhere, and nothing distinctive of a solution appears anywhere in the tree (whole lines
or quoted token runs, found by grader/classtools/leaks.py)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

from . import leaks
from ..reports import report
from ..rules.config import ConfigError
from ..rules.labs import ROOT
from ..rules.results import Cause

# Paths (prefixes) that stay with the course staff.
# common/cudaemu/selftest/: its pipeline test is lab 05's part D, solved.
STAFF_ONLY = ("solutions/", "grader/tests/", ".ci/", "thresholds.toml", "common/cudaemu/selftest/")


def tree_files() -> list[str]:
    """The repository's files (tracked, plus new ones not ignored) that go to students."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    files = sorted({f for f in out.split("\0") if f})
    return [f for f in files if not f.startswith(STAFF_ONLY) and os.path.isfile(
        os.path.join(ROOT, f))]


def export(dest: str, git: bool = True) -> list[str]:
    """Copies the student tree to dest (which must not exist or be empty); with git, makes it a
    repository with a single commit. Returns the files copied; raises ConfigError when dest
    is a folder with something in it."""
    if os.path.isdir(dest) and os.listdir(dest):
        raise ConfigError(f"{dest} is not empty; choose another DEST or remove it")
    files = tree_files()
    for f in files:
        target = os.path.join(dest, f)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, f), target)
    if git:
        run = lambda *a: subprocess.run(["git", "-c", "user.name=mlmem", "-c",
                                         "user.email=mlmem@localhost", *a], cwd=dest, check=True,
                                        capture_output=True)
        run("init", "-q", "-b", "main")
        run("add", "-A")
        run("commit", "-q", "-m", "mlmem labs: student release")
    return files


def grade_check(dest: str, out=print) -> list[str]:
    """Grades the release's own skeletons with the release's own grader (tests only), in a
    temporary copy of dest, so that dest keeps only the student tree (no build/, no Python
    caches). Returns the problems: a lab that does not build, a test that passes."""
    import json
    problems = []
    with tempfile.TemporaryDirectory(prefix="mlmem-release-") as tmp:
        tree, res = os.path.join(tmp, "tree"), os.path.join(tmp, "results")
        shutil.copytree(dest, tree, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        proc = subprocess.run([sys.executable, "-m", "grader", "grade", "--submission", "labs",
                               "--parts", "tests", "--out", res], cwd=tree, capture_output=True,
                              text=True, timeout=3600)
        if proc.returncode != 0:
            return [f"the release's grader failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}"]
        with open(os.path.join(res, "results.json")) as f:
            results = json.load(f)
    for t in results["tests"]:
        if report.entry_data(t).get("cause") == Cause.NOT_BUILT:
            problems.append(f"{t['name']}: {t['output'].splitlines()[0]}")
        elif t.get("status") == "passed" or t["score"] > 0:
            problems.append(f"{t['name']}: the skeleton passes it")
    out(f"  graded the release's skeletons: {len(results['tests'])} tests, "
        f"{len(problems)} problems")
    return problems


def run(dest: str, out=print) -> int:
    files = export(dest)
    out(f"release: {len(files)} files in {dest} (one commit, no solutions)")
    tree = tree_files()
    wanted = leaks.distinctive_lines(tree)
    problems = [f"solution code in the release: {x}" for x in leaks.leaks(dest, wanted)]
    out(f"  searched for {len(wanted)} distinctive solution lines: {len(problems)} found")
    at = {p.split(" <- ")[0].rsplit(" ", 1)[-1] for p in problems}
    windows = leaks.distinctive_windows(tree)
    quotes = [f"solution expression quoted in the release: {x}"
              for x in leaks.token_leaks(dest, windows)
              if x.split(" <- ")[0] not in at]
    out(f"  searched for {len(windows)} runs of {leaks.WINDOW} solution tokens (prose included): "
        f"{len(quotes)} found")
    problems += quotes
    problems += grade_check(dest, out)
    for p in problems:
        out("  PROBLEM " + p)
    out("release verified" if not problems else "release NOT verified")
    return 1 if problems else 0
