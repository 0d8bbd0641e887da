"""Calibration warns (grader/grading/calibrate.py): a metric measured in fewer runs than asked
gets no threshold; a naive variant earning points against the reference is flagged with its figure.
The benchmark is not run: its items are made here."""
import copy
import re

from grader.grading import calibrate
from grader.rules import labs, variants
from grader.rules.results import PASSED, SKIPPED, Item

SLUG = "lab03-tensor-strides"
METRIC = "contiguous_transposed"      # vs_reference: zero at 0.35, full at 0.8


def _seen(ref: float, naive: float, runs: int, skipped: int = 0) -> dict:
    lab = labs.load(SLUG)

    def items(v):
        return [Item(lab.id, "metric", m.name, m.points, 0, PASSED, "", v) for m in lab.metrics]
    seen = {"reference": {m.name: [] for m in lab.metrics},
            "naive": {m.name: [] for m in lab.metrics}}
    for r in range(runs):
        for who, v in (("reference", ref), ("naive", naive)):
            for it in items(v):
                if r < skipped:
                    it.status, it.value = SKIPPED, None
                seen[who][it.name].append(it)
    return seen


def test_a_naive_variant_that_earns_points_is_flagged_with_its_figure():
    lab = labs.load(SLUG)
    assert METRIC in variants.declared(SLUG)["naive"]["metrics_zero"]
    flags = calibrate.naive_earning(lab, _seen(1.0, 0.42, 4))
    assert any(f.startswith(f"{METRIC}: naive variant naive at 0.42") and "0.35" in f
               for f in flags), flags
    assert not [f for f in calibrate.naive_earning(lab, _seen(1.0, 0.2, 4)) if METRIC in f]


def test_a_naive_variant_under_the_floor_is_not_flagged():
    """A floor scores the naive variant zero whatever its fraction: calibration reads it too."""
    lab = copy.deepcopy(labs.load(SLUG))
    m = next(m for m in lab.metrics if m.name == METRIC)
    seen = _seen(1.0, 0.42, 4)
    m.vs_reference = dict(m.vs_reference, floor=0.45)
    assert not [f for f in calibrate.naive_earning(lab, seen) if METRIC in f]
    said = []
    calibrate.summary_vs_reference(lab, seen, out=said.append)
    naive = next(s for s in said if s.strip().startswith(METRIC) and " naive " in s)
    assert re.search(r" 0 +2  of 2 ", naive) and "floor 0.45" in naive, naive  # full, zero
    m.vs_reference["floor"] = 0.4
    assert [f for f in calibrate.naive_earning(lab, seen) if METRIC in f]


def test_fewer_measured_runs_than_asked_writes_no_thresholds(tmp_path, monkeypatch):
    lab = labs.load(SLUG)
    monkeypatch.setattr(calibrate, "measure", lambda *a, **k: _seen(1.0, 0.1, 4, skipped=1))
    monkeypatch.setattr(calibrate, "summary", lambda *a, **k: None)
    said = []
    calibrate.run(lab, 4, 0.15, str(tmp_path / "t.toml"), out=said.append)
    assert not (tmp_path / "t.toml").exists()
    assert any("reference measured in 3 of 4 runs" in s for s in said), said
    assert any("no thresholds written" in s for s in said)


def test_only_the_short_metric_is_left_out(tmp_path, monkeypatch):
    lab = labs.load(SLUG)
    seen = _seen(1.0, 0.1, 4)
    seen["reference"][METRIC][0].status, seen["reference"][METRIC][0].value = SKIPPED, None
    monkeypatch.setattr(calibrate, "measure", lambda *a, **k: seen)
    monkeypatch.setattr(calibrate, "summary", lambda *a, **k: None)
    monkeypatch.setattr(calibrate, "machine", lambda: "a test machine")
    said = []
    calibrate.run(lab, 4, 0.15, str(tmp_path / "t.toml"), out=said.append)
    text = (tmp_path / "t.toml").read_text()
    assert f"[lab{lab.id}.{METRIC}]" not in text, text
    others = [m.name for m in lab.metrics if m.name != METRIC]
    assert others and all(f"[lab{lab.id}.{m}]" in text for m in others), text
    assert any(s.strip().startswith(f"none for {METRIC}") for s in said), said
