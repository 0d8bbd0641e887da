"""Runs a lab's benchmark under limits, reads the one JSON object it prints, and scores each
metric of lab.toml on its linear ramp."""
from __future__ import annotations

import json
import os

from . import hw, sandbox
from .labs import Lab, Metric
from .results import FAILED, PARTIAL, PASSED, SKIPPED, Item


def parse_report(stdout: str) -> dict | None:
    """The last line of the text that parses as a JSON object, or None."""
    for line in reversed(stdout.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                obj = json.loads(line)
                return obj if isinstance(obj, dict) else None
            except ValueError:
                continue
    return None


def describe(m: Metric, value: float) -> str:
    better = "higher" if m.full > m.zero else "lower"
    src = "" if m.source == "lab.toml" else f"; thresholds from {m.source}"
    return (f"{value:.3g}{m.unit} (0 points at {m.zero:g}{m.unit}, full at {m.full:g}{m.unit}; "
            f"{better} is better{src})")


def score_metric(lab: Lab, m: Metric, report: dict | None, why_none: str) -> Item:
    item = Item(lab.id, "metric", m.name, m.points)
    skip = hw.unmet(m.requires)
    entry = (report or {}).get("metrics", {}).get(m.name)
    if skip:
        item.status, item.output = SKIPPED, skip
    elif not isinstance(entry, dict):
        item.output = f"not measured: {why_none}"
    elif "skipped" in entry:
        item.status, item.output = SKIPPED, str(entry["skipped"])
    elif "error" in entry:
        item.output = f"not measured: {entry['error']}"
    elif not isinstance(entry.get("value"), (int, float)):
        item.output = "not measured: the benchmark reported no number"
    else:
        item.value = float(entry["value"])
        item.score = round(m.score(item.value), 2)
        item.status = PASSED if item.score >= m.points else PARTIAL if item.score > 0 else FAILED
        detail = entry.get("detail")
        item.output = describe(m, item.value) + (f"; {detail}" if detail else "")
    return item


def run_bench(lab: Lab, binary: str, run_name: str) -> tuple[list[Item], dict | None, str]:
    """Runs the benchmark in sandbox.workdir(run_name). Returns the metric items, the
    benchmark's JSON report (None if unreadable), and its stderr (capped)."""
    skips = [hw.unmet(lab.requires) or hw.unmet(m.requires) for m in lab.metrics]
    if all(skips):  # nothing this machine can measure: don't run the benchmark
        return [Item(lab.id, "metric", m.name, m.points, status=SKIPPED, output=why)
                for m, why in zip(lab.metrics, skips)], None, ""
    limits = sandbox.Limits(timeout_s=lab.bench_timeout_s, address_space_mb=hw.address_space_mb(lab))
    run_dir = sandbox.workdir(run_name, binary)
    out = os.path.join(run_dir, "bench.json")
    env = sandbox.base_env(run_dir, MLMEM_BENCH_JSON=out)
    res = sandbox.run([os.path.join(run_dir, os.path.basename(binary))], limits, cwd=run_dir,
                      env=env)
    try:
        with open(out, errors="replace") as f:
            report = parse_report(f.read())
    except OSError:
        report = None
    why = (f"the benchmark ended ({res.verdict()}) without reporting it"
           if report is None or not res.ok else "the benchmark did not report it")
    items = [score_metric(lab, m, report, why) for m in lab.metrics]
    return items, report, res.stderr
