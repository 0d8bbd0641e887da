"""`make batch ENGINE=slurm` on a real one-node Slurm that the test starts itself (munged,
slurmctld and slurmd on this machine, on ports of its own): six students graded into one
summary, and a pass whose job left nothing is run again by `batch-collect`. Skipped, with the
reason, where Slurm cannot be installed or started."""
import csv
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import pytest

from conftest import ROOT, SANDBOX_ENV
from grader import labs, variants

LAB = "lab09-paged-kv-cache"
SKELETONS = os.path.join(ROOT, "labs")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _conf(d: str) -> str:
    host = socket.gethostname().split(".")[0]
    text = f"""ClusterName=mlmemtest
SlurmctldHost={host}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldPort={_free_port()}
SlurmdPort={_free_port()}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
NodeName={host} CPUs={os.cpu_count() or 1} State=UNKNOWN
PartitionName=mlmem Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"""
    for sub in ("state", "spool"):
        os.makedirs(os.path.join(d, sub))
    path = os.path.join(d, "slurm.conf")
    with open(path, "w") as f:
        f.write(text)
    return path


@pytest.fixture(scope="module")
def slurm():
    """A one-node Slurm on this machine for the module's tests: yields the environment that
    points sbatch and friends at it."""
    if os.geteuid() != 0:
        pytest.skip("starting slurmctld and slurmd needs root")
    setup = subprocess.run(["bash", os.path.join(ROOT, "common", "setup-deps.sh"), "slurm-wlm",
                            "munge"], capture_output=True, text=True)
    if setup.returncode != 0 or not shutil.which("slurmctld"):
        pytest.skip(f"Slurm could not be installed: {setup.stderr.strip()[-300:]}")
    d = tempfile.mkdtemp(prefix="mlmem-slurm-")
    env = {**os.environ, "SLURM_CONF": _conf(d)}
    if subprocess.run(["pgrep", "-x", "munged"], capture_output=True).returncode != 0:
        os.makedirs("/run/munge", exist_ok=True)
        subprocess.run(["munged", "--force"], capture_output=True)
    for daemon in ("slurmctld", "slurmd"):
        subprocess.run([daemon, "-f", env["SLURM_CONF"]], env=env, capture_output=True)
    for _ in range(60):
        info = subprocess.run(["sinfo", "-h", "-o", "%T"], env=env, capture_output=True, text=True)
        if info.stdout.strip() == "idle":
            break
        time.sleep(0.5)
    else:
        log = open(os.path.join(d, "slurmctld.log")).read()[-500:] if os.path.exists(
            os.path.join(d, "slurmctld.log")) else ""
        pytest.skip(f"Slurm did not start here (sinfo: {info.stdout.strip()!r}) {log}")
    yield env
    subprocess.run(["scontrol", "shutdown"], env=env, capture_output=True)
    time.sleep(1)
    shutil.rmtree(d, ignore_errors=True)


def _class(root: str) -> dict[str, str]:
    """Six students: the reference twice, the skeleton, a naive variant, one that crashes, one
    that hangs. Returns what each is."""
    sub = lambda name, patches, base=variants.SOLUTIONS: variants.make(
        LAB, os.path.join(root, name), patches, base)
    sub("ann", [])
    sub("bob", [])
    sub("cy", [], SKELETONS)
    sub("dee", variants.declared(LAB)["nosharing"]["patch"])
    crash = {"file": "src/kvcache.c", "old": "int kv_seq_free(kv_cache_t *c, int32_t id)\n{",
             "new": "int kv_seq_free(kv_cache_t *c, int32_t id)\n{\n    *(volatile int *)8 = 1;"}
    sub("eve", [crash])
    sub("fay", [{**crash, "new": "int kv_seq_free(kv_cache_t *c, int32_t id)\n{\n"
                                 "    for (volatile int spin = 1; spin;) {}"}])
    return {"ann": "reference", "bob": "reference", "cy": "skeleton", "dee": "naive",
            "eve": "crashes", "fay": "hangs"}


def _rows(out: str) -> dict[str, dict]:
    with open(os.path.join(out, "summary.csv")) as f:
        return {r["student"]: r for r in csv.DictReader(f)}


def test_a_class_on_slurm_then_a_lost_job_run_again(slurm, tmp_path):
    subs, out = tmp_path / "subs", str(tmp_path / "batch")
    kinds = _class(str(subs))
    env = {**slurm, **SANDBOX_ENV, "MLMEM_TEST_TIMEOUT_S": "2", "MLMEM_BENCH_TIMEOUT_S": "60"}
    lab = labs.load(LAB)
    proc = subprocess.run([sys.executable, "-m", "grader", "batch", str(subs), "--lab", lab.id,
                           "--engine", "slurm", "--out", out], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = _rows(out)
    assert set(rows) == set(kinds)
    most = {r["max_score"] for r in rows.values()}
    assert len(most) == 1, f"every student has the same maximum: {most}"
    full = float(most.pop())
    for s in ("ann", "bob"):
        assert float(rows[s]["score"]) == full - float(rows[s]["not_measured"]), rows[s]
    for s in ("cy", "dee", "eve", "fay"):
        assert float(rows[s]["score"]) < full - float(rows[s]["not_measured"]), rows[s]
    # a job that was killed leaves no status: batch-collect runs that pass again
    for f in ("status.json", "results.json"):
        os.remove(os.path.join(out, "bob", "tests", f))
    proc = subprocess.run([sys.executable, "-m", "grader", "collect", "--out", out], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "the unit tests of bob left no result: submitting again" in proc.stdout
    again = _rows(out)["bob"]
    assert float(again["score"]) == full - float(again["not_measured"]), again
