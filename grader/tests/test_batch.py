"""Batch grading: a folder of submissions in the shapes students hand them in becomes one
summary; a submission that hangs is cut off at the time limit and the others are still graded."""
import csv
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, SANDBOX_ENV, batch_results, sandbox_leftovers
from grader.rules import labs, variants

SLUG = "lab01-cache-lines"


def batch(folder, out, *extra, timeout=1200):
    cmd = [sys.executable, "-m", "grader", "batch", str(folder), "--lab", "01", "--jobs", "2",
           "--out", str(out), *extra]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "MLMEM_TEST_TIMEOUT_S": "10", **SANDBOX_ENV})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with open(os.path.join(out, "summary.csv")) as f:
        return {r["student"]: r for r in csv.DictReader(f)}, proc.stdout


@pytest.mark.slow
def test_batch_grades_each_shape(tmp_path):
    subs = tmp_path / "subs"
    shutil.copytree(os.path.join(variants.SOLUTIONS, SLUG), subs / "alice" / "labs" / SLUG)
    loose = subs / "bob"
    loose.mkdir(parents=True)
    for f in ("counters.c", "stats.c", "linesize.c"):
        shutil.copy(os.path.join(variants.SOLUTIONS, SLUG, "src", f), loose / f)
    (subs / "carol").mkdir()
    (subs / "carol" / "notes.txt").write_text("nothing here")
    rows, out = batch(subs, tmp_path / "out")
    for who in ("alice", "bob"):     # all correctness points; the benchmark ran and was merged
        res = batch_results(str(tmp_path / "out"), who)
        tests = [t for t in res["tests"] if "performance" not in t["name"]]
        perf = [t for t in res["tests"] if "performance" in t["name"]]
        assert sum(t["score"] for t in tests) == 40 and len(perf) == 3, (who, res)
        assert float(rows[who]["score"]) == res["score"] >= 40
    assert rows["carol"]["status"] == "no lab files found" and float(rows["carol"]["score"]) == 0
    assert "benchmarks, one submission at a time" in out


@pytest.mark.slow
def test_batch_time_limit(make_variant, tmp_path):
    subs = tmp_path / "subs"
    # Every test that reads the counters spins: the grading outlasts the batch's time limit.
    entry = "uint64_t cl_counters_total(const cl_counters_t *c)\n{\n"
    hang = {"file": "src/counters.c", "old": entry, "new": entry + "    for (;;) {}\n"}
    variants.make(SLUG, str(subs / "dave"), [hang])
    rows, _ = batch(subs, tmp_path / "out", "--timeout", "8", timeout=300)
    assert "time limit" in rows["dave"]["status"] and float(rows["dave"]["score"]) == 0
    assert sandbox_leftovers() == []  # the cut-off grader took the student's processes along


def test_merge_keeps_notes_seeds_and_lab_totals():
    from grader.classtools import batch
    seed = "mlmem: seed 5 (replay with MLMEM_SEED=5)"
    tests_pass = {"tests": [{"name": "lab01 / t", "score": 1, "max_score": 2, "status": "failed",
                             "extra_data": {"lab": "01"}}],
                  "output": "lab 01: a note",
                  "extra_data": {"notes": [{"lab": "01", "text": "a note"}],
                                 "labs": {"01": {"score": 1, "max_score": 2, "skipped_points": 0,
                                                 "seed": seed}}}}
    metrics_pass = {"tests": [{"name": "lab01 / performance: m", "score": 3, "max_score": 3,
                               "status": "passed", "extra_data": {"lab": "01"}}],
                    "output": "lab 01: cut",
                    "extra_data": {"notes": [{"lab": "01", "text": "cut"}],
                                   "labs": {"01": {"score": 3, "max_score": 3, "skipped_points": 0,
                                                   "info": {"x": 1}}}}}
    m = batch._merge([tests_pass, metrics_pass])
    assert (m["score"], m["extra_data"]["max_score"]) == (4, 5)
    assert m["output"] == "lab 01: a note\nlab 01: cut"
    assert m["extra_data"]["notes"] == [{"lab": "01", "text": "a note"},
                                        {"lab": "01", "text": "cut"}]
    assert m["extra_data"]["labs"]["01"] == {"score": 4, "max_score": 5, "skipped_points": 0,
                                             "info": {"x": 1}, "seed": seed}
    assert batch._lab_scores(m, [labs.load(SLUG)]) == {"lab01": 4}


