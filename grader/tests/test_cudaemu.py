"""The emulated CUDA device (common/cudaemu/): its unit tests built warning-free with gcc and
clang and passing, clean under ASan+UBSan and TSan; its numbers and declarations the same as the
CUDA toolkit's where the toolkit's headers exist; and labs 05 and 07 graded on it
(MLMEM_CUDA=emulate): the solutions in full with every GPU test run, the skeletons at 0, and a
pipeline without its slot waits caught in race mode."""
import os
import shutil
import subprocess

import pytest

from conftest import ROOT, SANDBOX_ENV, grade

pytestmark = pytest.mark.slow

SELFTEST = "common/cudaemu/selftest"
SANITIZER_REPORTS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
                     "WARNING: ThreadSanitizer")
CUDA_HOME = os.environ.get("CUDA_HOME", "/usr/local/cuda")  # common/flags.mk's default


def build(cc: str | None, san: str | None = None) -> str:
    """Builds the emulator's test program (warnings are errors); returns its path."""
    tag = "-".join(x for x in ("cudaemu", cc or "cc", san) if x)
    out = os.path.join(ROOT, "build", "selftest", tag)
    cmd = ["make", "-s", "-f", "common/lab-build.mk", f"LABSRC={SELFTEST}", f"OUT={out}",
           "WERROR=1"] + ([f"SAN={san}"] if san else [])
    env = {**os.environ, **({"CC": cc} if cc else {})}
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env)
    assert res.returncode == 0, res.stdout + res.stderr
    return os.path.join(out, "check_lab")


def run(prog: str, **env: str) -> tuple[int, str]:
    """Runs a Check program; returns its exit status and transcript."""
    env = {**os.environ, "CK_TIMEOUT_MULTIPLIER": "10", **env}
    env.pop("MLMEM_CUDA_RACE", None)  # the tests choose race mode themselves
    res = subprocess.run([prog], capture_output=True, text=True, timeout=600, env=env)
    return res.returncode, res.stdout + res.stderr


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_cudaemu_builds_and_passes(cc):
    if not shutil.which(cc):
        pytest.skip(f"no {cc}")
    rc, transcript = run(build(cc))
    assert rc == 0 and "Failures: 0, Errors: 0" in transcript, transcript[-6000:]


@pytest.mark.parametrize("san", ["asan", "tsan"])
def test_cudaemu_clean_under_sanitizer(san):
    rc, transcript = run(build(None, san), ASAN_OPTIONS="detect_leaks=1:abort_on_error=1",
                         TSAN_OPTIONS="halt_on_error=1:exitcode=66")
    reports = [r for r in SANITIZER_REPORTS if r in transcript]
    assert reports == [], transcript[-6000:]
    assert rc == 0 and "Failures: 0, Errors: 0" in transcript, transcript[-6000:]


def test_cudaemu_values_match_the_toolkit():
    """mm_cuda_abi_check.c compares every error number, flag, enum value, function type and
    the layout of cudaPointerAttributes with the toolkit's headers, at compile time."""
    if not os.path.exists(os.path.join(CUDA_HOME, "include", "cuda_runtime_api.h")):
        pytest.skip("no CUDA toolkit headers (set CUDA_HOME)")
    cmd = ["cc", "-std=gnu11", "-fsyntax-only", "-Wall", "-Werror", "-Icommon/cudaemu",
           f"-I{CUDA_HOME}/include", "common/cudaemu/mm_cuda_abi_check.c"]
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


CUDA_LABS = {"05": "lab05-pinned-transfers", "07": "lab07-caching-allocator"}
EMULATE = {**SANDBOX_ENV, "MLMEM_CUDA": "emulate"}


@pytest.mark.parametrize("lab", sorted(CUDA_LABS))
def test_lab_solution_passes_on_the_emulator(lab, tmp_path):
    """Every test of the lab, its GPU tests included, runs on the emulated device and passes."""
    g = grade("solutions", lab, str(tmp_path), env=EMULATE, extra=["--parts", "tests"])
    tests = g.tests(lab)
    assert tests, g.stdout
    not_passed = {k: v["output"] for k, v in tests.items() if v.get("status") != "passed"}
    assert not_passed == {}, g.stdout[-4000:]
    assert "CUDA: emulated device (MLMEM_CUDA=emulate)" in g.stdout, g.stdout[-4000:]


@pytest.mark.parametrize("lab", sorted(CUDA_LABS))
def test_lab_skeleton_scores_zero_on_the_emulator(lab, tmp_path):
    g = grade("labs", lab, str(tmp_path), env=EMULATE, extra=["--parts", "tests"])
    tests = g.tests(lab)
    assert tests and all(v["score"] == 0 for v in tests.values()), g.stdout[-4000:]
    assert not any(v.get("status") == "skipped" for v in tests.values()), g.stdout[-4000:]


def test_pipeline_without_slot_waits_fails_in_race_mode(make_variant, tmp_path):
    """Lab 05's solution with its cross-stream slot wait removed: the emulator's race mode
    (random delays before each work item) makes the reuse of a slot overwrite a chunk that is
    still being copied out, so the output is wrong. The delays are seeded but the streams'
    threads are scheduled by the machine: on a busy one a seed's delays can miss the window (seed
    1 did once, in a full `make test`), so up to three seeds are tried."""
    slug = CUDA_LABS["05"]
    sub = make_variant(slug, [{"file": "src/pipeline.c",
                               "old": "e = cudaStreamWaitEvent(s, p->done[c->slot], 0);",
                               "new": "e = cudaSuccess; /* no slot wait */"}])
    for seed in ("1", "2", "3"):
        g = grade(sub, "05", str(tmp_path / f"out-{seed}"),
                  env={**EMULATE, "MLMEM_CUDA_RACE": seed}, extra=["--parts", "tests"])
        t = g.tests("05")["test_gpu_pipeline_matches_host"]
        if t["status"] == "failed":
            break
    assert t["status"] == "failed", g.stdout[-4000:]
    assert "stream" in t.get("output", "") and "race" in t.get("output", "").lower(), t
