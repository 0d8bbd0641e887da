"""The seed a test run prints for replay: fresh and unrelated from run to run when none is given
(runs started in the same second once differed only in their pid's low bits), and MLMEM_SEED
(the grader's --seed) replays it: same seed, same tests, same messages."""
import os
import re
import subprocess

import pytest

from conftest import ROOT
from grader.grading import build, checkrun
from grader.rules import labs

SLUG = "lab03-tensor-strides"   # builds in seconds; its tests draw random shapes from the seed


@pytest.fixture(scope="module")
def check_lab():
    built = build.build(labs.load(SLUG), os.path.join(ROOT, "labs"), tag="test-seeds")
    assert built.ok, built.log
    return os.path.join(built.out_dir, "check_lab")


def run(binary, **env) -> str:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "CK_FORK": "yes",
           "CK_VERBOSITY": "verbose", **env}
    proc = subprocess.run([binary], capture_output=True, text=True, timeout=120, env=env,
                          cwd=os.path.dirname(binary))
    return proc.stdout


def seed_of(stdout: str) -> int:
    m = re.search(r"^mlmem: seed (\d+) \(replay with MLMEM_SEED=(\d+)\)$", stdout, re.M)
    assert m and m.group(1) == m.group(2), stdout[:500]
    return int(m.group(1))


def without_seed(stdout: str) -> str:
    return re.sub(r"^mlmem: seed .*\n", "", stdout, flags=re.M)


def test_fresh_seeds_are_unrelated(check_lab):
    seeds = [seed_of(run(check_lab, CK_RUN_SUITE="no such suite")) for _ in range(4)]
    assert len(set(seeds)) == len(seeds), seeds
    for a, b in zip(seeds, seeds[1:]):   # not a clock plus a pid: both halves differ
        assert (a ^ b) >> 32 and (a ^ b) & 0xFFFFFFFF, (hex(a), hex(b))


def test_mlmem_seed_replays(check_lab):
    first = run(check_lab)
    seed = seed_of(first)
    again = run(check_lab, MLMEM_SEED=str(seed))
    assert seed_of(again) == seed
    assert again == first   # the same random shapes ("332 x 319"), so the same messages
    other = run(check_lab, MLMEM_SEED=str(seed ^ 1))
    assert seed_of(other) == seed ^ 1
    assert without_seed(other) != without_seed(first)   # the shapes do come from the seed


def test_grader_passes_the_seed(check_lab):
    lab = labs.load(SLUG)
    _, transcript, _ = checkrun.run_tests(lab, check_lab, "test-seeds-replay", "12345678901")
    assert "mlmem: seed 12345678901 (replay with MLMEM_SEED=12345678901)" in transcript
    _, transcript, _ = checkrun.run_tests(lab, check_lab, "test-seeds-secret", "4242424242424",
                                          secret=True)
    assert "seed set by the course staff (secret)" in transcript
    assert "4242424242424" not in transcript
