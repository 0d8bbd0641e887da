"""`make plots` (grader/reports/plots.py): a lab.toml plot spec drawn from a benchmark's series, with
labelled points over the lines (lab 10's roofline) and readable log-2 ticks."""
from __future__ import annotations

import pytest

from grader.reports import plots

matplotlib = pytest.importorskip("matplotlib")

ROOF = {"flop_per_byte": [1 / 64, 1 / 8, 1, 4.4, 8, 64],
        "gflops": [0.42, 3.3, 26.8, 118.0, 118.0, 118.0]}
KERNELS = {"flop_per_byte": [0.5, 0.875], "gflops": [9.2, 11.7], "which": [0, 2]}
SPEC = {"series": "roofline", "x": "flop_per_byte", "y": "gflops", "labels": ["roofline"],
        "points": "kernels", "point_labels": ["GEMV", "softmax", "LayerNorm"], "logx": True,
        "logy": True}


@pytest.mark.parametrize("v, label", [(1 / 64, "1/64"), (0.125, "1/8"), (1, "1"),
                                      (4096, "4096"), (1 << 20, "1048576"), (1.5, "1.5"),
                                      (0.3, "0.3")])
def test_log2_ticks_read_as_numbers(v, label):
    assert plots.pow2_label(v) == label


def test_points_are_drawn_with_their_labels(tmp_path, monkeypatch):
    seen = {}
    real = plots.draw_points

    def spy(ax, spec, pts):
        real(ax, spec, pts)
        seen["labels"] = [line.get_label() for line in ax.get_lines()]
    monkeypatch.setattr(plots, "draw_points", spy)
    out = tmp_path / "roof.png"
    plots.draw(SPEC, ROOF, str(out), KERNELS)
    assert out.stat().st_size > 1000
    # the line, then one point per kernel named by its `which` index
    assert seen["labels"] == ["roofline", "GEMV", "LayerNorm"]


def test_a_plot_without_points_still_draws(tmp_path):
    out = tmp_path / "line.png"
    plots.draw({"series": "s", "x": "x", "y": "y", "logx": True}, {"x": [1, 2, 4], "y": [3, 2, 1]},
               str(out))
    assert out.stat().st_size > 1000
