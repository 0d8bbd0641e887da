"""The emulated CUDA device (common/cudaemu/): its unit tests built warning-free with gcc and
clang and passing, clean under ASan+UBSan and TSan; its numbers and declarations the same as the
CUDA toolkit's where the toolkit's headers exist; and no lab builds it yet."""
import os
import shutil
import subprocess

import pytest

from conftest import ROOT

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


@pytest.mark.parametrize("slug", ["lab05-pinned-transfers", "lab07-caching-allocator"])
def test_labs_do_not_build_the_emulator_yet(slug, tmp_path):
    """The emulator defines the CUDA runtime's functions: until the labs choose between it and
    the real runtime, no lab may compile or link it."""
    cmd = ["make", "-n", "-f", "common/lab-build.mk", f"LABSRC=labs/{slug}", f"OUT={tmp_path}"]
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "cudaemu" not in res.stdout, res.stdout
