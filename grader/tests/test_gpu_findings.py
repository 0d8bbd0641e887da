"""What the CUDA labs (05, 07) need from the grader and the build, checked without a GPU: the
sandbox passes the CUDA environment and keeps the GPU device files' groups, bounds memory with
RLIMIT_DATA where the address-space limit is lifted for CUDA, and probes the GPU as the sandboxed
programs would; a broken nvcc leaves a lab buildable without its GPU parts; the GPU code is built
for real GPUs; the ASan settings CUDA needs reach every CUDA lab's programs; lab 05's budget check
holds under the address-space limit on any host."""
import dataclasses
import os
import shutil
import subprocess

import pytest

from conftest import ROOT
from grader import build, checkrun, hw, labs, sandbox

LAB05, LAB07 = "lab05-pinned-transfers", "lab07-caching-allocator"
HAVE_NVCC = bool(shutil.which("nvcc") or os.access(
    os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc"), os.X_OK))


def run(script: str, env: dict | None = None, **kw) -> sandbox.RunResult:
    d = sandbox.workdir(f"gpu-findings-{os.getpid()}")
    return sandbox.run(["sh", "-c", script], sandbox.Limits(timeout_s=30, **kw), cwd=d,
                       env=env if env is not None else sandbox.base_env(d))


def _make(lab_src: str, out: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "-f", os.path.join(ROOT, "common", "lab-build.mk"),
                           f"LABSRC={lab_src}", f"OUT={out}", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)


@pytest.mark.skipif(not HAVE_NVCC, reason="no nvcc: the CUDA labs build without CUDA")
@pytest.mark.parametrize("slug", [LAB05, LAB07])
def test_asan_settings_for_cuda_in_every_program(slug):
    built = build.build(labs.load(slug), os.path.join(ROOT, "solutions"), variant="asan",
                        werror=True)
    assert built.ok, build.first_errors(built.log, 20)
    progs = [f for f in os.listdir(built.out_dir)
             if os.path.isfile(os.path.join(built.out_dir, f)) and f != "liblab.a"]
    assert "check_lab" in progs and "bench" in progs
    for prog in progs:
        syms = subprocess.run(["nm", os.path.join(built.out_dir, prog)], capture_output=True,
                              text=True).stdout
        assert " T __asan_default_options" in syms, prog
        assert " T __lsan_default_suppressions" in syms, prog


def test_lab05_budget_check_fits_a_small_address_space():
    """test_pipe_create_checks refuses a plan over 10 % of RAM without reserving it: under an
    address-space limit below that (a host with more RAM than the limit covers) it still runs."""
    lab = labs.load(LAB05)
    built = build.build(lab, os.path.join(ROOT, "solutions"))
    assert built.ok, build.first_errors(built.log, 20)
    small = dataclasses.replace(lab, address_space_mb=1536)
    items, transcript = checkrun.run_tests(small, os.path.join(built.out_dir, "check_lab"),
                                           f"gpu-findings-as-{os.getpid()}", "1")
    item = {i.name: i for i in items}["test_pipe_create_checks"]
    assert item.status in ("passed", "skipped"), item.output + transcript[-2000:]
