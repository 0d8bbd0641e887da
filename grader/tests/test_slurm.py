"""`make batch ENGINE=slurm` on a real one-node Slurm that the test starts itself (munged,
slurmctld and slurmd on this machine, on ports of its own): six students graded into one
summary, and a test job cancelled while it waits is run again. Skipped, with the reason, where
Slurm cannot be installed or started."""
import csv
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import pytest

from conftest import ROOT, SANDBOX_ENV, batch_results
from grader.rules import labs, variants

pytestmark = pytest.mark.slow

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
    # One test hangs (the first call of test_create_bad_args): it costs one test timeout, so
    # the timeout can stay far above what the reference's tests need on a loaded machine.
    hang = "int kv_create(kv_cache_t **out, const kv_config_t *cfg)\n{"
    sub("fay", [{"file": "src/kvcache.c", "old": hang,
                 "new": hang + "\n    if (!out) for (volatile int spin = 1; spin;) {}"}])
    return {"ann": "reference", "bob": "reference", "cy": "skeleton", "dee": "naive",
            "eve": "crashes", "fay": "hangs"}


def _rows(out: str) -> dict[str, dict]:
    with open(os.path.join(out, "summary.csv")) as f:
        return {r["student"]: r for r in csv.DictReader(f)}


def _lost(out: str, student: str) -> list[tuple[str, float, str]]:
    """(item, score, output) for each item of the student's results.json short of its points:
    what a failed assertion on a score shows."""
    return [(t["name"], t["score"], t.get("output", "")[-300:])
            for t in batch_results(out, student)["tests"] if t["score"] < t.get("max_score", 0)]


def _cancel_when_queued(env: dict, task: int, timeout_s: float = 120) -> str:
    """Cancels array task `task` of the unit-tests job as soon as it is queued; returns the
    job id it cancelled ('' if none appeared in time)."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        ids = subprocess.run(["squeue", "-h", "-n", "mlmem-tests", "-o", "%F"], env=env,
                             capture_output=True, text=True).stdout.split()
        if ids:
            subprocess.run(["scancel", f"{ids[0]}_{task}"], env=env, capture_output=True)
            return ids[0]
        time.sleep(0.2)
    return ""


def test_a_class_on_slurm_with_a_killed_job_run_again(slurm, tmp_path):
    """make batch ENGINE=slurm: six students; one student's test job is cancelled while it waits
    for a CPU (as a node's failure or an operator would end it: it leaves no status). The batch
    submits it again, waits, and merges all six into one summary with the right scores."""
    subs, out = tmp_path / "subs", str(tmp_path / "batch")
    kinds = _class(str(subs))
    # The reference's tests take at most 30 ms each: 10 s leaves them a margin of 300 on a
    # machine that also runs the rest of the suite (at 2 s a reference lost a point there, once).
    env = {**slurm, **SANDBOX_ENV, "MLMEM_TEST_TIMEOUT_S": "10", "MLMEM_BENCH_TIMEOUT_S": "60"}
    victim = sorted(kinds)[-1]   # the last array task: queued behind the node's CPUs
    batch = subprocess.Popen([sys.executable, "-m", "grader", "batch", str(subs), "--lab",
                              labs.load(LAB).id, "--engine", "slurm", "--out", out], cwd=ROOT,
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    cancelled = _cancel_when_queued(env, sorted(kinds).index(victim))
    said = batch.communicate(timeout=1200)[0]
    assert batch.returncode == 0 and cancelled, said
    assert f"the unit tests of {victim} left no result: submitting again" in said, said
    rows = _rows(out)
    assert set(rows) == set(kinds)
    most = {r["max_score"] for r in rows.values()}
    assert len(most) == 1, f"every student has the same maximum: {most}"
    full = float(most.pop())
    for s, kind in kinds.items():
        measured = full - float(rows[s]["not_measured"])
        if kind == "reference":
            assert float(rows[s]["score"]) == measured, (rows[s], _lost(out, s))
        else:
            assert float(rows[s]["score"]) < measured, rows[s]
    hung = _lost(out, "fay")   # its one hanging test was stopped at the time limit
    assert any("timeout" in text.lower() for _, _, text in hung), hung
