"""`make calibrate [LAB=NN] [RUNS=20] [MARGIN=0.15]`: runs the benchmark of the reference and of
each naive variant RUNS times, alternating; prints per metric the min/median/max value and how
many runs got full / zero credit under the current thresholds (and how many were skipped: the
benchmark found the machine could not show the effect); then proposes thresholds from the
figures and writes them to the course's thresholds file (grader/rules/thresholds.py), which the
grader uses from then on."""
from __future__ import annotations

import datetime
import os
import platform
import statistics
import tempfile

from . import bench, build, hw
from ..rules import thresholds, variants
from ..rules.config import ConfigError
from ..rules.labs import Lab
from ..rules.results import SKIPPED


def _binaries(lab: Lab, scratch: str) -> dict[str, str]:
    subs = {"reference": variants.SOLUTIONS}
    for name, spec in variants.declared(lab.slug).items():
        subs[name] = variants.make(lab.slug, os.path.join(scratch, name), spec["patch"])
    out = {}
    for name, tree in subs.items():
        built = build.build(lab, tree, tag=f"calibrate-{name}")
        if not built.ok:
            raise ConfigError(f"{name} does not build:\n{build.first_errors(built.log)}")
        out[name] = os.path.join(built.out_dir, "bench")
    return out


def measure(lab: Lab, runs: int, out=print) -> dict:
    """{variant: {metric: [item, ...]}}: RUNS benchmark runs of every variant, alternating."""
    if not os.path.isdir(os.path.join(variants.SOLUTIONS, lab.slug)):
        raise ConfigError(f"calibration needs the reference solution (solutions/{lab.slug}/), "
                          "which this tree does not have")
    with tempfile.TemporaryDirectory() as scratch:
        bins = _binaries(lab, scratch)
        seen: dict = {v: {m.name: [] for m in lab.metrics} for v in bins}
        for r in range(runs):
            for v, binary in bins.items():
                items = bench.run_bench(lab, binary, f"calibrate-{lab.slug}-{v}").items
                for it in items:
                    seen[v][it.name].append(it)
            out(f"  run {r + 1}/{runs} done")
    return seen


def _values(items) -> list[float]:
    return [i.value for i in items if i.status != SKIPPED and i.value is not None]


def fractions(m, seen: dict, variant: str) -> list[tuple[float, float]]:
    """What the grader scores where the reference is at hand, as calibration's alternating
    runs give it: each round's figure over the reference's of the same round (the reference:
    over its next round's), then, for each two consecutive rounds (bench.ROUNDS), the median of
    those fractions and of the variant's own figures (a floor reads the latter)."""
    ref = [i.value if i.status != SKIPPED else None for i in seen["reference"][m.name]]
    mine = [i.value if i.status != SKIPPED else None for i in seen[variant][m.name]]
    if variant == "reference":
        mine, ref = mine[:-1], ref[1:]
    per_round = [(bench.fraction(m, y, r), y) if y is not None and r is not None else (None, y)
                 for y, r in zip(mine, ref)]
    k = bench.ROUNDS
    groups = [[(f, y) for f, y in per_round[i:i + k] if f is not None]
              for i in range(0, len(per_round), k)]
    return [(statistics.median(f for f, _ in g), statistics.median(y for _, y in g))
            for g in groups if g]


def _floor_text(m) -> str:
    """", floor F" for a metric whose vs_reference has one (its own figure no better than F
    scores nothing), else ""."""
    floor = m.vs_reference.get("floor")
    return "" if floor is None else f", floor {floor:g}{m.unit}"


def _scores(m, pairs: list[tuple[float, float]]) -> list[float]:
    return [m.score_vs_reference(f, v) for f, v in pairs]


def summary_vs_reference(lab: Lab, seen: dict, out=print):
    timed = [m for m in lab.metrics if m.vs_reference]
    if not timed:
        return
    out(f"\n  as scored where the reference is at hand (yours / reference, same round; median of "
        f"{bench.ROUNDS} rounds)")
    for m in timed:
        t = m.vs_reference
        for v in seen:
            pairs = fractions(m, seen, v)
            if not pairs:
                continue
            fr, scores = [f for f, _ in pairs], _scores(m, pairs)
            full, zero = sum(x >= m.points for x in scores), sum(x == 0 for x in scores)
            out(f"  {m.name:<24} {v:<10} {min(fr):7.3g} {statistics.median(fr):7.3g} "
                f"{max(fr):7.3g}  {full:>4}  {zero:>4}  of {len(fr)}  ({t['zero']:g} / "
                f"{t['full']:g} of the reference{_floor_text(m)})")


def _full_zero(m, its) -> tuple[int, int, int]:
    """Of the runs not skipped: how many got full credit, how many zero, and how many there were."""
    scored = [i for i in its if i.status != SKIPPED]
    return (sum(i.score >= m.points for i in scored), sum(i.score == 0 for i in scored),
            len(scored))


def _cell(vals: list[float]) -> str:
    return " | ".join(f"{x:.3g}" for x in (min(vals), statistics.median(vals), max(vals)))


