"""`make batch SUBMISSIONS=dir [LAB=NN] [JOBS=2] [TIMEOUT=900]`: grades every submission in a
folder (one sub-folder per student) into one summary (summary.csv, summary.json) plus each
student's results.json. Unit tests run JOBS submissions at a time; benchmarks run one at a time
afterwards, so that performance is measured on an otherwise idle machine; a timed metric that a
run could not measure (its gate skipped) is measured again at the end, one student at a time, up
to RETRIES times, and what stays unmeasured is counted in summary.csv's not_measured column. The
plan (plan.json, grader/classtools/batchplan.py) and each pass's status.json are files, so other
engines (grader/classtools/slurm.py) run the same passes and `grader merge` summarizes them. Each pass of each submission has a time
limit (TIMEOUT), a backstop: a submission that hangs is stopped well before it, its test program
one test timeout after its last test result (grader/grading/checkrun.py) and its benchmark at the lab's
bench_timeout_s, never run again (grader/grading/bench.py). A hang in code that every test calls still
costs one test timeout per test."""
from __future__ import annotations

import concurrent.futures
import csv
import json
import hashlib
import os
import subprocess
import sys
import time

from ..reports import report
from ..rules.labs import ROOT, Lab
from .batchplan import Plan, load_plan, plan, student_seed, tree_hash  # noqa: F401  (its API)


def _grade(src: str, out: str, parts: str, chosen: list[Lab], timeout: float,
           extra: list[str]) -> tuple[str, float]:
    """One pass of one submission in a grader subprocess. Returns (status, seconds)."""
    os.makedirs(out, exist_ok=True)
    cmd = [sys.executable, "-m", "grader", "grade", "--submission", src, "--out", out,
           "--parts", parts, "--staff", *extra]
    cmd += ["--lab", ",".join(lab.id for lab in chosen)]   # the batch's labs, not every lab
    start = time.monotonic()
    with open(os.path.join(out, "transcript.txt"), "w") as log:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
        try:
            rc = proc.wait(timeout=timeout)
            status = "ok" if rc == 0 else f"grader exit status {rc}"
        except subprocess.TimeoutExpired:
            proc.terminate()  # the grader unwinds and kills the student's processes
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            status = f"time limit ({timeout:g} s) reached: partial results"
    secs = time.monotonic() - start
    with open(os.path.join(out, "status.json"), "w") as f:
        json.dump({"status": status, "seconds": round(secs, 1)}, f)
    return status, secs


RETRIES = 2


def _load(path: str) -> dict:
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {"tests": []}


def _listed(parts: list[dict], key: str) -> list:
    """The lists extra_data[key] of the passes' results, one after the other."""
    return [x for p in parts for x in p.get("extra_data", {}).get(key, [])]


def _merge(parts: list[dict]) -> dict:
    """One results.json from the tests pass and the metrics pass of a student: their tests (one
    entry per name: a pass that reports an item another pass already did is not counted twice),
    notes (extra_data.notes, each once, and output joined for people), leaderboards, the run
    time of both, and per-lab totals (extra_data.labs: counted again from the tests kept; info
    and seed from the pass that has them)."""
    seen: set[str] = set()
    tests = []
    for t in (t for p in parts for t in p.get("tests", [])):
        if t.get("name") not in seen:
            seen.add(t.get("name"))
            tests.append(t)
    labs: dict[str, dict] = {}
    for p in parts:
        for lab, v in p.get("extra_data", {}).get("labs", {}).items():
            mine = labs.setdefault(lab, {})
            mine.update({k: x for k, x in v.items() if not isinstance(x, (int, float))})
    notes = []
    for n in _listed(parts, "notes"):
        if n not in notes:
            notes.append(n)
    out = {"score": round(sum(t["score"] for t in tests), 2),
           "execution_time": round(sum(p.get("execution_time", 0) for p in parts), 1),
           "tests": tests, "leaderboard": [e for p in parts for e in p.get("leaderboard", [])],
           "extra_data": {"max_score": round(sum(t["max_score"] for t in tests), 2),
                          "labs": labs, "notes": notes,
                          "not_measured": _listed(parts, "not_measured")}}
    _count_labs(out)
    said = []
    for p in parts:
        if p.get("output") and p["output"] not in said:
            said.append(p["output"])
    if said:
        out["output"] = "\n".join(said)
    return out


def _count_labs(res: dict) -> None:
    """Each lab's score, max_score and skipped_points in res's extra_data.labs, counted from
    res's tests (a lab with no tests listed keeps what it had)."""
    for lab, v in res["extra_data"].get("labs", {}).items():
        mine = [t for t in res["tests"] if report.entry_lab(t) == lab]
        v.update(score=round(sum(t["score"] for t in mine), 2),
                 max_score=round(sum(t["max_score"] for t in mine), 2),
                 skipped_points=round(sum(t["max_score"] for t in mine if report.skipped(t)), 2))


