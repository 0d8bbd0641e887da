"""A hang costs seconds, not a quarter of an hour: a test program that stops logging results is
stopped one test timeout (plus a margin) after its last result, a benchmark at its own limit and
never run again. Checked by what was stopped and which limit stopped it, counted, never by the
wall time (the machine may be busy)."""
import csv
import os
import subprocess
import sys

import pytest

from conftest import ROOT, SANDBOX_ENV, batch_results, sandbox_leftovers
from grader.grading import checkrun
from grader.confinement import sandbox
from grader.rules import variants

pytestmark = pytest.mark.slow

SLUG = "lab03-tensor-strides"   # the skeleton: builds in seconds, its tests fail at once
# The limits leave room for a busy machine (load 10 on 2 cores): a skeleton's test ends in well
# under a second and its benchmark in a few seconds idle; only the stuck ones reach them.
T = 8                           # MLMEM_TEST_TIMEOUT_S: each Check test's timeout
B = 60                          # MLMEM_BENCH_TIMEOUT_S: the benchmark's time limit
STALL = T + checkrun.STALL_MARGIN_S


def run(script, watch_s, timeout_s=60):
    d = os.path.join("/tmp", f"mlmem-hangs-{os.getpid()}")
    os.makedirs(d, exist_ok=True)
    log = os.path.join(d, "log")
    if os.path.exists(log):
        os.unlink(log)
    return sandbox.run(["sh", "-c", script], sandbox.Limits(timeout_s=timeout_s), cwd=d,
                       watch=sandbox.Watch(log, watch_s), sandbox_user=False)


def test_watch_stops_a_program_that_stops_logging():
    r = run("echo one > log; echo two >> log; sleep 60", watch_s=1.5)
    # The whole-run limit (60 s) is the script's own length: stopped by the watch, not by it.
    assert r.stalled and not r.timed_out and not r.ok, r
    assert "no progress for 1.5 s" in r.verdict()


def test_watch_lets_a_slow_but_steady_program_finish():
    r = run("for i in 1 2 3 4 5 6; do sleep 0.5; echo $i >> log; done; exit 0", watch_s=1.5)
    assert r.ok and not r.stalled and not r.timed_out, r


def test_watch_counts_from_the_start():
    r = run("sleep 60", watch_s=1)   # the log never appears: a hang before the first result
    assert r.stalled and not r.timed_out, r


# The fake class: the lab 03 skeleton, one copy as is and three that hang (pause(): no CPU burnt):
# in tv_validate, the first function the tests call, one tries to stop the test program's parent
# process (the confinement refuses it: kill() of another process fails, so it hangs only itself,
# as the next one does) and one hangs itself (two tests call it); the last hangs in tv_contiguous
# (the function the benchmark times) on the benchmark's 64 MiB matrices only, so that its tests
# (the largest copy they make is under 1 MiB) fail at once as the skeleton's do.
def include(file, after, headers="#include <unistd.h>\n"):
    return {"file": file, "old": after, "new": after + headers}


CLASS = {
    "hang-none": [],
    "hang-parent": [include("src/view.c", '#include "view.h"\n',
                                    "#include <signal.h>\n#include <unistd.h>\n"),
                    {"file": "src/view.c", "old": "int tv_validate(const tv_t *v)\n{\n",
                     "new": "int tv_validate(const tv_t *v)\n{\n"
                            "    kill(getppid(), SIGSTOP);\n    for (;;) pause();\n"}],
    "hang-validate": [include("src/view.c", '#include "view.h"\n'),
                      {"file": "src/view.c", "old": "int tv_validate(const tv_t *v)\n{\n",
                       "new": "int tv_validate(const tv_t *v)\n{\n    for (;;) pause();\n"}],
    "hang-bench": [include("src/copy.c", "#include <string.h>\n"),
                   {"file": "src/copy.c",
                    "old": "int tv_contiguous(const tv_t *v, void *dst, size_t dst_bytes)\n{\n",
                    "new": "int tv_contiguous(const tv_t *v, void *dst, size_t dst_bytes)\n{\n"
                           "    while (dst_bytes > (16u << 20))\n        pause();\n"}],
}
VALIDATE = {"test_validate_accepts_and_rejects", "test_validate_edge_cases"}
# A safety net for a grader that hangs itself (not a measure: the assertions count limits).
BATCH_TIMEOUT_S = 1800


def results(out, who) -> dict[str, dict]:
    return {t["name"].split(" / ", 1)[1]: t for t in batch_results(out, who)["tests"]}


def test_batch_with_hanging_submissions_stops_each_hang_at_its_limit(tmp_path):
    subs, out = tmp_path / "subs", tmp_path / "out"
    for who, patches in CLASS.items():
        variants.make(SLUG, str(subs / who), patches, os.path.join(ROOT, "labs"))
    env = {**os.environ, **SANDBOX_ENV, "MLMEM_TEST_TIMEOUT_S": str(T),
           "MLMEM_BENCH_TIMEOUT_S": str(B)}
    proc = subprocess.run([sys.executable, "-m", "grader", "batch", str(subs), "--lab", "03",
                           "--jobs", "2", "--out", str(out)], cwd=ROOT, capture_output=True,
                          text=True, timeout=BATCH_TIMEOUT_S, env=env)
    print(proc.stdout)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with open(out / "summary.csv") as f:
        assert {r["student"]: r["status"] for r in csv.DictReader(f)} == dict.fromkeys(CLASS, "ok")

    tests = {who: results(out, who) for who in CLASS}
    stopped = f"the benchmark did not finish within its time limit ({B:g} s)"
    for who, res in tests.items():
        for name, t in res.items():
            metric = name.startswith("performance:")
            assert t["score"] == 0, (who, name, t)
            assert checkrun.STALLED not in t["output"], "the parent was stopped"
            if metric:
                assert (stopped in t["output"]) == (who == "hang-bench"), (who, name, t["output"])
            elif who in ("hang-validate", "hang-parent") and name in VALIDATE:
                assert "timeout" in t["output"].lower(), (who, name, t["output"])
            else:       # ran, and failed as the skeleton does
                assert "did not run" not in t["output"], (who, name, t["output"])
                assert "timeout" not in t["output"].lower(), (who, name, t["output"])
    # Counted: one test timeout per test that reached a stuck function, one benchmark limit.
    timeouts = sorted((who, name) for who, res in tests.items() for name, t in res.items()
                      if not name.startswith("performance:") and "timeout" in t["output"].lower())
    assert len(timeouts) == 2 * len(VALIDATE), timeouts
    stops = {who for who, res in tests.items() for name, t in res.items() if stopped in t["output"]}
    assert stops == {"hang-bench"}, stops
    assert sandbox_leftovers() == []
