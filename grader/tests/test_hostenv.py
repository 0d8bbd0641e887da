"""grader/rules/hostenv.py: each environment is named from its sign, read under a fake root."""
from __future__ import annotations

import os
import sys

from grader.rules import hostenv
from grader.confinement import isolation


def put(root, path: str, text: str = "") -> None:
    full = os.path.join(root, path.lstrip("/"))
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)


def test_bare_machine_names_nothing(tmp_path):
    put(tmp_path, "/proc/cpuinfo", "vendor_id\t: GenuineIntel\nflags\t\t: fpu sse2 avx2\n")
    assert hostenv.vm(str(tmp_path)) is None and hostenv.container(str(tmp_path)) is None
    assert "bare hardware" in hostenv.describe([])


def test_docker_podman_and_kubernetes(tmp_path):
    put(tmp_path, "/proc/1/cgroup", "12:cpu:/kubepods/besteffort/pod1\n")
    assert hostenv.container(str(tmp_path)) == "kubepods (/proc/1/cgroup)"
    put(tmp_path, "/run/.containerenv")
    assert hostenv.container(str(tmp_path)).startswith("Podman")
    put(tmp_path, "/.dockerenv")
    assert hostenv.container(str(tmp_path)).startswith("Docker")


def test_vm_from_dmi_and_cpu_flag(tmp_path):
    put(tmp_path, "/proc/cpuinfo", "flags\t\t: fpu hypervisor avx2\n")
    assert "CPU flag" in hostenv.vm(str(tmp_path))
    put(tmp_path, "/sys/class/dmi/id/sys_vendor", "QEMU\n")
    assert hostenv.vm(str(tmp_path)) == "QEMU (DMI sys_vendor)"


def test_bare_metal_cloud_instance_is_no_vm(tmp_path):
    put(tmp_path, "/sys/class/dmi/id/sys_vendor", "Amazon EC2\n")
    put(tmp_path, "/sys/class/dmi/id/product_name", "c7g.metal\n")
    assert hostenv.vm(str(tmp_path)) is None


def test_wsl2_and_wsl1(tmp_path):
    put(tmp_path, "/proc/sys/kernel/osrelease", "5.15.153.1-microsoft-standard-WSL2\n")
    assert hostenv.wsl(str(tmp_path)).startswith("WSL2")
    put(tmp_path, "/proc/sys/kernel/osrelease", "4.4.0-19041-Microsoft\n")
    assert hostenv.wsl(str(tmp_path)).startswith("WSL1")


def test_codespaces_from_its_variable():
    assert hostenv.codespaces({"CODESPACES": "true"}) == "CODESPACES=true"
    assert hostenv.codespaces({}) is None


def test_emulator_when_the_kernel_is_of_another_architecture(tmp_path):
    mine = hostenv.program_arch(sys.executable)
    other = "aarch64" if mine == "x86_64" else "x86_64"
    put(tmp_path, "/proc/sys/kernel/arch", other + "\n")
    assert f"on this {other} kernel" in hostenv.emulator(str(tmp_path))
    put(tmp_path, "/proc/sys/kernel/arch", mine + "\n")
    assert hostenv.emulator(str(tmp_path)) is None


def test_emulator_from_cpuinfo_on_older_kernels(tmp_path):
    mine = hostenv.program_arch(sys.executable)
    put(tmp_path, "/proc/cpuinfo", "CPU implementer\t: 0x41\n" if mine == "x86_64"
        else "vendor_id\t: AuthenticAMD\n")
    assert hostenv.emulator(str(tmp_path)) is not None


def test_detect_lists_outermost_first(tmp_path):
    put(tmp_path, "/.dockerenv")
    put(tmp_path, "/proc/cpuinfo", "flags\t\t: hypervisor\n")
    kinds = [k for k, _ in hostenv.detect(str(tmp_path), {"CODESPACES": "true"})]
    assert kinds == ["Codespaces", "container", "virtual machine"]


def test_under_an_emulator_the_grade_is_not_for_credit(monkeypatch):
    """qemu-user cannot install seccomp or Landlock filters: the grader does not ask the harness
    for them there (it would fail every test), and says the grade is not for credit."""
    monkeypatch.setattr(hostenv, "emulator", lambda *a, **k: "aarch64 programs on this x86_64 "
                        "kernel, run by qemu-aarch64-static")
    isolation.current.cache_clear()
    try:
        iso = isolation.current()
        assert not iso.confine and not iso.for_credit
        assert "CPU emulator" in iso.lacking and "qemu-aarch64" in iso.describe()
        assert "MLMEM_CONFINE" not in isolation.program_env()
    finally:
        isolation.current.cache_clear()
    if hostenv.emulator() is None:
        assert isolation.program_env() == {"MLMEM_CONFINE": "1"}, "on this machine's own CPU"


def test_under_an_emulator_the_time_limits_are_scaled(monkeypatch, tmp_path):
    """qemu-user runs the programs 10-30x slower: the tests' and the benchmark's limits grow by
    EMULATED_SLOWDOWN there (Check's own per-test limit too), and stay as lab.toml says on the
    CPU's own architecture."""
    from grader.grading import bench, checkrun
    from grader.rules import labs
    lab = labs.Lab(id="99", slug="lab99-x", title="x", editable=[], tests=[], metrics=[],
                   test_timeout_s=20, bench_timeout_s=120)
    monkeypatch.delenv("CK_TIMEOUT_MULTIPLIER", raising=False)
    monkeypatch.delenv("MLMEM_BENCH_TIMEOUT_S", raising=False)
    monkeypatch.setattr(hostenv, "emulator", lambda *a, **k: None)
    assert checkrun.timeout_multiplier() == 1 and bench.timeout_s(lab) == 120
    assert "CK_TIMEOUT_MULTIPLIER" not in checkrun._env(str(tmp_path), lab, None, False)
    monkeypatch.setattr(hostenv, "emulator", lambda *a, **k: "qemu-aarch64-static")
    k = hostenv.EMULATED_SLOWDOWN
    assert checkrun.timeout_multiplier() == k and bench.timeout_s(lab) == 120 * k
    assert checkrun.stall_limit_s(lab) == 20 * k + checkrun.STALL_MARGIN_S
    monkeypatch.setenv("CK_TIMEOUT_MULTIPLIER", "2")
    env = checkrun._env(str(tmp_path), lab, None, False)
    assert env["CK_TIMEOUT_MULTIPLIER"] == f"{2 * k:g}", "Check's per-test limit scales too"
