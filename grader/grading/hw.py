"""This machine's facts (cores, NUMA nodes, CUDA devices) from the hwinfo tool (hwloc, libnuma,
CUDA), and the check of a lab's or metric's hardware needs against them."""
from __future__ import annotations

import functools
import json
import os
import platform
import shutil
import subprocess

from ..confinement import sandbox
from ..rules import settings
from ..rules.files import read_text
from ..rules.labs import ROOT


def _read(path: str) -> str:
    return read_text(path).strip()


def cpu_quota(root: str = "/sys/fs/cgroup") -> float | None:
    """CPUs this process may use per second under its cgroup's CPU quota (a container limit,
    e.g. Gradescope's 0.5), or None without one. cgroup v2 cpu.max or v1 cfs_quota_us."""
    v2 = _read(os.path.join(root, "cpu.max")).split()
    if len(v2) == 2 and v2[0] != "max":
        return int(v2[0]) / int(v2[1])
    quota = _read(os.path.join(root, "cpu", "cpu.cfs_quota_us"))
    period = _read(os.path.join(root, "cpu", "cpu.cfs_period_us"))
    if quota.lstrip("-").isdigit() and int(quota) > 0 and period.isdigit() and int(period) > 0:
        return int(quota) / int(period)
    return None


def _limit_to_quota(f: dict, quota: float | None) -> dict:
    """Cores the labs can count on: hwloc's cores, capped by affinity and the CPU quota."""
    cores = min(f.get("cores", 1), len(os.sched_getaffinity(0)))
    if quota is not None and quota < cores:
        f["cpu_quota"] = quota
        cores = int(quota)
    f["cores"] = cores
    return f


@functools.cache
def facts() -> dict:
    """What this machine has (hwinfo --json: cores, caches, NUMA nodes, CUDA devices), probed once
    per process: the first call builds and runs hwinfo, which Grading.run does before any lab."""
    return _limit_to_quota(_probe(), cpu_quota())


def parse_hwinfo(stdout: str) -> tuple[dict | None, list[str]]:
    """hwinfo --json's object, read from its output line by line: the one line that is a JSON
    object, whatever else came with it (an emulator's own message, such as qemu-user's "Bail out!
    ... assertion failed" on the same stream). Returns (the object or None, the other lines)."""
    found, stray = None, []
    for line in stdout.splitlines():
        try:
            obj = json.loads(line) if line.lstrip().startswith("{") else None
        except ValueError:
            obj = None
        if isinstance(obj, dict) and found is None:
            found = obj
        elif line.strip():
            stray.append(line.strip())
    return found, stray


def _run_hwinfo(tool: str) -> dict:
    """hwinfo --json's facts, run as student programs run (sandbox.run: as root, the sandbox uid
    and its groups, the same environment), so that a GPU counts only if they can use it. Output
    around the object, or an end that was not clean after a whole object (qemu-user aborts on
    its own assertion at exit), is kept in "probe_note" rather than losing the facts."""
    run_dir = sandbox.workdir(f"hwinfo-{os.getpid()}", tool)
    res = sandbox.run([os.path.join(run_dir, os.path.basename(tool)), "--json"],
                      sandbox.Limits(timeout_s=60, address_space_mb=None),
                      cwd=run_dir, env=sandbox.base_env(run_dir))
    shutil.rmtree(run_dir, ignore_errors=True)
    facts, stray = parse_hwinfo(res.stdout)
    if facts is None:
        raise subprocess.SubprocessError(f"hwinfo: {res.verdict()}: {res.stderr[-300:]}"
                                         f"{' '.join(stray)[-300:]}")
    notes = ([] if res.ok else [f"hwinfo {res.verdict()} after its report"]) + \
        [f"ignored in its output: {' | '.join(stray)[:300]}"] * bool(stray)
    if notes:
        facts["probe_note"] = "; ".join(notes)
    return facts


