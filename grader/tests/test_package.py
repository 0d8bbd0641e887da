"""`make release` and `make gradescope`: the student tree has no solutions and no history, its
skeletons build and score zero, a leaked solution line is caught; the Gradescope zip grades a
submission in a fake /autograder layout and writes results.json with a leaderboard."""
import json
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from conftest import ROOT
from grader.rules import labs, variants
from grader.classtools import leaks, release

pytestmark = pytest.mark.slow

SLUG = "lab01-cache-lines"
TIMED = "lab03-tensor-strides"      # a lab whose timed metrics are scored against the reference


def test_release_is_verified_and_has_no_solutions(tmp_path):
    dest = tmp_path / "mlmem"
    proc = subprocess.run([sys.executable, "-m", "grader", "release", "--dest", str(dest)],
                          cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0 and "release verified" in proc.stdout, proc.stdout + proc.stderr
    assert not (dest / "solutions").exists() and not (dest / "grader" / "tests").exists()
    assert not (dest / "common" / "cudaemu" / "selftest").exists(), "it holds lab 05's answer"
    log = subprocess.run(["git", "log", "--oneline"], cwd=dest, capture_output=True, text=True)
    assert len(log.stdout.splitlines()) == 1
    # A solution file copied over a skeleton is found, line by line.
    src = os.path.join(variants.SOLUTIONS, SLUG, "src", "counters.c")
    shutil.copy(src, dest / "labs" / SLUG / "src" / "counters.c")
    found = leaks.leaks(str(dest), leaks.distinctive_lines(release.tree_files()))
    assert found and all(f"labs/{SLUG}/src/counters.c:" in f for f in found)


def test_release_refuses_a_nonempty_destination(tmp_path):
    (tmp_path / "keep.txt").write_text("mine")
    proc = subprocess.run([sys.executable, "-m", "grader", "release", "--dest", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 and "not empty" in proc.stdout + proc.stderr
    assert (tmp_path / "keep.txt").read_text() == "mine"


HIDDEN_TOML = """[[tests]]
name = "test_hidden_transpose_square"
points = 2
visibility = "after_due_date"
"""
HIDDEN_C = """#include "copy.h"
#include "mm_call.h"
#include "mm_check.h"

MM_TEST(test_hidden_transpose_square)
{
    float *src = mm_shared_alloc(4 * sizeof *src), *dst = mm_shared_alloc(4 * sizeof *dst);
    for (int i = 0; i < 4; i++)
        src[i] = (float)(i + 1);
    MM_ASSERT_OK(tv_transpose2d_f32(src, 2, 2, 2, dst, 2));
    ck_assert(dst[1] == 3 && dst[2] == 2);
}
MM_END_TEST
"""


def test_gradescope_zip_grades_a_fake_autograder(tmp_path):
    zpath = tmp_path / "ag.zip"
    hidden = tmp_path / "hidden" / TIMED
    hidden.mkdir(parents=True)
    (hidden / "hidden.toml").write_text(HIDDEN_TOML)
    (hidden / "check_hidden.c").write_text(HIDDEN_C)
    proc = subprocess.run([sys.executable, "-m", "grader", "gradescope", "--lab", "03",
                           "--hidden", str(tmp_path / "hidden"), "--dest", str(zpath)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    ag = tmp_path / "autograder"
    (ag / "submission").mkdir(parents=True)
    with zipfile.ZipFile(zpath) as z:
        names = z.namelist()
        z.extractall(ag / "source")
    assert "run_autograder" in names and "setup.sh" in names
    assert not any(n.startswith("mlmem/solutions/") for n in names)
    assert f"reference/{TIMED}/src/copy.c" in names, "timed metrics are scored against it"
    lab = labs.load(TIMED)
    for rel in lab.editable:                               # an upload of just the edited files
        shutil.copy(os.path.join(variants.SOLUTIONS, TIMED, rel), ag / "submission")
    env = {**os.environ, "AUTOGRADER_ROOT": str(ag)}
    run = subprocess.run(["bash", str(ag / "source" / "run_autograder")], env=env,
                         capture_output=True, text=True, timeout=900)
    with open(ag / "results" / "results.json") as f:
        res = json.load(f)
    tests = [t for t in res["tests"] if "performance" not in t["name"]]
    assert sum(t["score"] for t in tests) == sum(t.points for t in lab.tests) + 2, run.stdout
    seen = {t["name"].split(" / ")[1]: t["visibility"] for t in res["tests"]}
    assert seen.pop("test_hidden_transpose_square") == "after_due_date", "hidden.toml's word"
    assert set(seen.values()) == {"visible"}
    assert (res["output_format"], res["test_output_format"]) == ("md", "md")
    assert all(t["name"].startswith("lab03 /") for t in res["tests"])
    timed = {m.name for m in lab.metrics if m.vs_reference}
    perf = {t["name"].split(": ", 1)[1]: t for t in res["tests"] if "performance" in t["name"]}
    for name in timed:
        t = perf[name]
        assert t["output"].startswith("SKIPPED") or "against the reference" in t["output"], t
    for private in ("reference", "hidden"):   # nothing private readable by the sandbox uid
        assert oct(os.stat(ag / "source" / private).st_mode & 0o077) == "0o0", private
    # Every metric this machine measured is on the leaderboard, whichever those are here.
    measured = {"lab03 " + n for n, t in perf.items() if not t["output"].startswith("SKIPPED")}
    assert {e["name"] for e in res.get("leaderboard", [])} == measured, run.stdout