@pytest.mark.slow
def test_a_later_run_measures_what_the_first_could_not():
    """Batch grading measures skipped timed metrics again; what a later run measured replaces the
    skip, the maximum never moves, and what stays unmeasured is still listed."""
    from grader.classtools import batch
    skip = {"name": "lab01 / performance: m", "score": 0, "max_score": 5, "status": "failed",
            "extra_data": {"lab": "01", "skipped": True},
            "output": "SKIPPED (not yet measured): the machine was busy"}
    hw = {"name": "lab01 / performance: gpu", "score": 0, "max_score": 4, "status": "failed",
          "extra_data": {"lab": "01", "skipped": True},
          "output": "SKIPPED (not yet measured): needs a CUDA GPU"}
    first = {"score": 0, "tests": [skip, hw],
             "extra_data": {"max_score": 9,
                            "labs": {"01": {"score": 0, "max_score": 9, "skipped_points": 9}},
                            "not_measured": [{"name": skip["name"], "points": 5, "again": True},
                                             {"name": hw["name"], "points": 4, "again": False}]}}
    assert batch._again(first)
    later = {"tests": [{**skip, "score": 4.5, "extra_data": {"lab": "01"}, "output": "0.9x"}, hw]}
    m = batch._measured_over(first, later)
    assert (m["score"], m["extra_data"]["max_score"]) == (4.5, 9)
    assert m["extra_data"]["labs"]["01"] == {"score": 4.5, "max_score": 9, "skipped_points": 4}
    assert [n["name"] for n in m["extra_data"]["not_measured"]] == [hw["name"]]
    assert not batch._again(m), "hardware the machine lacks is not measured again"


def _not_built_pass(parts: str) -> dict:
    """results.json of one batch pass over lab 03 when it does not compile (no compiling)."""
    from grader.grading import build, grade
    from grader.reports import report
    lab = labs.load("lab03-tensor-strides")
    g = grade.Grading("subs/x", None, out=lambda *_: None, parts=parts)
    built = build.Built(False, "", "x.c:1:1: error: expected ';'", [])
    items = g._not_built(lab, built)
    g._run_note(lab, "build failed")
    return report.results_json(items, 1.0, g.notes, True)


def test_a_submission_that_does_not_compile_counts_each_item_once():
    """A batch grades tests and benchmarks in two passes: when the lab does not compile, each
    pass reports only its own items and one of them the build error, so the merged result is 0
    of the lab's maximum (once), every item listed once."""
    from grader.classtools import batch
    lab = labs.load("lab03-tensor-strides")
    most = sum(t.points for t in lab.tests) + sum(m.points for m in lab.metrics)
    m = batch._merge([_not_built_pass("tests"), _not_built_pass("metrics")])
    names = [t["name"] for t in m["tests"]]
    assert (m["score"], m["extra_data"]["max_score"]) == (0, most)
    assert len(names) == len(set(names)) == len(lab.tests) + len(lab.metrics)
    assert [n["text"] for n in m["extra_data"]["notes"]] == ["build failed"]
    assert m["execution_time"] == 2.0, "the run's time is both passes'"


def test_merge_counts_an_item_two_passes_report_once():
    from grader.classtools import batch
    t = {"name": "lab01 / t", "score": 0, "max_score": 2, "status": "failed",
         "extra_data": {"lab": "01"}}
    one = {"tests": [t], "extra_data": {"labs": {"01": {"score": 0, "max_score": 2}}}}
    m = batch._merge([one, one])
    assert (m["extra_data"]["max_score"], len(m["tests"])) == (2, 1)
    assert m["extra_data"]["labs"]["01"]["max_score"] == 2


def _class_of(root, names=("ann", "ben")):
    """A tiny class: each student a folder with one loose file (nothing is graded)."""
    for n in names:
        os.makedirs(root / n, exist_ok=True)
        (root / n / "view.c").write_text(f"/* {n} */\n")
    return root


def test_a_batch_folder_is_bound_to_its_lab_and_submissions(tmp_path):
    """An output folder holding one batch refuses another lab, another class or changed files,
    with the reason; the same batch resumes; --fresh starts over (the old summary is gone)."""
    from grader.classtools import batch
    from grader.rules.config import ConfigError
    subs, out = _class_of(tmp_path / "subs"), str(tmp_path / "out")
    lab03, lab09 = labs.select("03"), labs.select("09")
    batch.plan(str(subs), lab09, out, 60, [])
    (tmp_path / "out" / "summary.csv").write_text("student,lab09\nann,90\n")
    with pytest.raises(ConfigError, match="holds a batch of lab09-paged-kv-cache, not lab03"):
        batch.plan(str(subs), lab03, out, 60, [])
    with pytest.raises(ConfigError, match="submissions of"):
        batch.plan(str(_class_of(tmp_path / "other")), lab09, out, 60, [])
    batch.plan(str(subs), lab09, out, 60, [])            # the same batch: resumed
    (subs / "ben" / "view.c").write_text("/* changed */\n")
    with pytest.raises(ConfigError, match="files of ben changed"):
        batch.plan(str(subs), lab09, out, 60, [])
    p = batch.plan(str(subs), lab03, out, 60, [], fresh=True)
    assert p.labs == ["lab03-tensor-strides"] and not os.path.exists(tmp_path / "out" / "summary.csv")