def handout_table(lab: Lab, seen: dict, runs: int) -> list[str]:
    """The calibration table for the lab's handout, one row per metric and variant."""
    rows = [f"On {hw.cpu_model()}, {hw.facts().get('cores', '?')} cores, `make calibrate LAB={lab.id} "
            f"RUNS={runs}` ({datetime.date.today()}):", "",
            "| metric | variant | runs | min | median | max | full | zero | skipped | "
            "vs reference (min / median / max) |", "|---|---|---|---|---|---|---|---|---|---|"]
    for m in lab.metrics:
        for v, per_metric in seen.items():
            its = per_metric[m.name]
            vals, skip = _values(its), sum(i.status == SKIPPED for i in its)
            full, zero, scored = _full_zero(m, its)
            fr = [f for f, _ in fractions(m, seen, v)] if m.vs_reference else []
            rows.append(f"| {m.name} | {v} | {len(its)} | " +
                        (_cell(vals) if vals else "— | — | —") +
                        f" | {full}/{scored} | {zero}/{scored} | {skip} | " +
                        (" / ".join(f"{x:.2f}" for x in (min(fr), statistics.median(fr),
                                                         max(fr))) if fr else "—") + " |")
    return rows


def summary(lab: Lab, seen: dict, runs: int, out=print):
    out(f"\nlab {lab.id} on {hw.cpu_model()} ({hw.facts().get('cores', '?')} cores): {runs} runs "
        "each; full/zero counted under the current thresholds")
    out(f"  {'metric':<24} {'variant':<10} {'min':>7} {'median':>7} {'max':>7}  full  zero  "
        "skip  (zero at / full at)")
    for m in lab.metrics:
        for v, per_metric in seen.items():
            its = per_metric[m.name]
            skip = sum(i.status == SKIPPED for i in its)
            vals = _values(its)
            if not vals:
                why = next((i.output for i in its), "")
                out(f"  {m.name:<24} {v:<10} not measured ({skip} skipped): {why}")
                continue
            full, zero, _ = _full_zero(m, its)
            out(f"  {m.name:<24} {v:<10} {min(vals):7.3g} {statistics.median(vals):7.3g} "
                f"{max(vals):7.3g}  {full:>4}  {zero:>4}  {skip:>4}  ({m.zero:g} / {m.full:g})")
    summary_vs_reference(lab, seen, out)
    out("\n  for the handout's Calibration section:\n")
    for row in handout_table(lab, seen, runs):
        out("  " + row)


def proposals(lab: Lab, seen: dict, margin: float) -> dict[str, dict]:
    """{metric: {zero, full, reference, naive, note}} for the thresholds file. Naive figures
    come from the variants that claim to score zero on the metric (variants.toml)."""
    declared = variants.declared(lab.slug)
    out = {}
    for m in lab.metrics:
        ref = _values(seen["reference"][m.name])
        naive = [x for v, spec in declared.items() if m.name in spec.get("metrics_zero", [])
                 for x in _values(seen[v][m.name])]
        zero, full, note = thresholds.propose(m.zero, m.full, ref, naive, margin)
        out[m.name] = {"zero": zero, "full": full, "reference": ref, "naive": naive,
                       "note": note}
    return out


def short_runs(lab: Lab, seen: dict, runs: int) -> dict[str, list[str]]:
    """{metric: a warning per variant} for each metric that some variant measured in fewer runs
    than were asked (skipped, or no figure): thresholds proposed from them would rest on too
    little, so none is written for that metric."""
    short: dict[str, list[str]] = {}
    for v, per in seen.items():
        for m in lab.metrics:
            n = len(_values(per[m.name]))
            if n < runs:
                short.setdefault(m.name, []).append(f"{m.name}: {v} measured in {n} of {runs} runs")
    return short


def naive_earning(lab: Lab, seen: dict) -> list[str]:
    """A flag per naive variant that earns points against the reference on a metric it claims
    to score zero on (variants.toml's metrics_zero): its median fraction of the reference, and
    the ramp's zero point it should sit at or below."""
    flags = []
    for v, spec in variants.declared(lab.slug).items():
        for m in lab.metrics:
            if not m.vs_reference or m.name not in spec.get("metrics_zero", []) or v not in seen:
                continue
            pairs = fractions(m, seen, v)
            fr = [f for f, _ in pairs]
            if any(x > 0 for x in _scores(m, pairs)):
                flags.append(f"{m.name}: naive variant {v} at {statistics.median(fr):.2f} of the "
                             f"reference (max {max(fr):.2f}); it scores zero only at or below "
                             f"{m.vs_reference['zero']:g}{_floor_text(m)}")
    return flags


def machine() -> str:
    f = hw.facts()
    return f"{platform.node() or 'this machine'}, {hw.cpu_model()} ({f.get('cores', '?')} cores)"


def run(lab: Lab, runs: int, margin: float, dest: str | None, out=print) -> dict:
    """Measures, prints the summary and the warnings (runs that measured nothing, naive variants
    earning points against the reference), and writes to dest (None: propose nothing) the
    proposed thresholds of the metrics every run measured (none for the others)."""
    seen = measure(lab, runs, out)
    summary(lab, seen, runs, out)
    for flag in naive_earning(lab, seen):
        out(f"  WARNING: {flag}")
    short = short_runs(lab, seen, runs)
    for line in (w for ws in short.values() for w in ws):
        out(f"  WARNING: {line}")
    if dest is None:
        return seen
    prop = {k: p for k, p in proposals(lab, seen, margin).items() if k not in short}
    if not prop:
        out(f"\nno thresholds written to {os.path.relpath(dest)}: fewer runs measured than asked "
            "(above); calibrate again on an idle machine")
        return seen
    out(f"\nproposed thresholds for lab {lab.id} (written to {os.path.relpath(dest)}):")
    for name, p in prop.items():
        out(f"  {name:<24} zero {p['zero']:g}, full {p['full']:g}  ({p['note']})")
    if short:
        out(f"  none for {', '.join(short)}: fewer runs measured than asked (above)")
    thresholds.write(dest, {f"lab{lab.id}": prop}, machine())
    return seen