def _probe() -> dict:
    tool = os.path.join(ROOT, "build", "tools", "hwinfo")
    try:
        subprocess.run(["make", "-s", "-C", ROOT, "build/tools/hwinfo"], check=True,
                       capture_output=True, timeout=300)
        return _run_hwinfo(tool)
    except (OSError, subprocess.SubprocessError) as e:
        n = len(os.sched_getaffinity(0))
        return {"cores": n, "pus": n, "numa_nodes": 1, "cuda_devices": 0,
                "cuda_status": f"unknown (hwinfo could not be built or run: {str(e)[:200]})"}


def unmet(requires: dict, have: dict | None = None) -> str | None:
    """Why this machine cannot run something with these needs, or None if it can.
    Keys: cores (min), numa_nodes (min), cuda (true: a usable CUDA device)."""
    have = have if have is not None else facts()
    if have.get("cores", 1) < requires.get("cores", 0):
        quota = (f" (a CPU quota of {have['cpu_quota']:g} CPUs: give the grader more)"
                 if "cpu_quota" in have else "")
        return f"needs {requires['cores']} cores; this machine has {have.get('cores', 1)}{quota}"
    if have.get("numa_nodes", 1) < requires.get("numa_nodes", 0):
        return (f"needs {requires['numa_nodes']} NUMA nodes; this machine has "
                f"{have.get('numa_nodes', 1)}")
    if requires.get("cuda") and have.get("cuda_devices", 0) < 1:
        return f"needs a CUDA GPU; {have.get('cuda_status', 'none found')}"
    return None


def skip(lab, metric=None, have: dict | None = None) -> str | None:
    """The one place that decides a hardware skip: why this machine cannot grade `metric` of
    `lab` (the lab's [requires], then the metric's own), or None if it can."""
    return unmet(lab.requires, have) or (unmet(metric.requires, have) if metric else None)


def cuda_note(lab) -> str | None:
    """For a lab with CUDA code whose programs run on the emulated device here (no usable GPU,
    or MLMEM_CUDA=emulate), the line the report prints; None where they use a real GPU."""
    if not lab.cuda:
        return None
    mode = settings.current().cuda
    if mode == "emulate":
        return "CUDA: emulated device (MLMEM_CUDA=emulate)"
    if mode != "real" and facts().get("cuda_devices", 0) < 1:
        return f"CUDA: emulated device ({facts().get('cuda_status', 'no usable GPU')})"
    return None


def _cuda_lifted(lab) -> bool:
    """A lab with CUDA code on a machine with a usable GPU."""
    return lab.cuda and facts().get("cuda_devices", 0) > 0


def address_space_mb(lab) -> int | None:
    """The address-space limit for a lab's programs: lab.toml's, lifted for a lab with CUDA code
    (lab.toml's `cuda = true`) on a machine with a usable GPU, where the driver maps huge virtual
    ranges."""
    return None if _cuda_lifted(lab) else lab.address_space_mb


def data_mb(lab) -> int | None:
    """The data-size limit (RLIMIT_DATA) for a lab's programs: where address_space_mb lifts the
    address-space limit for CUDA, lab.toml's limit applies to the data instead (the driver's huge
    reservations are not writable memory and do not count); elsewhere None. Sanitizer runs, whose
    shadow memory is writable, pass a lab with no limit and get none."""
    return lab.address_space_mb if _cuda_lifted(lab) else None


def cpu_model() -> str:
    """The CPU's model name as the kernel reports it ("AMD EPYC 9654", "Intel(R) Xeon(R) ..."),
    or the machine type where /proc/cpuinfo names none (e.g. some Arm kernels)."""
    for line in _read("/proc/cpuinfo").splitlines():
        key, _, val = line.partition(":")
        if key.strip() in ("model name", "Model", "cpu model") and val.strip():
            return " ".join(val.split())
    return platform.machine() or "unknown CPU"
