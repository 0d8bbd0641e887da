"""Lab 12's kernel emulator (labs/lab12-gpu-memory/src/kemu*.c): its counts for access patterns
whose answers are known by hand (the handout's section 2.5 quotes them); kernel files that would
compile to other code for the emulator than for a GPU are refused; and the same file compiles
with nvcc for a GPU. Kernels that cheat the emulator are graded in test_integrity.py."""
import ctypes
import errno
import json
import os
import subprocess

import pytest

from conftest import NVCC, ROOT, grade
from grader.grading import build, hw
from grader.rules import labs

pytestmark = [pytest.mark.slow, pytest.mark.lab("12")]

SLUG = "lab12-gpu-memory"
LAB = os.path.join(ROOT, "labs", SLUG)


@pytest.fixture(scope="module")
def probes() -> dict[tuple[str, int], dict]:
    """kemuprobe's lines by (probe, parameter), built with warnings as errors."""
    out = os.path.join(ROOT, "build", "selftest", "lab12-kemu")
    prog = os.path.join(out, "kemuprobe")
    res = subprocess.run(["make", "-s", "-f", "common/lab-build.mk", f"LABSRC={LAB}", f"OUT={out}",
                          "EDITABLE=src/kernels.cu", "WERROR=1", prog],
                         cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    lines = subprocess.run([prog], capture_output=True, text=True, check=True,
                           timeout=120).stdout.splitlines()
    return {(d["probe"], d["param"]): d for d in map(json.loads, lines)}


# A warp of 32 floats at stride s touches min(32, 4 s) sectors: 128 B in 4 sectors when s = 1.
@pytest.mark.parametrize("stride, sectors", [(0, 1), (1, 4), (2, 8), (4, 16), (8, 32), (32, 32)])
def test_float_load_sectors(probes, stride, sectors):
    p = probes[("load_f32", stride)]
    assert (p["rc"], p["gld_requests"], p["gld_sectors"]) == (0, 1, sectors)
    assert (p["gst_requests"], p["gst_sectors"]) == (1, 4), "32 consecutive floats: 4 sectors"


def test_misaligned_and_wide_loads(probes):
    assert probes[("load_f32_misaligned", 1)]["gld_sectors"] == 5, "128 B across 5 sectors"
    assert probes[("load_f64", 1)]["gld_sectors"] == 8, "32 doubles: 256 B, 8 sectors"
    assert probes[("load_f64", 2)]["gld_sectors"] == 16


# s[t * stride]: bank (t * stride) % 32; the busiest bank serves gcd(stride, 32) words (1 when
# every lane reads the same word: a broadcast). Stride 33 is the padded tile's column.
@pytest.mark.parametrize("stride, wavefronts",
                         [(0, 1), (1, 1), (2, 2), (4, 4), (16, 16), (32, 32), (33, 1)])
def test_shared_bank_conflicts(probes, stride, wavefronts):
    p = probes[("shared", stride)]
    assert p["rc"] == 0 and p["barriers"] == 1
    assert (p["sst_requests"], p["sst_wavefronts"]) == (1, wavefronts)
    assert (p["sld_requests"], p["sld_wavefronts"]) == (1, wavefronts)


@pytest.mark.parametrize("probe", ["shuffle_xor", "shuffle_down"])
def test_shuffles_sum_a_warp(probes, probe):
    p = probes[(probe, 1 if probe == "shuffle_xor" else 0)]
    assert p["rc"] == 0 and p["shuffles"] == 10, "5 steps for each of 2 warps"
    assert (p["sum0"], p["sum1"]) == (sum(range(32)), sum(range(32, 64)))


# A full mask naming an exited lane, and lanes meeting at shuffles of different lines: CUDA leaves
# both undefined ("Warp Shuffle Functions"); the emulator refuses them instead of inventing values.
@pytest.mark.parametrize("how, why", [(1, "names a lane that has exited (lane 31)"),
                                      (2, "meets lanes at another shuffle")])
def test_undefined_shuffles_are_refused(probes, how, why):
    p = probes[("shuffle_undefined", how)]
    assert p["rc"] == -errno.EILSEQ and p["shuffles"] == 0, p
    assert why in p["error"] and "line " in p["error"], p["error"]


# Kernels that would compile to one thing for the emulator and another for nvcc (the coalesced
# gather counted here, a thread-per-row one timed on a GPU): the build refuses them
# (common/student-cu.sh), so every test of the lab scores 0 and says why.
UNCOALESCED = """    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)n_ids; i++)
        for (int j = 0; j < dim; j++)
            out[i * dim + j] = table[(size_t)ids[i] * dim + j];
"""
GATHER_LOOP = "    size_t n = (size_t)n_ids * dim, stride = (size_t)gridDim.x * blockDim.x;\n"


@pytest.mark.parametrize("before, after, why", [
    ("#ifndef KEMU_CUDA\n" + UNCOALESCED + "    return;\n#endif\n", "",
     "the directive #ifndef is not allowed"),
    ("%:if !KEMU_CUDA\n" + UNCOALESCED + "    return;\n%:endif\n", "",
     "the directive #if is not allowed"),
    ("    if (__CUDA_ARCH__ > 0) {\n" + UNCOALESCED + "        return;\n    }\n", "",
     "the name __CUDA_ARCH__ is reserved"),
], ids=["ifdef", "digraph", "predefined-macro"])
def test_emulator_only_code_is_refused(tmp_path, make_variant, before, after, why):
    sub = make_variant(SLUG, [{"file": "src/kernels.cu", "old": GATHER_LOOP,
                               "new": before + GATHER_LOOP + after}])
    g = grade(sub, "12", str(tmp_path / "out"), extra=["--parts", "tests"])
    tests = g.tests("12")
    assert tests and all(t["score"] == 0 for t in tests.values()), tests
    assert any(why in t["output"] for t in tests.values()), tests


# An attribute that switches the emulator's instrumentation off for a function would leave its
# accesses out of the trace the counts are made from: refused by name, in either spelling.
@pytest.mark.parametrize("attr", ['[[gnu::no_sanitize("thread")]]',
                                  "[[gnu::no_sanitize_thread]]",
                                  "[[gnu::disable_sanitizer_instrumentation]]"])
def test_instrumentation_off_is_refused(tmp_path, attr):
    src = tmp_path / "kernels.cu"
    src.write_text('#include "gpu_memory.h"\n' + attr + "\nstatic void copy(float *d, const float *s)"
                   " { *d = *s; }\n")
    res = subprocess.run(["sh", os.path.join(ROOT, "common", "student-cu.sh"), str(src),
                          "src/kernels.cu", "gpu_memory.h"], capture_output=True, text=True)
    assert res.returncode == 1, res.stderr
    assert "src/kernels.cu:2: error: the attribute" in res.stderr, res.stderr


# One compile each, for one real architecture (sm_80: A100), warnings as errors: what the GPU
# benchmark's nvcc build of a submission needs of the handout's "the same file compiles for a GPU".
@pytest.mark.skipif(not NVCC, reason="no nvcc (CUDA_HOME/bin or PATH)")
@pytest.mark.parametrize("tree", ["labs", "solutions"])
def test_kernels_compile_with_nvcc(tmp_path, tree):
    src = os.path.join(ROOT, tree, SLUG, "src", "kernels.cu")
    res = subprocess.run([NVCC, "-gencode", "arch=compute_80,code=sm_80", "-Werror",
                          "all-warnings", "-I", os.path.join(LAB, "include"), "-c", src, "-o",
                          str(tmp_path / "kernels.o")], capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    syms = subprocess.run(["nm", "--defined-only", str(tmp_path / "kernels.o")],
                          capture_output=True, text=True, check=True).stdout.split()
    assert {"gm_transpose", "gm_row_sum", "gm_gather"} <= set(syms), "the kernels' C names"


# The GPU half of the benchmark (bench/bench_gpu.c), where no GPU is: every GPU metric skipped
# with the reason, never passed or failed; and its whole path (module, buffers, copy, launches,
# events, the output check, the gate) against a stand-in for the CUDA driver (data/
# lab12_mock_libcuda.c: host memory, the kernels' contracts on the host, a virtual clock).
GPU_METRICS = ("gpu_transpose_vs_copy", "gpu_row_sum_vs_copy", "gpu_gather_vs_copy")


def _bench(prog: str, **env) -> dict:
    base = {k: v for k, v in os.environ.items() if k not in ("MLMEM_SEAL", "MLMEM_CONFINE")}
    res = subprocess.run([prog], capture_output=True, text=True, timeout=300,
                         env={**base, **env})
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def _runtime_loads() -> bool:
    """Whether the CUDA runtime library loads (MLMEM_CUDA=real needs it)."""
    try:
        ctypes.CDLL("libcudart.so.13")
        return True
    except OSError:
        return False


@pytest.mark.skipif(hw.facts().get("cuda_devices", 0) > 0, reason="a usable GPU is here")
def test_gpu_metrics_skip_without_a_gpu(tmp_path):
    """Built without nvcc (NVCC_FOUND empty) and run as a student would, then with the emulated
    device asked for: each GPU metric is skipped, with the reason."""
    out = str(tmp_path / "out")
    res = subprocess.run(["make", "-s", "-f", "common/lab-build.mk", f"LABSRC={LAB}",
                          f"OUT={out}", "EDITABLE=src/kernels.cu", "LAB_CUDA=1", "NVCC_FOUND=",
                          f"{out}/bench", f"{out}/student_lab"],   # the bench calls the student's
                         cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    for env, why in (({}, "built without nvcc"), ({"MLMEM_CUDA": "emulate"}, "MLMEM_CUDA=emulate")):
        report = _bench(f"{out}/bench", **env)
        for m in GPU_METRICS:
            assert set(report["metrics"][m]) == {"skipped"}, report["metrics"][m]
            assert "not timed: no GPU" in report["metrics"][m]["skipped"], report["metrics"][m]
            assert why in report["metrics"][m]["skipped"]
    assert why in report["info"]["gpu"]


@pytest.mark.skipif(not NVCC, reason="no nvcc: the benchmark has no GPU image")
@pytest.mark.skipif(not _runtime_loads(), reason="no CUDA runtime library (MLMEM_CUDA=real)")
def test_gpu_half_against_a_stand_in_driver(tmp_path):
    """The reference as the grader builds it (nvcc's device code made in the sandbox), its bench
    run on the stand-in driver: gm_transpose timed (2 ms against a 1 ms copy of 128 MiB: 64 MiB
    each way moved at a quarter of the copy's rate), gm_row_sum's output found wrong, gm_gather's
    rounds refused by the gate (the copy's times vary 2x); then a faulting gm_transpose."""
    lib = tmp_path / "libcuda.so.1"
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-o", str(lib),
                    os.path.join(ROOT, "grader", "tests", "data", "lab12_mock_libcuda.c")],
                   check=True)
    built = build.build(labs.load(SLUG), os.path.join(ROOT, "solutions"))
    assert built.ok, build.first_errors(built.log, 20)
    report = _bench(os.path.join(built.out_dir, "bench"), MLMEM_CUDA="real",
                    LD_LIBRARY_PATH=str(tmp_path), MOCK_WRONG="gm_row_sum",
                    MOCK_NOISY="gm_gather")
    m = report["metrics"]
    assert m["gpu_transpose_vs_copy"]["value"] == pytest.approx(0.25), m
    assert "medians of 15 rounds" in m["gpu_transpose_vs_copy"]["detail"]
    assert "wrong result on the GPU: element 16383" in m["gpu_row_sum_vs_copy"]["error"], m
    assert "varied by 2.00x" in m["gpu_gather_vs_copy"]["skipped"], m
    assert report["info"]["gpu"] == "mock GPU"
    assert m["gather_sectors"]["value"] == 3.0, "the emulated counts still follow"
    # A kernel that faults: its metric fails with the driver's error, and the later kernels'
    # too (the GPU is unusable in that process), not skipped.
    m = _bench(os.path.join(built.out_dir, "bench"), MLMEM_CUDA="real",
               LD_LIBRARY_PATH=str(tmp_path), MOCK_FAULT="gm_transpose")["metrics"]
    assert "cuLaunchKernel: CUDA_ERROR_ILLEGAL_ADDRESS" in m["gpu_transpose_vs_copy"]["error"], m
    for name in ("gpu_row_sum_vs_copy", "gpu_gather_vs_copy"):
        assert "unusable in this process after gm_transpose" in m[name]["error"], m
