"""`make batch SUBMISSIONS=dir [LAB=NN] [JOBS=2] [TIMEOUT=900]`: grades every submission in a
folder (one sub-folder per student) into one summary (summary.csv, summary.json) plus each
student's results.json. Unit tests run JOBS submissions at a time; benchmarks run one at a time
afterwards, so that performance is measured on an otherwise idle machine. Each pass of each
submission has a time limit (TIMEOUT), a backstop: a submission that hangs is stopped well before
it, its test program one test timeout after its last test result (grader/checkrun.py) and its
benchmark at the lab's bench_timeout_s, never run again (grader/bench.py). A hang in code that
every test calls still costs one test timeout per test."""
from __future__ import annotations

import concurrent.futures
import csv
import json
import os
import subprocess
import sys
import time

from . import submission
from .labs import ROOT, Lab


def _grade(src: str, out: str, parts: str, chosen: list[Lab], timeout: float,
           extra: list[str]) -> tuple[str, float]:
    """One pass of one submission in a grader subprocess. Returns (status, seconds)."""
    os.makedirs(out, exist_ok=True)
    cmd = [sys.executable, "-m", "grader", "grade", "--submission", src, "--out", out,
           "--parts", parts, *extra]
    if len(chosen) == 1:
        cmd += ["--lab", chosen[0].id]
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
    return status, time.monotonic() - start


def _load(path: str) -> dict:
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {"tests": []}


def _merge(parts: list[dict]) -> dict:
    """One results.json from the tests pass and the metrics pass of a student: their tests, notes
    (output), leaderboards and per-lab totals (extra_data.labs: scores added up, info from the
    pass that has it)."""
    tests = [t for p in parts for t in p.get("tests", [])]
    scored = [t for t in tests if "status" in t]
    labs: dict[str, dict] = {}
    for p in parts:
        for lab, v in p.get("extra_data", {}).get("labs", {}).items():
            mine = labs.setdefault(lab, {})
            for k, x in v.items():
                mine[k] = round(mine.get(k, 0) + x, 2) if isinstance(x, (int, float)) else x
    out = {"score": round(sum(t["score"] for t in scored), 2),
           "max_score": round(sum(t["max_score"] for t in scored), 2),
           "tests": tests, "leaderboard": [e for p in parts for e in p.get("leaderboard", [])],
           "extra_data": {"labs": labs}}
    notes = [p["output"] for p in parts if p.get("output")]
    if notes:
        out["output"] = "\n".join(notes)
    return out


def _lab_scores(res: dict, chosen: list[Lab]) -> dict[str, float]:
    out = {}
    for lab in chosen:
        mine = [t for t in res["tests"] if t["name"].startswith(f"lab{lab.id} /")]
        out[f"lab{lab.id}"] = round(sum(t["score"] for t in mine), 2)
    return out


def run(folder: str, chosen: list[Lab], out_dir: str, jobs: int, timeout: float,
        extra: list[str], out=print) -> list[dict]:
    students = sorted(d for d in os.listdir(folder)
                      if os.path.isdir(os.path.join(folder, d)) and not d.startswith("."))
    trees, rows = {}, {}
    for s in students:
        trees[s] = submission.resolve(os.path.join(folder, s), chosen,
                                      os.path.join(out_dir, s, "tree"))
        rows[s] = {"student": s, "status": "ok" if trees[s] else "no lab files found"}
    todo = [s for s in students if trees[s]]
    out(f"batch: {len(students)} submissions; unit tests {jobs} at a time")
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futs = {pool.submit(_grade, trees[s], os.path.join(out_dir, s, "tests"), "tests",
                            chosen, timeout, extra): s for s in todo}
        for f in concurrent.futures.as_completed(futs):
            s = futs[f]
            status, secs = f.result()
            rows[s]["status"] = status
            out(f"  tests   {s:<24} {secs:6.1f} s  {status}")
    if any(lab.metrics for lab in chosen):
        out("benchmarks, one submission at a time")
        for s in todo:
            status, secs = _grade(trees[s], os.path.join(out_dir, s, "metrics"), "metrics",
                                  chosen, timeout, extra)
            if status != "ok":
                rows[s]["status"] = status
            out(f"  metrics {s:<24} {secs:6.1f} s  {status}")
    return _summarize(students, rows, chosen, out_dir, out)


def _summarize(students, rows, chosen, out_dir, out) -> list[dict]:
    table = []
    for s in students:
        res = _merge([_load(os.path.join(out_dir, s, p, "results.json"))
                      for p in ("tests", "metrics")])
        os.makedirs(os.path.join(out_dir, s), exist_ok=True)
        with open(os.path.join(out_dir, s, "results.json"), "w") as f:
            json.dump(res, f, indent=2)
        table.append({**rows[s], "score": res["score"], "max_score": res["max_score"],
                      **_lab_scores(res, chosen)})
    cols = ["student", "score", "max_score"] + [f"lab{l.id}" for l in chosen] + ["status"]
    with open(os.path.join(out_dir, "summary.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(table)
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump(table, f, indent=2)
    out(f"summary: {os.path.relpath(os.path.join(out_dir, 'summary.csv'))}, summary.json, "
        "and <student>/results.json")
    return table