def _again(res: dict) -> bool:
    """Whether a metrics pass left something another run may measure (not hardware it lacks)."""
    return any(t.get("again") for t in res.get("extra_data", {}).get("not_measured", []))


def _measured_over(first: dict, later: dict) -> dict:
    """`first` with each item it left unmeasured taken from `later` where that run measured it;
    score, max_score and the per-lab totals counted again."""
    got = {t["name"]: t for t in later.get("tests", []) if not report.skipped(t)}
    tests = [got.get(t["name"], t) if report.skipped(t) else t for t in first.get("tests", [])]
    out = {**first, "tests": tests, "extra_data": dict(first.get("extra_data", {}))}
    out["extra_data"]["not_measured"] = [n for n in out["extra_data"].get("not_measured", [])
                                         if n["name"] not in got]
    out["score"] = round(sum(t["score"] for t in tests), 2)
    out["extra_data"]["labs"] = {k: dict(v) for k, v in out["extra_data"].get("labs", {}).items()}
    _count_labs(out)
    return out


def _remeasure(s: str, tree: str, out_dir: str, chosen: list[Lab], timeout: float,
               extra: list[str], out) -> None:
    """Measures again what the student's metrics pass could not (up to RETRIES runs), keeping
    in <student>/metrics/results.json every item any run measured."""
    path = os.path.join(out_dir, s, "metrics", "results.json")
    for k in range(1, RETRIES + 1):
        res = _load(path)
        if not _again(res):
            return
        again = os.path.join(out_dir, s, f"metrics-again{k}")
        status, secs = _grade(tree, again, "metrics", chosen, timeout, extra)
        merged = _measured_over(res, _load(os.path.join(again, "results.json")))
        with open(path, "w") as f:
            json.dump(merged, f, indent=2)
        left = len(merged["extra_data"]["not_measured"])
        out(f"  again   {s:<24} {secs:6.1f} s  {status}; {left} item(s) still not measured")


def _lab_scores(res: dict, chosen: list[Lab]) -> dict[str, float]:
    out = {}
    for lab in chosen:
        mine = [t for t in res["tests"] if report.entry_lab(t) == lab.id]
        out[f"lab{lab.id}"] = round(sum(t["score"] for t in mine), 2)
    return out


def tests_pass(p: Plan, s: str, out=print):
    """Student s's unit tests."""
    status, secs = _grade(p.trees[s], os.path.join(p.out_dir, s, "tests"), "tests", p.chosen,
                          p.timeout, p.args(s))
    out(f"  tests   {s:<24} {secs:6.1f} s  {status}")


def metrics_pass(p: Plan, out=print, students: list[str] | None = None):
    """The benchmarks of `students` (default: those whose metrics pass left no status: a job
    that was lost, never the finished ones), one at a time; then, again one at a time, what a
    run could not measure."""
    if not any(lab.metrics for lab in p.chosen):
        return
    students = missing(p, "metrics") if students is None else students
    out(f"benchmarks, one submission at a time ({len(students)} of {len(p.todo)})")
    for s in students:
        status, secs = _grade(p.trees[s], os.path.join(p.out_dir, s, "metrics"), "metrics",
                              p.chosen, p.timeout, p.args(s))
        out(f"  metrics {s:<24} {secs:6.1f} s  {status}")
    for s in students:   # later: a passing load has had time to go
        _remeasure(s, p.trees[s], p.out_dir, p.chosen, p.timeout, p.args(s), out)


def run(folder: str, chosen: list[Lab], out_dir: str, jobs: int, timeout: float,
        extra: list[str], out=print, fresh: bool = False, seed: str | None = None) -> list[dict]:
    """The local engine: unit tests `jobs` students at a time, then the benchmarks (every
    student's, in an output folder that held this very batch too)."""
    p = plan(folder, chosen, out_dir, timeout, extra, fresh, seed)
    out(f"batch: {len(p.trees)} submissions; unit tests {jobs} at a time; class seed "
        f"{p.class_seed} (SEED={p.class_seed} grades them again the same way)")
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        list(pool.map(lambda s: tests_pass(p, s, out), p.todo))
    metrics_pass(p, out, p.todo)
    return merge(p.out_dir, out)


def missing(p: Plan, part: str) -> list[str]:
    """Students whose `part` pass left no status: its job never ran or was killed (the grader
    itself always writes one, whatever the submission does)."""
    return [s for s in p.todo if not os.path.isfile(os.path.join(p.out_dir, s, part,
                                                                 "status.json"))]


