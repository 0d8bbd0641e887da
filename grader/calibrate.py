"""`make calibrate LAB=NN [RUNS=20]`: runs the benchmark of the reference and of each naive
variant RUNS times, alternating, and prints per metric the min/median/max value and how many runs
got full credit / zero credit under lab.toml's thresholds, and how many were skipped (the
benchmark found the machine could not show the effect): the evidence a threshold needs (the
reference full every time it is measured, the naive variants zero every time)."""
from __future__ import annotations

import os
import statistics
import tempfile

from . import bench, build, variants
from .labs import Lab
from .results import SKIPPED


def _binaries(lab: Lab, scratch: str) -> dict[str, str]:
    subs = {"reference": variants.SOLUTIONS}
    for name, spec in variants.declared(lab.slug).items():
        subs[name] = variants.make(lab.slug, os.path.join(scratch, name), spec["patch"])
    out = {}
    for name, tree in subs.items():
        built = build.build(lab, tree, tag=f"calibrate-{name}")
        if not built.ok:
            raise SystemExit(f"{name} does not build:\n{build.first_errors(built.log)}")
        out[name] = os.path.join(built.out_dir, "bench")
    return out


def run(lab: Lab, runs: int, out=print) -> dict:
    """Returns {variant: {metric: [item, ...]}} and prints the summary table."""
    with tempfile.TemporaryDirectory() as scratch:
        bins = _binaries(lab, scratch)
        seen: dict = {v: {m.name: [] for m in lab.metrics} for v in bins}
        for r in range(runs):
            for v, binary in bins.items():
                items, _, _ = bench.run_bench(lab, binary, f"calibrate-{lab.slug}-{v}")
                for it in items:
                    seen[v][it.name].append(it)
            out(f"  run {r + 1}/{runs} done")
    out(f"\nlab {lab.id}: {runs} runs each, thresholds from lab.toml")
    out(f"  {'metric':<20} {'variant':<10} {'min':>7} {'median':>7} {'max':>7}  full  zero  "
        "skip  (zero at / full at)")
    for m in lab.metrics:
        for v in bins:
            its = seen[v][m.name]
            skip = sum(i.status == SKIPPED for i in its)
            its = [i for i in its if i.status != SKIPPED]
            vals = [i.value for i in its if i.value is not None]
            if not vals:
                out(f"  {m.name:<20} {v:<10} not measured ({skip} skipped): "
                    f"{its[0].output if its else ''}")
                continue
            full = sum(i.score >= m.points for i in its)
            zero = sum(i.score == 0 for i in its)
            out(f"  {m.name:<20} {v:<10} {min(vals):7.3g} {statistics.median(vals):7.3g} "
                f"{max(vals):7.3g}  {full:>4}  {zero:>4}  {skip:>4}  ({m.zero:g} / {m.full:g})")
    return seen
