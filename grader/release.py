"""`make release [DEST=dir]`: the student tree: this repository without solutions/, the
project's own tests and CI, as a fresh git repository with one commit (no history that could
hold a solution, no build outputs). Then verified: every lab builds and grades, correctness is
zero everywhere, and no line distinctive of a solution appears anywhere in the tree."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

from . import labs
from .labs import ROOT

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
    repository with a single commit. Returns the files copied."""
    if os.path.isdir(dest) and os.listdir(dest):
        raise SystemExit(f"mlmem: {dest} is not empty; choose another DEST or remove it")
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


def _norm(line: str) -> str:
    return " ".join(line.split())


def _code_lines(path: str) -> set[str]:
    try:
        with open(path, errors="replace") as f:
            return {_norm(l) for l in f}
    except OSError:
        return set()


def _public_code(files: list[str], editable: set[str]) -> set[str]:
    """Every line of the student tree's code files other than the editable skeletons (headers,
    tests, baselines, common/): a solution line found there gives nothing away."""
    lines = set()
    for f in files:
        if f.endswith((".c", ".h", ".cu")) and f not in editable:
            lines |= _code_lines(os.path.join(ROOT, f))
    return lines


def distinctive_lines() -> dict[str, str]:
    """Lines of the solutions found neither in the skeleton of the same file nor in the student
    tree's other code, and long enough to be code written for the answer (normalized line ->
    solution file:line)."""
    all_labs = [labs.load(s) for s in labs.slugs()]
    editable = {f"labs/{lab.slug}/{rel}" for lab in all_labs for rel in lab.editable}
    public = _public_code(tree_files(), editable)
    out = {}
    sol_root = os.path.join(ROOT, "solutions")
    for d, _, files in os.walk(sol_root):
        for f in files:
            if not f.endswith((".c", ".h", ".cu")):
                continue
            path = os.path.join(d, f)
            rel = os.path.relpath(path, sol_root)
            skeleton = _code_lines(os.path.join(labs.LABS_DIR, rel))
            with open(path, errors="replace") as fh:
                for n, line in enumerate(fh, 1):
                    s = _norm(line)
                    if (len(s) >= 24 and s not in skeleton and s not in public and
                            not s.startswith(("/*", "*", "//", "#include"))):
                        out.setdefault(s, f"solutions/{rel}:{n}")
    return out


def leaks(dest: str, wanted: dict[str, str] | None = None) -> list[str]:
    """Where distinctive solution lines (`wanted`, default distinctive_lines()) occur in the tree
    at dest ('file:line <- source')."""
    wanted = distinctive_lines() if wanted is None else wanted
    found = []
    for d, dirs, files in os.walk(dest):
        dirs[:] = [x for x in dirs if x != ".git"]
        for f in files:
            path = os.path.join(d, f)
            try:
                with open(path, errors="strict") as fh:
                    lines = fh.readlines()
            except (OSError, UnicodeDecodeError):
                continue
            for n, line in enumerate(lines, 1):
                src = wanted.get(_norm(line))
                if src:
                    found.append(f"{os.path.relpath(path, dest)}:{n} <- {src}")
    return found


def grade_check(dest: str, out=print) -> list[str]:
    """Grades the release's own skeletons with the release's own grader (tests only). Returns
    the problems: a lab that does not build, a test that passes."""
    import json
    problems = []
    with tempfile.TemporaryDirectory() as res:
        proc = subprocess.run([sys.executable, "-m", "grader", "grade", "--submission", "labs",
                               "--parts", "tests", "--out", res], cwd=dest, capture_output=True,
                              text=True, timeout=3600)
        if proc.returncode != 0:
            return [f"the release's grader failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}"]
        with open(os.path.join(res, "results.json")) as f:
            results = json.load(f)
    for t in results["tests"]:
        if "does not compile" in t.get("output", ""):
            problems.append(f"{t['name']}: {t['output'].splitlines()[0]}")
        elif t.get("status") == "passed" or t["score"] > 0:
            problems.append(f"{t['name']}: the skeleton passes it")
    out(f"  graded the release's skeletons: {len(results['tests'])} tests, "
        f"{len(problems)} problems")
    return problems


def run(dest: str, out=print) -> int:
    files = export(dest)
    out(f"release: {len(files)} files in {dest} (one commit, no solutions)")
    wanted = distinctive_lines()
    problems = [f"solution code in the release: {x}" for x in leaks(dest, wanted)]
    out(f"  searched for {len(wanted)} distinctive solution lines: {len(problems)} found")
    problems += grade_check(dest, out)
    for p in problems:
        out("  PROBLEM " + p)
    out("release verified" if not problems else "release NOT verified")
    return 1 if problems else 0
