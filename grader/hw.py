"""This machine's facts (cores, NUMA nodes, CUDA devices) from the hwinfo tool (hwloc, libnuma,
CUDA), and the check of a lab's or metric's hardware needs against them."""
from __future__ import annotations

import functools
import json
import os
import subprocess

from .labs import ROOT


@functools.cache
def facts() -> dict:
    tool = os.path.join(ROOT, "build", "tools", "hwinfo")
    try:
        subprocess.run(["make", "-s", "-C", ROOT, "build/tools/hwinfo"], check=True,
                       capture_output=True, timeout=300)
        out = subprocess.run([tool, "--json"], check=True, capture_output=True, text=True,
                             timeout=60).stdout
        return json.loads(out)
    except (OSError, subprocess.SubprocessError, ValueError):
        n = len(os.sched_getaffinity(0))
        return {"cores": n, "pus": n, "numa_nodes": 1, "cuda_devices": 0,
                "cuda_status": "unknown (hwinfo could not be built)"}


def unmet(requires: dict, have: dict | None = None) -> str | None:
    """Why this machine cannot run something with these needs, or None if it can.
    Keys: cores (min), numa_nodes (min), cuda (true: a usable CUDA device)."""
    have = have if have is not None else facts()
    if have.get("cores", 1) < requires.get("cores", 0):
        return f"needs {requires['cores']} cores; this machine has {have.get('cores', 1)}"
    if have.get("numa_nodes", 1) < requires.get("numa_nodes", 0):
        return (f"needs {requires['numa_nodes']} NUMA nodes; this machine has "
                f"{have.get('numa_nodes', 1)}")
    if requires.get("cuda") and have.get("cuda_devices", 0) < 1:
        return f"needs a CUDA GPU; {have.get('cuda_status', 'none found')}"
    return None
