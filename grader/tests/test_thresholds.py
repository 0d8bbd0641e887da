"""The course's thresholds file: `make calibrate` proposes and writes it, the grader reads it in
place of lab.toml's defaults, and a bad file is an error that names it."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT
from grader.rules import labs, thresholds

SLUG = "lab01-cache-lines"


def test_propose_sits_inside_the_measured_gap():
    zero, full, note = thresholds.propose(1.9, 2.3, ref=[3.0, 4.0, 5.0], naive=[0.8, 1.1],
                                          margin=0.1)
    assert (zero, full) == (1.21, 2.7) and "margin" in note


def test_propose_lower_is_better():
    zero, full, _ = thresholds.propose(0.5, 0.2, ref=[0.05, 0.1], naive=[0.9, 1.0], margin=0.1)
    assert (zero, full) == (0.81, 0.11)


def test_propose_keeps_defaults_when_runs_overlap():
    zero, full, note = thresholds.propose(1.9, 2.3, ref=[1.0, 2.0], naive=[1.5, 3.0], margin=0.1)
    assert (zero, full) == (1.9, 2.3) and "overlap" in note


def test_propose_without_naive_keeps_the_ramp_shape():
    zero, full, _ = thresholds.propose(1.0, 2.0, ref=[4.0], naive=[], margin=0.0)
    assert (zero, full) == (2.0, 4.0)


def test_grader_reads_the_file(tmp_path, monkeypatch):
    f = tmp_path / "t.toml"
    thresholds.write(str(f), {"lab01": {"stats_speedup": {
        "zero": 1.1, "full": 1.7, "reference": [2.0, 2.5], "naive": [0.9], "note": "test"}}}, "m")
    monkeypatch.setenv("MLMEM_THRESHOLDS", str(f))
    m = {x.name: x for x in labs.load(SLUG).metrics}
    assert (m["stats_speedup"].zero, m["stats_speedup"].full) == (1.1, 1.7)
    assert m["stats_speedup"].source.endswith("t.toml")
    assert m["counters_speedup"].source == "lab.toml"


@pytest.mark.parametrize("body,why", [
    ("[lab01.stats_speedup]\nzero = 2\nfull = 2\n", "zero != full"),
    ("[lab01.stats_speedup]\nzero = 3\nfull = 1\n", "direction"),
    ("[lab01\n", "lab01"),
])
def test_bad_file_is_named(tmp_path, monkeypatch, body, why):
    f = tmp_path / "bad.toml"
    f.write_text(body)
    monkeypatch.setenv("MLMEM_THRESHOLDS", str(f))
    with pytest.raises(labs.LabError, match="bad.toml") as e:
        labs.load(SLUG)
    assert why in str(e.value) or why == "lab01"


@pytest.mark.slow
def test_calibrate_writes_a_file_the_grader_uses(tmp_path):
    # Lab 07: its deterministic metrics are measured on any machine, busy or not (lab 01's are
    # skipped when the machine cannot show false sharing, and then nothing is proposed).
    dest = tmp_path / "thresholds.toml"
    proc = subprocess.run([sys.executable, "-m", "grader", "calibrate", "--lab", "07", "--runs",
                           "1", "--write", str(dest)], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "proposed thresholds for lab 07" in proc.stdout
    assert "| reserved_over_allocated | reference | 1 |" in proc.stdout, "the handout table"
    text = dest.read_text()
    assert "[lab07.reserved_over_allocated]" in text and "reference = { min" in text
    env = {**os.environ, "MLMEM_THRESHOLDS": str(dest)}
    out = subprocess.run([sys.executable, "-c", "from grader.rules import labs; print([m.source for m "
                          "in labs.load('lab07-caching-allocator').metrics])"],
                         cwd=ROOT, capture_output=True, text=True, env=env)
    assert "thresholds.toml" in out.stdout