def _status(p: Plan, s: str) -> str:
    """What the summary says of a student's passes: ok, no lab files, or what went wrong."""
    if not p.trees[s]:
        return "no lab files found"
    parts = ["tests"] + (["metrics"] if any(lab.metrics for lab in p.chosen) else [])
    said = []
    for part in parts:
        st = _load(os.path.join(p.out_dir, s, part, "status.json")).get("status", "not run")
        if st != "ok":
            said.append(f"{part}: {st}")
    return "; ".join(said) or "ok"


def merge(out_dir: str, out=print) -> list[dict]:
    """summary.csv, summary.json and one results.json per student from the passes' results in
    out_dir, whichever engine ran them (`grader merge OUT`)."""
    p = load_plan(out_dir)
    rows = {s: {"student": s, "seed": p.seeds.get(s, ""), "sha256": p.hashes.get(s, ""),
                "status": _status(p, s)} for s in sorted(p.trees)}
    table = _summarize(sorted(p.trees), rows, p.chosen, p.out_dir, out)
    _similarity(p.out_dir, out)
    _class_page(p, table, out)
    return table


def _class_page(p: Plan, table: list[dict], out):
    """summary.html (reports/class_report.py); a failure is said and changes nothing."""
    from ..reports import class_report
    try:
        path = class_report.write(p.out_dir, p.chosen, table, p.class_seed, p.machine)
        out(f"class page: {os.path.relpath(path)} (histograms, failure matrix, similarity)")
    except (OSError, ValueError, KeyError) as e:
        out(f"  note: no summary.html ({e})")


def _similarity(out_dir: str, out):
    """The class's similarity check (similarity.py); a failure is said and changes nothing."""
    from . import similarity
    try:
        similarity.check(out_dir, out=out)
    except (OSError, subprocess.SubprocessError) as e:
        out(f"  note: no similarity check ({e})")


def _page(folder: str, out):
    """The student's report.html beside their merged results.json, and the staff's copy,
    staff.html, which says why a hidden test failed (a failure changes no grade)."""
    from ..reports import html_report
    try:
        html_report.write(folder)
        html_report.write(folder, staff=True)
    except (OSError, ValueError, KeyError) as e:
        out(f"  note: no report.html for {os.path.basename(folder)} ({e})")


def _plots(out_dir: str, s: str):
    """<student>/report-run.json: the plots the metrics pass drew (saved for its own
    results.json) bound to the merged results.json, so the student's page shows them."""
    from ..reports import html_report
    saved = _load(os.path.join(out_dir, s, "metrics", html_report.RUN_FILE)).get("plots")
    with open(os.path.join(out_dir, s, "results.json"), "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    with open(os.path.join(out_dir, s, html_report.RUN_FILE), "w") as f:
        json.dump({"results_sha256": digest, "plots": saved or {}}, f)


def _staff(out_dir: str, s: str):
    """<student>/staff.json: the withheld messages of both passes (report.staff_json)."""
    withheld = {}
    for part in ("tests", "metrics"):
        withheld.update(_load(os.path.join(out_dir, s, part, report.STAFF_FILE)).get("withheld")
                        or {})
    with open(os.path.join(out_dir, s, report.STAFF_FILE), "w") as f:
        json.dump({"withheld": withheld}, f, indent=2)


def _summarize(students, rows, chosen, out_dir, out) -> list[dict]:
    table = []
    for s in students:
        res = _merge([_load(os.path.join(out_dir, s, p, "results.json"))
                      for p in ("tests", "metrics")])
        os.makedirs(os.path.join(out_dir, s), exist_ok=True)
        with open(os.path.join(out_dir, s, "results.json"), "w") as f:
            json.dump(res, f, indent=2)
        _staff(out_dir, s)
        _plots(out_dir, s)
        _page(os.path.join(out_dir, s), out)
        table.append({**rows[s], "score": res["score"], "max_score": report.max_total(res),
                      "not_measured": round(sum(n["points"] for n in
                                                res["extra_data"]["not_measured"]), 2),
                      **_lab_scores(res, chosen)})
    cols = (["student", "seed", "sha256", "score", "max_score", "not_measured"] + [f"lab{l.id}" for l in chosen] +
            ["status"])
    with open(os.path.join(out_dir, "summary.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(table)
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump(table, f, indent=2)
    out(f"summary: {os.path.relpath(os.path.join(out_dir, 'summary.csv'))}, summary.json, "
        "and <student>/results.json, <student>/report.html (theirs), <student>/staff.html "
        "(yours: why hidden tests failed)")
    return table


def task(argv: list[str]) -> int:
    """`python3 -m grader.classtools.batch OUT tests N` (student N of the plan) or `OUT metrics`: one pass,
    as a job of another engine (grader/classtools/slurm.py) runs it."""
    p = load_plan(argv[0])
    if argv[1] == "tests":
        tests_pass(p, p.todo[int(argv[2])])
    else:
        metrics_pass(p)
    return 0


if __name__ == "__main__":
    sys.exit(task(sys.argv[1:]))
