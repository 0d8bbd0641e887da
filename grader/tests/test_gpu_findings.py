"""What the CUDA labs (05, 07) need from the grader and the build, checked without a GPU: the
sandbox passes the CUDA environment and keeps the GPU device files' groups, bounds memory with
RLIMIT_DATA where the address-space limit is lifted for CUDA, and probes the GPU as the sandboxed
programs would; a broken nvcc leaves a lab buildable without its GPU parts; the GPU code is built
for real GPUs; the ASan settings CUDA needs reach every CUDA lab's programs; lab 05's budget check
holds under the address-space limit on any host."""
import dataclasses
import json
import os
import subprocess

import pytest

from conftest import NVCC, ROOT
from grader.grading import build, checkrun, hw
from grader.rules import labs
from grader.confinement import sandbox

LAB05, LAB07 = "lab05-pinned-transfers", "lab07-caching-allocator"


def run(script: str, env: dict | None = None, **kw) -> sandbox.RunResult:
    d = sandbox.workdir(f"gpu-findings-{os.getpid()}")
    return sandbox.run(["sh", "-c", script], sandbox.Limits(timeout_s=30, **kw), cwd=d,
                       env=env if env is not None else sandbox.base_env(d))


def test_cuda_environment_passes_through(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")
    monkeypatch.setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID")
    monkeypatch.setenv("LD_LIBRARY_PATH", "/usr/local/cuda/compat")
    monkeypatch.setenv("MLMEM_GRADER_ONLY", "secret")
    r = run("env")
    lines = set(r.stdout.splitlines())
    assert {"CUDA_VISIBLE_DEVICES=1", "CUDA_DEVICE_ORDER=PCI_BUS_ID",
            "LD_LIBRARY_PATH=/usr/local/cuda/compat"} <= lines, r.stdout
    assert not any(l.startswith("MLMEM_GRADER_ONLY=") for l in lines)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")
    assert "CUDA_VISIBLE_DEVICES" not in sandbox.base_env("/tmp")


@pytest.mark.skipif(os.geteuid() != 0, reason="the sandbox drops to another uid only as root")
def test_gpu_device_groups_are_kept(tmp_path, monkeypatch):
    """/dev/nvidia* as root:video 0660: the sandbox uid keeps `video`, and no other group."""
    video, other = 4242, 4343
    for name, gid, mode in (("nvidia0", video, 0o660), ("nvidiactl", 0, 0o666),
                            ("nvidia-uvm", other, 0o600)):
        f = tmp_path / name
        f.write_text("")
        os.chown(f, 0, gid)
        os.chmod(f, mode)
    monkeypatch.setattr(sandbox, "GPU_DEVICES", (str(tmp_path / "nvidia*"),))
    assert sandbox.device_groups() == [video]
    # What the groups allow (inside a user namespace `id -G` shows unmapped groups as nobody's):
    # files readable by group only, one per group, in the run's own folder.
    d = sandbox.workdir(f"gpu-groups-{os.getpid()}")
    for name, gid in (("video", video), ("other", other), ("root", 0)):
        path = os.path.join(d, name)
        with open(path, "w") as f:
            f.write("read\n")
        os.chown(path, 0, gid)
        os.chmod(path, 0o040)
    r = sandbox.run(["sh", "-c", "for g in video other root; do cat $g || echo no; done"],
                    sandbox.Limits(timeout_s=30), cwd=d, env=sandbox.base_env(d))
    sandbox.discard(d)
    if os.geteuid() == 0:
        assert r.stdout.split() == ["read", "no", "no"], r.stdout + r.stderr


def test_data_limit_bounds_memory():
    r = run("exec python3 -c 'import resource; print(resource.getrlimit(resource.RLIMIT_DATA)[0]);"
            " bytearray(1024 ** 3)'", address_space_mb=None, data_mb=256)
    assert r.stdout.split()[0] == str(256 * 1024 * 1024), r.stdout + r.stderr
    assert r.returncode != 0 and "MemoryError" in r.stderr


def test_data_limit_where_cuda_lifts_the_address_space(monkeypatch):
    lab05, lab01 = labs.load(LAB05), labs.load(labs.slugs()[0])
    monkeypatch.setattr(hw, "facts", lambda: {"cores": 2, "cuda_devices": 1})
    assert hw.address_space_mb(lab05) is None and hw.data_mb(lab05) == lab05.address_space_mb
    assert hw.address_space_mb(lab01) == lab01.address_space_mb and hw.data_mb(lab01) is None
    unlimited = dataclasses.replace(lab05, address_space_mb=None)  # sanitizer runs
    assert hw.data_mb(unlimited) is None
    monkeypatch.setattr(hw, "facts", lambda: {"cores": 2, "cuda_devices": 0})
    assert hw.address_space_mb(lab05) == lab05.address_space_mb and hw.data_mb(lab05) is None


def test_gpu_probe_runs_in_the_sandbox(monkeypatch):
    """hwinfo --json runs through sandbox.run (as root: the sandbox uid), not as the grader."""
    calls = []
    real = sandbox.run

    def spy(cmd, limits, cwd, env=None, sandbox_user=True):
        calls.append((os.path.basename(cmd[0]), sandbox_user, limits.address_space_mb))
        return real(cmd, limits, cwd, env=env, sandbox_user=sandbox_user)
    monkeypatch.setattr(sandbox, "run", spy)
    f = hw._probe()
    assert calls == [("hwinfo", True, None)]
    assert "cuda_status" in f and "cuda_min_driver" in f, f
    if f.get("cuda_toolkit", "").startswith("13."):
        assert f["cuda_min_driver"] == "580"


def _make(slug: str, out: str, *args: str) -> subprocess.CompletedProcess:
    """Builds labs/<slug> into out as the grader would, with lab.toml's make variables."""
    return subprocess.run(["make", "-f", os.path.join(ROOT, "common", "lab-build.mk"),
                           f"LABSRC={os.path.join(ROOT, 'labs', slug)}", f"OUT={out}",
                           *labs.load(slug).make_vars(), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)


@pytest.mark.slow
def test_broken_nvcc_builds_without_gpu_parts(tmp_path):
    """An nvcc that cannot compile (a host compiler it refuses) turns nvcc's kernels off, with a
    message, instead of failing the lab's build; the CUDA code then runs on the emulated device."""
    nvcc = tmp_path / "nvcc"
    nvcc.write_text("#!/bin/sh\necho 'host_config.h(143): error: #error -- unsupported GNU "
                    "version!' >&2\nexit 1\n")
    nvcc.chmod(0o755)
    out = tmp_path / "out"
    res = _make(LAB07, str(out), f"NVCC_FOUND={nvcc}",
                str(out / "check_lab"), str(out / "student_lab"))
    assert res.returncode == 0, res.stdout + res.stderr
    assert "cannot compile CUDA on this machine" in res.stdout and "unsupported GNU" in res.stdout
    tests = subprocess.run([str(out / "check_lab")], capture_output=True, text=True, timeout=300,
                           env={**os.environ, "CK_RUN_SUITE": "cuda"})
    # Without nvcc's kernels lab 07's CUDA back end (plain C) still builds, against the emulated
    # device: its CUDA tests run (the skeleton fails them), none is skipped as "built without".
    assert ":test_cuda_errors_pass_through:" in tests.stdout, tests.stdout + tests.stderr
    assert "built without CUDA" not in tests.stdout + tests.stderr


@pytest.mark.slow
@pytest.mark.skipif(not NVCC, reason="no nvcc")
def test_gpu_code_built_for_ampere_hopper_and_ptx():
    res = subprocess.run(["make", "-s", "-f", "common/flags.mk", "--eval",
                          "x: ; @echo $(NVCC) $(NVCCFLAGS)", "x"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    flags = res.stdout.split()
    gencodes = {flags[i + 1] for i, f in enumerate(flags) if f == "-gencode"}
    assert gencodes == {"arch=compute_80,code=sm_80", "arch=compute_90,code=sm_90",
                        "arch=compute_90,code=compute_90"}, res.stdout + res.stderr


@pytest.mark.slow
@pytest.mark.skipif(not NVCC, reason="no nvcc: the CUDA labs build without CUDA")
@pytest.mark.parametrize("slug", [LAB05, LAB07])
def test_asan_settings_for_cuda_in_every_program(slug):
    built = build.build(labs.load(slug), os.path.join(ROOT, "solutions"), variant="asan",
                        werror=True)
    assert built.ok, build.first_errors(built.log, 20)
    progs = [f for f in os.listdir(built.out_dir)   # the programs, not archives or notes
             if os.path.isfile(os.path.join(built.out_dir, f)) and not f.endswith(".a")
             and os.access(os.path.join(built.out_dir, f), os.X_OK)]
    assert "check_lab" in progs and "bench" in progs
    for prog in progs:
        syms = subprocess.run(["nm", os.path.join(built.out_dir, prog)], capture_output=True,
                              text=True).stdout
        assert " T __asan_default_options" in syms, prog
        assert " T __lsan_default_suppressions" in syms, prog


@pytest.mark.slow
def test_lab05_budget_check_fits_a_small_address_space():
    """test_pipe_create_checks refuses a plan over 10 % of RAM without reserving it: under an
    address-space limit below that (a host with more RAM than the limit covers) it still runs."""
    lab = labs.load(LAB05)
    built = build.build(lab, os.path.join(ROOT, "solutions"))
    assert built.ok, build.first_errors(built.log, 20)
    small = dataclasses.replace(lab, address_space_mb=1536)
    items, transcript, _ = checkrun.run_tests(small, os.path.join(built.out_dir, "check_lab"),
                                           f"gpu-findings-as-{os.getpid()}", "1")
    item = {i.name: i for i in items}["test_pipe_create_checks"]
    assert item.status in ("passed", "skipped"), item.output + transcript[-2000:]


QEMU_BAIL = ("Bail out! ERROR:../../accel/tcg/cpu-exec.c:1028:cpu_exec_setjmp: assertion failed: "
             "(cpu == current_cpu)")


def test_hwinfo_json_is_read_past_an_emulators_lines(monkeypatch):
    """Under qemu-user, qemu's own "Bail out!" line lands beside hwinfo's JSON (and qemu aborts
    after the report): the facts are still read, the CUDA reason is hwinfo's own, and what was
    ignored is kept in probe_note."""
    facts = {"cores": 4, "pus": 4, "numa_nodes": 1, "cuda_devices": 0,
             "cuda_status": "no CUDA GPU (no NVIDIA driver)"}
    got, stray = hw.parse_hwinfo(f"{QEMU_BAIL}\n{json.dumps(facts)}\n")
    assert got == facts and stray == [QEMU_BAIL]
    assert hw.parse_hwinfo(f"{json.dumps(facts)}\n{QEMU_BAIL}\n")[0] == facts
    assert hw.parse_hwinfo(QEMU_BAIL + "\n")[0] is None
    assert hw.parse_hwinfo("{\"cores\": 4, \"cut")[0] is None, "a cut object is no report"

    def fake_run(cmd, limits, cwd, env=None, sandbox_user=True):
        return sandbox.RunResult(returncode=None, signal=6, timed_out=False,
                                 stdout=f"{json.dumps(facts)}\n{QEMU_BAIL}\n",
                                 stderr="**\nERROR: ...\n", dropped_bytes=0, wall_s=0.1)
    monkeypatch.setattr(sandbox, "run", fake_run)
    monkeypatch.setattr(sandbox, "workdir", lambda name, tool: "/nonexistent-hwinfo-dir")
    got = hw._run_hwinfo("/bin/true")
    assert got["cuda_status"] == facts["cuda_status"] and got["cores"] == 4
    assert "Bail out!" in got["probe_note"] and "after its report" in got["probe_note"]
    assert "no CUDA GPU" in hw.unmet({"cuda": True}, got)
