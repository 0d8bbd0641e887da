"""Shared helpers for the grader's own tests: grading a submission tree in a subprocess, as
`make grade` does, with results written to a private folder."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from grader.rules import labs, variants  # noqa: E402
from grader.confinement import sandbox  # noqa: E402

# The nvcc the build would use (common/flags.mk: CUDA_HOME's, else PATH's), or None.
_CUDA_NVCC = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")
NVCC = _CUDA_NVCC if os.access(_CUDA_NVCC, os.X_OK) else shutil.which("nvcc")

# Lab 08's four exhaustive tests sweep all 2^32 floats: about 40 s a grade, idle. The graders
# these tests start pass this on to them, which then check a seeded sample of 2^25 inputs;
# test_labs.py's test_lab08_sweeps_all_2_32_inputs grades with MLMEM_SAMPLE=0, the whole sweep.
os.environ.setdefault("MLMEM_SAMPLE", "1")

# The graders these tests start take their sandbox uids from a range of their own, so that
# "nothing left running" looks only at what the tests started.
SANDBOX_ENV = {"MLMEM_SANDBOX_UID": str(70000 + os.getpid() % 500 * sandbox.UID_SLOTS)}


def sandbox_leftovers() -> list[int]:
    """Processes still running under the tests' sandbox uids (as root; [] otherwise)."""
    if os.geteuid() != 0:
        return []
    base = int(SANDBOX_ENV["MLMEM_SANDBOX_UID"])
    return [p for uid in range(base, base + sandbox.UID_SLOTS) for p in sandbox.live_processes(uid)]


class Graded:
    def __init__(self, proc: subprocess.CompletedProcess, results: dict):
        self.stdout = proc.stdout
        self.returncode = proc.returncode
        self.results = results

    def items(self, lab: str) -> dict[str, dict]:
        """name (without 'labNN / ') -> the results.json entry, for the entries of lab `lab`."""
        return {t["name"].split(" / ", 1)[1]: t for t in self.results["tests"]
                if (t.get("extra_data") or {}).get("lab") == lab}

    def tests(self, lab: str) -> dict[str, dict]:
        return {k: v for k, v in self.items(lab).items() if not k.startswith("performance:")}

    def metrics(self, lab: str) -> dict[str, dict]:
        return {k.split(": ", 1)[1]: v for k, v in self.items(lab).items()
                if k.startswith("performance:")}


def grade(submission: str, lab: str | None, out: str, env: dict | None = None,
          extra: list[str] | None = None, timeout: float = 900) -> Graded:
    cmd = [sys.executable, "-m", "grader", "grade", "--submission", submission, "--out", out]
    cmd += ["--lab", lab] if lab else []
    cmd += extra or []
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})
    try:
        with open(os.path.join(out, "results.json")) as f:
            results = json.load(f)
    except OSError:
        results = {}
    if proc.returncode != 0:
        print(proc.stdout, proc.stderr)
    return Graded(proc, results)


def batch_results(out: str, student: str) -> dict:
    """The results.json that a batch (`grader batch --out out`) wrote for one student."""
    with open(os.path.join(out, student, "results.json")) as f:
        return json.load(f)


@pytest.fixture(scope="session")
def all_labs():
    return [labs.load(s) for s in labs.slugs()]


@pytest.fixture
def make_variant(tmp_path):
    """make_variant(slug, patches, base=solutions) -> a submission tree in tmp_path."""
    def _make(slug, patches, base=variants.SOLUTIONS, name="sub"):
        return variants.make(slug, str(tmp_path / name), patches, base)
    return _make


def pytest_addoption(parser):
    parser.addoption("--lab", action="append", default=[], metavar="NN",
                     help="only the tests that concern lab NN (repeatable)")


def _labs_of(item) -> set[str]:
    """The lab ids an item concerns: its `lab` marks, and the labs its parameters name (a slug
    'labNN-topic', a file named after one, or a bare id 'NN')."""
    ids = {str(a) for m in item.iter_markers("lab") for a in m.args}
    known = {lab_id for lab_id, _ in _LAB_IDS}
    for value in getattr(getattr(item, "callspec", None), "params", {}).values():
        text = os.path.basename(str(value))
        if text in known:
            ids.add(text)
        ids.update(lab_id for lab_id, slug in _LAB_IDS if text.startswith(f"lab{lab_id}"))
    return ids


_LAB_IDS = [(s.split("-", 1)[0][3:], s) for s in labs.slugs()]


# Modules whose tests share something two pytest workers must not make at once (a Slurm daemon, a
# guest, a build folder outside the grader's build locks, a scaffolded copy, a grade made once for
# the module): `make test` runs with pytest-xdist's --dist loadgroup, which keeps each group on
# one worker.
ONE_WORKER = ("test_numa_guest", "test_slurm", "test_lab12_kemu", "test_seeds", "test_make_grade",
              "test_newlab", "test_lab10_bench")


# Modules whose tests of one lab reuse one build folder: a lab's tests run on one worker, one
# after another (a group per lab), and the labs spread over the workers.
ONE_WORKER_PER_LAB = ("test_native",)

# The modules whose tests or groups take minutes each, longest first: the workers are handed work
# in this order (xdist gives it out in collection order), so that no worker is left with a long
# one at the end while the other idles. The rest follow as collected.
LONG_FIRST = ("test_numa_guest", "test_hangs", "test_slurm", "test_labs", "test_native",
              "test_batch", "test_package", "test_lab10_bench", "test_integrity", "test_boundary")


def _long_first(item) -> int:
    name = item.module.__name__
    return LONG_FIRST.index(name) if name in LONG_FIRST else len(LONG_FIRST)


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config, items):
    items.sort(key=_long_first)   # stable: a module's tests stay together, in their order
    for item in items:
        if item.module.__name__ in ONE_WORKER:
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))
        elif item.module.__name__ in ONE_WORKER_PER_LAB:
            item.add_marker(pytest.mark.xdist_group(
                "-".join([item.module.__name__, *sorted(_labs_of(item))])))
    wanted = set(config.getoption("--lab"))
    if not wanted:
        return
    known = {lab_id for lab_id, _ in _LAB_IDS}
    unknown = wanted - known
    if unknown:
        raise pytest.UsageError(f"no lab {', '.join(sorted(unknown))} (labs: "
                                f"{' '.join(sorted(known))})")
    keep, drop = [], []
    for item in items:
        (keep if _labs_of(item) & wanted else drop).append(item)
    config.hook.pytest_deselected(items=drop)
    items[:] = keep