def test_the_metrics_job_grades_only_the_benchmarks_that_were_lost(tmp_path, monkeypatch):
    """Collecting after a lost benchmarks job: the students whose benchmarks finished are not
    graded again; the local engine, given the class, grades every student."""
    from grader.classtools import batch
    subs = _class_of(tmp_path / "subs", ("ann", "ben", "cat"))
    p = batch.plan(str(subs), labs.select("03"), str(tmp_path / "out"), 60, [])
    graded = []

    def fake(src, out, parts, chosen, timeout, extra):
        graded.append(os.path.basename(os.path.dirname(out)))
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "status.json"), "w") as f:
            f.write('{"status": "ok", "seconds": 1}')
        return "ok", 1.0
    monkeypatch.setattr(batch, "_grade", fake)
    for s in ("ann", "cat"):
        fake("", os.path.join(p.out_dir, s, "metrics"), "", [], 0, [])
    graded.clear()
    batch.metrics_pass(p, out=lambda *_: None)
    assert graded == ["ben"]
    batch.metrics_pass(p, out=lambda *_: None, students=p.todo)
    assert graded == ["ben", "ann", "ben", "cat"]


def test_a_batch_students_page_gets_the_plots_of_their_benchmark(tmp_path):
    """The metrics pass drew the plots for its own results.json; the merged one (another file)
    takes them over, so report.html shows them."""
    from grader.classtools import batch
    from grader.reports import html_report
    figs = {"03": {"figures": [{"title": "T", "caption": "c", "png": "eA=="}], "notes": []}}
    os.makedirs(tmp_path / "ann" / "metrics")
    (tmp_path / "ann" / "metrics" / html_report.RUN_FILE).write_text(
        '{"results_sha256": "of the pass", "plots": %s}' % json.dumps(figs))
    (tmp_path / "ann" / "results.json").write_text('{"score": 1, "tests": []}')
    batch._plots(str(tmp_path), "ann")
    _, digest, _ = html_report.read_results(str(tmp_path / "ann"))
    assert html_report._run_plots(str(tmp_path / "ann"), digest) == figs


def test_a_batch_fixes_one_seed_per_student_from_the_class_seed(tmp_path, monkeypatch):
    """Each student's passes get a seed derived from the class seed and their folder's name:
    the same for a regrade, another for another student, recorded in plan.json; the folder's
    class seed is kept when none is given, and another one is refused."""
    from grader.classtools import batch
    from grader.rules.config import ConfigError
    subs, out = _class_of(tmp_path / "subs"), str(tmp_path / "out")
    p = batch.plan(str(subs), labs.select("03"), out, 60, [], seed="2026")
    assert p.seeds["ann"] == batch.student_seed("2026", "ann") != p.seeds["ben"]
    assert p.args("ann")[-2:] == ["--seed", p.seeds["ann"]]
    again = batch.plan(str(subs), labs.select("03"), out, 60, [])
    assert again.seeds == p.seeds and batch.load_plan(out).class_seed == "2026"
    with pytest.raises(ConfigError, match="class seed 2026, not 7"):
        batch.plan(str(subs), labs.select("03"), out, 60, [], seed="7")
    passes = []
    monkeypatch.setattr(batch, "_grade", lambda *a: passes.append(a[-1]) or ("ok", 0.0))
    batch.tests_pass(again, "ben", out=lambda *_: None)
    assert passes == [["--seed", p.seeds["ben"]]]


def test_a_batch_of_several_labs_grades_those_labs_only(tmp_path, monkeypatch):
    """LAB=03,09 names two labs; each pass's grader is told exactly those (it graded every lab
    of the course when a batch had more than one)."""
    chosen = labs.select("03,lab9,03")
    assert [lab.id for lab in chosen] == ["03", "09"]
    from grader.classtools import batch
    seen = []

    class Proc:
        def __init__(self, cmd, **kw):
            seen.append(cmd)

        def wait(self, timeout=None):
            return 0
    monkeypatch.setattr(batch.subprocess, "Popen", Proc)
    batch._grade(str(tmp_path), str(tmp_path / "o"), "tests", chosen, 60, [])
    assert seen[0][seen[0].index("--lab") + 1] == "03,09"
