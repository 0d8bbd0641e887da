"""`make batch ENGINE=slurm`: a batch (grader/classtools/batch.py's plan) graded as Slurm jobs: the unit
tests as an array job, one task per student, and the benchmarks as one `--exclusive` job that
starts when the array has ended (they must have the node to themselves; it grades the students
whose benchmarks left no result, never the finished ones). With --wait it waits for
each, re-submits the passes whose job never finished (a node failure, the node's time limit, a job
cancelled by someone: no status was written; the grader itself always writes one, whatever the
submission does), up to RESUBMITS times, and merges the results. Without it, it returns once the
jobs are queued; `make batch-collect` later re-submits what is missing or merges."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

from . import batch
from ..rules.config import ConfigError
from ..rules.labs import ROOT

RESUBMITS = 2


def _sbatch(p: batch.Plan, args: list[str], command: str, wait: bool) -> str:
    """Submits `command` (run by sh in the job, from the repository) and returns the job id."""
    if not shutil.which("sbatch"):
        raise ConfigError("ENGINE=slurm needs Slurm's sbatch on the PATH (a login node)")
    logs = os.path.join(p.out_dir, "slurm")
    os.makedirs(logs, exist_ok=True)
    name = "%x-%A_%a.log" if any(a.startswith("--array") for a in args) else "%x-%j.log"
    cmd = ["sbatch", "--parsable", f"--chdir={ROOT}", f"--output={logs}/{name}",
           *args, *(["--wait"] if wait else []), f"--wrap={command}"]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0 and not (wait and res.stdout.strip()):
        raise ConfigError(f"sbatch refused the job: {res.stderr.strip() or res.stdout.strip()}")
    return res.stdout.strip().split(";")[0].splitlines()[0]


def _task(p: batch.Plan, what: str) -> str:
    return f"{sys.executable} -m grader.classtools.batch {p.out_dir} {what}"


def submit_tests(p: batch.Plan, students: list[str], extra: list[str], wait: bool) -> str:
    """The array job of the unit tests of `students`; its id."""
    idx = ",".join(str(p.todo.index(s)) for s in students)
    return _sbatch(p, ["--job-name=mlmem-tests", f"--array={idx}", "--cpus-per-task=1", *extra],
                   _task(p, "tests $SLURM_ARRAY_TASK_ID"), wait)


def submit_metrics(p: batch.Plan, extra: list[str], wait: bool, after: str | None) -> str:
    """The exclusive job of the benchmarks (and their measuring again); its id."""
    dep = [f"--dependency=afterany:{after}"] if after else []
    return _sbatch(p, ["--job-name=mlmem-metrics", "--exclusive", *dep, *extra],
                   _task(p, "metrics"), wait)


def _metrics_missing(p: batch.Plan) -> bool:
    return any(lab.metrics for lab in p.chosen) and bool(batch.missing(p, "metrics"))


def run(p: batch.Plan, extra: list[str], wait: bool, out=print) -> list[dict] | None:
    """Grades the plan on Slurm (see the module's words); the summary when waiting, else None."""
    tests = batch.missing(p, "tests")
    if len(tests) < len(p.todo):
        out(f"slurm: {os.path.relpath(p.out_dir)} holds this batch already; only what it lacks "
            "is submitted (FRESH=1 grades everything again)")
    if not tests and not _metrics_missing(p):
        return batch.merge(p.out_dir, out)
    if not wait:
        tid = submit_tests(p, tests, extra, False) if tests else None
        mid = submit_metrics(p, extra, False, tid) if _metrics_missing(p) else None
        out("slurm: " + ", ".join(f"{w} job {j}" for w, j in (("unit tests", tid),
                                                               ("benchmarks", mid)) if j) +
            f"; when they are done: make batch-collect OUT={os.path.relpath(p.out_dir)}")
        return None
    return collect(p, extra, out, first=True)


def collect(p: batch.Plan, extra: list[str], out=print, first: bool = False) -> list[dict]:
    """Runs (or re-runs, up to RESUBMITS times) the passes that left no status, waiting for
    each job, then merges."""
    for attempt in range(RESUBMITS + 1):
        todo = batch.missing(p, "tests")
        if todo:
            if not first or attempt:
                out(f"slurm: the unit tests of {', '.join(todo)} left no result: submitting again")
            submit_tests(p, todo, extra, True)
        if not batch.missing(p, "tests"):
            break
    for attempt in range(RESUBMITS + 1):
        if not _metrics_missing(p):
            break
        if not first or attempt:
            out("slurm: the benchmarks job left results missing: submitting it again")
        submit_metrics(p, extra, True, None)
    return batch.merge(p.out_dir, out)
