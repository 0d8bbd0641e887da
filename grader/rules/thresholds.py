"""The course's thresholds file: performance thresholds measured on the grading machine by
`make calibrate`, read by the grader in place of lab.toml's defaults when present.

    [lab03.transpose_speedup]          # one table per lab and metric
    zero = 1.6                         # the ramp the grader uses
    full = 3.1
    reference = { min = 3.6, median = 4.1, max = 4.6, runs = 20 }
    naive = { min = 0.9, median = 1.0, max = 1.2, runs = 20 }
    margin = 0.15

The file is THRESHOLDS (make) / MLMEM_THRESHOLDS (environment), else thresholds.toml at the top
of the repository."""
from __future__ import annotations

import datetime
import os
import re
import statistics

from . import config, settings
from .config import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT = os.path.join(ROOT, "thresholds.toml")


# The thresholds file exists but cannot be used: the one configuration error (grader/rules/config.py).
ThresholdsError = config.ConfigError

# The keys of a [labNN.metric] table and of its reference/naive figures.
ENTRY_KEYS = ("zero", "full", "reference", "naive", "margin", "note")
FIGURE_KEYS = ("min", "median", "max", "runs")


def path() -> str:
    return settings.current().thresholds or DEFAULT


def load() -> dict[str, dict[str, dict]]:
    """{"lab03": {"transpose_speedup": {"zero": .., "full": .., ...}}}, or {} without a file.
    Raises ConfigError naming the file and the entry on an unknown key or a wrong value; the
    metric names are checked against lab.toml by grader/rules/labs.py."""
    p = path()
    if not os.path.isfile(p):
        if p != DEFAULT:
            raise ThresholdsError(f"{p}: no such thresholds file")
        return {}
    data, shown = config.read(p), config.shown(p)
    for lab, metrics in data.items():
        if not re.fullmatch(r"lab\d\d", lab) or not isinstance(metrics, dict):
            raise ThresholdsError(f"{shown}: [{lab}] should be a lab's table, [labNN.<metric>]")
        for name, t in metrics.items():
            _check_entry(t, f"{shown}: [{lab}.{name}]")
    return data


def _check_entry(t, where: str):
    """One [labNN.metric] table: numbers zero != full, known keys only."""
    if not isinstance(t, dict):
        raise ThresholdsError(f"{where} needs numbers zero != full")
    config.check_keys(t, ENTRY_KEYS, where)
    if config.get(t, "zero", float, where) == config.get(t, "full", float, where):
        raise ThresholdsError(f"{where} needs numbers zero != full")
    config.get(t, "margin", float, where, None)
    config.get(t, "note", str, where, None)
    for side in ("reference", "naive"):
        fig = config.get(t, side, dict, where, {})
        config.check_keys(fig, FIGURE_KEYS, f"{where} {side}")
        for key in FIGURE_KEYS:
            config.get(fig, key, float, f"{where} {side}", None)


def propose(zero: float, full: float, ref: list[float], naive: list[float],
            margin: float) -> tuple[float, float, str]:
    """New (zero, full) for a metric from the reference's and the naive variants' values:
    full sits `margin` inside the reference's worst run, zero `margin` beyond the naive's best.
    The direction (higher or lower is better) is lab.toml's. Without naive figures zero keeps
    lab.toml's distance below full; if the two cannot be separated the defaults stay."""
    up = full > zero
    if not ref:
        return zero, full, "kept lab.toml's thresholds: the reference was not measured"
    worst = min(ref) if up else max(ref)
    new_full = worst * (1 - margin) if up else worst * (1 + margin)
    if naive:
        best = max(naive) if up else min(naive)
        new_zero = best * (1 + margin) if up else best * (1 - margin)
    else:
        new_zero = new_full * (zero / full) if full else zero
    if (new_zero >= new_full) if up else (new_zero <= new_full):
        return zero, full, ("kept lab.toml's thresholds: the reference and the naive variant "
                            "overlap on this machine (see the figures)")
    return round(new_zero, 3), round(new_full, 3), f"margin {margin:g}"


def _num(x: float) -> str:
    return f"{x:.4g}" if isinstance(x, float) else str(x)


def _stats(vals: list[float]) -> str:
    if not vals:
        return "{ runs = 0 }"
    return (f"{{ min = {_num(min(vals))}, median = {_num(statistics.median(vals))}, "
            f"max = {_num(max(vals))}, runs = {len(vals)} }}")


def write(p: str, entries: dict[str, dict[str, dict]], machine: str):
    """Writes (merging with what `p` already holds for other labs and metrics) the entries
    {lab: {metric: {zero, full, reference: [..], naive: [..], note}}}."""
    old = {}
    if os.path.isfile(p):
        with open(p, "rb") as f:
            old = tomllib.load(f)
    for lab, metrics in entries.items():
        old.setdefault(lab, {}).update(metrics)
    lines = ["# Performance thresholds measured on this course's grading machine by `make "
             "calibrate`;", "# the grader uses them in place of lab.toml's defaults "
             "(grader/rules/thresholds.py).", f"# last written {datetime.date.today()} on {machine}", ""]
    for lab in sorted(old):
        for name in sorted(old[lab]):
            t = old[lab][name]
            lines.append(f"[{lab}.{name}]")
            lines.append(f"zero = {_num(float(t['zero']))}")
            lines.append(f"full = {_num(float(t['full']))}")
            for side in ("reference", "naive"):
                v = t.get(side)
                lines.append(f"{side} = " + (_stats(v) if isinstance(v, list) else
                                             "{ " + ", ".join(f"{k} = {_num(x)}" for k, x in
                                                              (v or {"runs": 0}).items()) + " }"))
            if t.get("note"):
                lines.append(f'note = "{t["note"]}"')
            lines.append("")
    os.makedirs(os.path.dirname(os.path.abspath(p)), exist_ok=True)
    with open(p + ".tmp", "w") as f:
        f.write("\n".join(lines))
    os.replace(p + ".tmp", p)
