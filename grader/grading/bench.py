"""Runs a lab's benchmark under limits, reads the one JSON object it prints, and scores each
metric of lab.toml: where the reference solution is at hand, a timed metric (one with
`vs_reference`) as a fraction of the reference's figure measured in the same run, the two
benchmarks interleaved; otherwise on the metric's calibrated ramp.

A benchmark gets one time limit, bench_timeout_s, for the whole run, and no earlier cut-off: it
writes its report once, at its end, and its metrics take from milliseconds to a minute each, so
nothing it does on the way tells a stuck benchmark from a slow one. What is cut is the
repetition: a run of the submission's benchmark that reaches its limit is not run again (a hang
then costs one bench_timeout_s, not ROUNDS of them), and the reference's runs once beside it: if
that one reaches its limit too, the machine is too busy and the metrics are skipped, not failed."""
from __future__ import annotations

import json
import os
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ..confinement import boundary, isolation, sandbox, seal
from ..rules import hostenv
from . import hw
from ..rules.labs import Lab, Metric
from ..rules.results import FAILED, PARTIAL, PASSED, SKIPPED, Item

# Paired runs of yours and the reference's benchmark, in the order yours, reference, reference,
# yours, ...: a drift of the machine's load during the pairs hits both sides alike. When the
# pairs disagree (a neighbour's job started or stopped during one of them: a fraction more than
# SPREAD apart from another, on either side of a point of the ramp), more pairs run, up to
# MAX_ROUNDS, and the median of them all counts, so that one disturbed pair cannot decide the
# score. Pairs that all score zero, or all full marks, need no more. A metric scores only from
# MIN_PAIRS pairs where both sides measured it: while fewer survive (a pair where either side
# skipped it: a neighbour's burst, an idle check), more pairs run, up to MAX_ROUNDS; with fewer
# still, it is skipped with the reasons, never scored from one pair.
ROUNDS = 2
MAX_ROUNDS = 5
# A submission's run stopped at its time limit is the machine's doing, not a hang, when the
# reference's run beside it takes more than this share of the limit (_cut_short).
BUSY_SHARE = 0.5
MIN_PAIRS = 2
SPREAD = 1.15


@dataclass
class Run:
    """One run of a benchmark: its JSON report (None if unreadable), why there is none, and
    its standard error (capped)."""
    report: dict | None
    why_none: str
    stderr: str = ""
    timed_out: bool = False
    dropped_bytes: int = 0            # output beyond the sandbox's cap, counted and dropped
    removed_ipc: list[str] = field(default_factory=list)   # sandbox.RunResult.removed_ipc
    wall_s: float = 0.0               # how long it ran


@dataclass
class BenchResult:
    """What run_bench found: one scored item per metric of lab.toml, and the submission's runs
    (none when this machine could measure nothing, so the benchmark did not run)."""
    items: list[Item]
    runs: list[Run] = field(default_factory=list)

    @property
    def report(self) -> dict | None:
        """The JSON report of the submission's first run (None: none, or unreadable)."""
        return self.runs[0].report if self.runs else None

    @property
    def info(self) -> dict:
        """The report's `info` object: figures the benchmark shows but does not score."""
        info = (self.report or {}).get("info")
        return info if isinstance(info, dict) else {}

    @property
    def notes(self) -> list[str]:
        """What the score table does not show but results.json should: output dropped."""
        dropped = sum(r.dropped_bytes for r in self.runs)
        removed = [w for r in self.runs for w in r.removed_ipc]
        return ([f"the benchmark's output was cut: {dropped} more bytes dropped"] if dropped else
                []) + ([sandbox.ipc_note(removed)] if removed else [])


def parse_report(text: str) -> dict | None:
    """The report: exactly one JSON object (what the harness sends), or None."""
    try:
        obj = json.loads(text)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


def speaks_for_itself(m: Metric) -> bool:
    """A metric scored 0 to 1 on a 0-to-1 scale: a match (1 or 0) or a share the benchmark
    counts out in its detail ("12 of 12 GPUs ..."); the detail says it better than the ramp."""
    return (m.zero, m.full) == (0.0, 1.0)


def describe(m: Metric, value: float) -> str:
    better = "higher" if m.higher_is_better else "lower"
    if not m.points:
        return (f"{value:.3g}{m.unit} (shown, worth no points; the goal is {m.full:g}{m.unit} "
                f"or {'more' if m.higher_is_better else 'less'})")
    src = "" if m.source == "lab.toml" else f"; thresholds from {m.source}"
    how = ("; provisional: thresholds calibrated on the course's machine, not on this one; "
           "course staff score it against the reference"
           if m.vs_reference else "")
    return (f"{value:.3g}{m.unit} (0 points at {m.zero:g}{m.unit}, full at {m.full:g}{m.unit}; "
            f"{better} is better{src}{how})")


def _entry(report: dict | None, name: str):
    return (report or {}).get("metrics", {}).get(name)


def _measured(entry) -> bool:
    return (isinstance(entry, dict) and "skipped" not in entry and "error" not in entry and
            isinstance(entry.get("value"), (int, float)))


def score_metric(lab: Lab, m: Metric, report: dict | None, why_none: str) -> Item:
    """A metric scored on its ramp (lab.toml's or the course's thresholds file's)."""
    item = Item(lab.id, "metric", m.name, m.points)
    skip = hw.skip(lab, m)
    entry = _entry(report, m.name)
    if skip:
        item.status, item.output, item.lasting = SKIPPED, skip, True
    elif not isinstance(entry, dict):
        item.output = f"failed: {why_none}"
    elif "skipped" in entry:
        item.status, item.output = SKIPPED, str(entry["skipped"])
    elif "error" in entry:
        item.output = f"failed: {entry['error']}"
    elif not isinstance(entry.get("value"), (int, float)):
        item.output = "failed: the benchmark reported no number for it"
    else:
        _scored(item, m, float(entry["value"]), m.score(float(entry["value"])),
                describe(m, float(entry["value"])), entry.get("detail"))
    return item


def _scored(item: Item, m: Metric, value: float, score: float, how: str, detail):
    """Fills in a measured item; `how` is the scoring arithmetic, `detail` the benchmark's
    words, which alone speak for a 0-to-1 metric (speaks_for_itself)."""
    item.value = value
    item.score = round(score, 2)
    item.status = PASSED if item.score >= m.points else PARTIAL if item.score > 0 else FAILED
    if detail and speaks_for_itself(m) and not m.vs_reference:
        item.output = str(detail)
    else:
        item.output = how + (f"; {detail}" if detail else "")


def fraction(m: Metric, yours: float, ref: float) -> float | None:
    """Yours as a fraction of the reference's figure, higher is better; None if undefined."""
    num, den = (yours, ref) if m.higher_is_better else (ref, yours)
    return num / den if den > 0 and num >= 0 else None


def score_vs_reference(lab: Lab, m: Metric, mine: list[Run], refs: list[Run]) -> Item:
    """A timed metric scored as the median over paired runs of yours / the reference's figure.
    Yours failing in any run fails the metric; a pair where either side's benchmark found the
    machine unable to show the effect does not count; with no pair left the metric is skipped
    (the reference's reason first). A reference that reported nothing falls back to the ramp."""
    fractions, values, refs_seen, skips = [], [], [], []
    for y, r in zip(mine, refs):
        e, f = _entry(y.report, m.name), _entry(r.report, m.name)
        if not _measured(e) and not (isinstance(e, dict) and "skipped" in e):
            return score_metric(lab, m, y.report, y.why_none)
        if isinstance(f, dict) and "skipped" in f:
            skips.append(f"the reference's run: {f['skipped']}")
        elif "skipped" in e:
            skips.append(str(e["skipped"]))
        elif _measured(f) and fraction(m, e["value"], f["value"]) is not None:
            fractions.append(fraction(m, e["value"], f["value"]))
            values.append(float(e["value"]))
            refs_seen.append(float(f["value"]))
    if not fractions:
        if skips:
            return Item(lab.id, "metric", m.name, m.points, status=SKIPPED, output=skips[0])
        item = score_metric(lab, m, mine[0].report, mine[0].why_none)
        item.output += f" (the reference's benchmark did not report it: {refs[0].why_none})"
        return item
    if len(fractions) < MIN_PAIRS:
        return Item(lab.id, "metric", m.name, m.points, status=SKIPPED, output=(
            f"measured in {len(fractions)} of {len(mine)} paired runs, needs {MIN_PAIRS}: "
            f"{'; '.join(dict.fromkeys(skips))}"))
    item = Item(lab.id, "metric", m.name, m.points)
    frac, t = statistics.median(fractions), m.vs_reference
    how = (f"{frac:.2f} of the reference (yours {statistics.median(values):.3g}{m.unit}, "
           f"reference {statistics.median(refs_seen):.3g}{m.unit}; median of {len(fractions)} "
           f"paired runs; 0 points at {t['zero']:g}, full at {t['full']:g} of the reference; "
           "scored against the reference in this run)")
    value = statistics.median(values)
    score = m.score_vs_reference(frac, value)
    if m.below_floor(value):
        how = (f"{value:.3g}{m.unit}: no better than {t['floor']:g}{m.unit}, the least this "
               f"metric credits whatever the reference reads ({how})")
    _scored(item, m, value, score, how, _entry(mine[0].report, m.name).get("detail"))
    return item


def timeout_s(lab: Lab) -> float:
    """The benchmark's time limit: the lab's (lab.toml's bench_timeout_s, or MLMEM_BENCH_TIMEOUT_S
    in its place: grader/rules/labs.py) times hostenv.time_scale() (under a CPU emulator)."""
    return lab.bench_timeout_s * hostenv.time_scale()


def run_once(lab: Lab, binary: str, run_name: str, series: bool = True) -> Run:
    """Runs the benchmark once in a run folder of its own. Its report counts only when the run
    ended well and the report came sealed, alone, on the result channel (grader/confinement/seal.py).
    series=False: a run whose plot series nobody draws (MLMEM_BENCH_SERIES=0 lets the benchmark
    skip the series that cost time of their own, common/mm_bench.h)."""
    limits = sandbox.Limits(timeout_s=timeout_s(lab), address_space_mb=hw.address_space_mb(lab),
                            data_mb=hw.data_mb(lab))
    channel = seal.Channel()
    series_env = {} if series else {"MLMEM_BENCH_SERIES": "0"}
    if boundary.split(os.path.dirname(binary)):
        res, got = _run_split(binary, run_name, limits, channel, series_env)
    else:
        with sandbox.rundir(run_name, binary) as run_dir:
            try:
                res = sandbox.run([os.path.join(run_dir, os.path.basename(binary))], limits,
                                  cwd=run_dir, env=sandbox.base_env(
                                      run_dir, **seal.ENV, **isolation.program_env(),
                                      **series_env),
                                  fds=channel.fds)
            finally:
                got = channel.received()
    body, problem = seal.report(channel.key, got)
    report = parse_report(body.decode("utf-8", "replace")) if body is not None else None
    if res.timed_out:
        why = (f"the benchmark did not finish within its time limit ({limits.timeout_s:g} s) "
               "and was stopped")
    elif not res.ok:
        why = f"the benchmark ended ({res.verdict()}): its report, if any, is not used"
        report = None
    elif problem:
        why = f"{problem} (flagged for staff review)" if got.data else problem
    elif report is None:
        why = "the benchmark's report is not one JSON object"
    else:
        why = "the benchmark did not report it"
    return Run(report, why, res.stderr, res.timed_out, res.dropped_bytes, res.removed_ipc,
               res.wall_s)


def _run_split(binary: str, run_name: str, limits: sandbox.Limits, channel: seal.Channel,
               series_env: dict[str, str]):
    """run_once for a split lab: the trusted benchmark beside the student's program
    (grader/confinement/boundary.py). Returns (the benchmark's result, with the student's output added to its
    stderr; what came on the sealed channel)."""
    with boundary.folders(run_name, binary) as (program, code_dir):
        try:
            pair = boundary.run_pair(program, code_dir, limits, sandbox.base_env(
                os.path.dirname(program), **seal.ENV, **series_env), channel.fds)
        finally:
            got = channel.received()
    own = pair.student.stdout + pair.student.stderr
    return replace(pair.trusted, stderr=pair.trusted.stderr + own,
                   removed_ipc=pair.student.removed_ipc), got


def _cut_short(lab: Lab, mine: list[Run], ref: Run | None) -> BenchResult:
    """The rounds stopped at the submission's run that reached its time limit: that run fails the
    timed metrics (as any failed run of yours does), the others come from the first run. Unless
    the reference's benchmark, run beside it (`ref`), reached its limit too, or used more than
    BUSY_SHARE of it (it needs a small part on a machine to itself): then the machine is too busy
    to tell a hang from a slow run, and every metric is skipped with that reason."""
    limit = timeout_s(lab)
    if ref is not None and (ref.timed_out or ref.wall_s > BUSY_SHARE * limit):
        took = ("was stopped too" if ref.timed_out else
                f"took {ref.wall_s:.0f} s of its {limit:g}")
        why = (f"{mine[-1].why_none}; the reference solution's, run beside it, {took}: this "
               "machine is too busy now to finish a benchmark in its time limit (grade again "
               "when it is quieter)")
        return BenchResult([Item(lab.id, "metric", m.name, m.points, status=SKIPPED, output=why)
                            for m in lab.metrics], mine)
    items = [score_metric(lab, m, r.report, r.why_none)
             for m, r in ((m, mine[-1] if m.vs_reference else mine[0]) for m in lab.metrics)]
    return BenchResult(items, mine)


def pair_figures(m: Metric, mine: list[Run], refs: list[Run]) -> list[tuple[float, float]]:
    """The metric's fraction of the reference and your figure, in each pair where both sides
    measured it."""
    out = []
    for y, r in zip(mine, refs):
        e, f = _entry(y.report, m.name), _entry(r.report, m.name)
        if _measured(e) and _measured(f):
            frac = fraction(m, e["value"], f["value"])
            if frac is not None and frac > 0:
                out.append((frac, float(e["value"])))
    return out


def _pairs_short(lab: Lab, mine: list[Run], refs: list[Run]) -> bool:
    """Whether a timed metric was measured in some pairs but in fewer than MIN_PAIRS (the others
    skipped on one side): more pairs may bring it up to MIN_PAIRS. One measured in no pair (the
    machine cannot show the effect in any run) asks for none."""
    return any(m.vs_reference and 0 < len(pair_figures(m, mine, refs)) < MIN_PAIRS
               for m in lab.metrics)


def _pairs_disagree(lab: Lab, mine: list[Run], refs: list[Run]) -> bool:
    """Whether, for a timed metric, two pairs would score differently and are either more than
    SPREAD apart or on both sides of full marks (one pair full, another not: the median of two
    would cost an honest submission points for one disturbed run). Pairs that all score zero (a
    naive submission), or all full marks, agree (the score of their median is already known)."""
    for m in lab.metrics:
        pairs = pair_figures(m, mine, refs) if m.vs_reference else []
        if len(pairs) < 2:
            continue
        fr, scores = [f for f, _ in pairs], [m.score_vs_reference(f, v) for f, v in pairs]
        low, high = min(scores), max(scores)
        if low != high and (max(fr) / min(fr) > SPREAD or high >= m.points):
            return True
    return False


def paired_here(lab: Lab, skips: list[str | None] | None = None) -> bool:
    """Whether the lab has a metric scored against the reference that this machine can measure:
    then, and only then, the reference's benchmark runs beside yours. skips: hw.skip of each of
    lab.metrics, when the caller has them."""
    skips = skips if skips is not None else [hw.skip(lab, m) for m in lab.metrics]
    return any(m.vs_reference and not s for m, s in zip(lab.metrics, skips))


def fails_alone(lab: Lab, run: Run) -> bool:
    """Whether a run of the submission's benchmark fails every timed metric by itself (no report,
    or each entry neither measured nor skipped): score_vs_reference then scores each on that run
    alone, whatever the reference measures, so no run of the reference, nor another round, can
    change a score."""
    return all(not _measured(e) and not (isinstance(e, dict) and "skipped" in e)
               for e in (_entry(run.report, m.name) for m in lab.metrics if m.vs_reference))


def _alone(lab: Lab, run: Run) -> BenchResult:
    """The scores of a single run of the submission's benchmark, on the metrics' ramps."""
    return BenchResult([score_metric(lab, m, run.report, run.why_none) for m in lab.metrics],
                       [run])


# The reference's benchmark: its path, or a function that makes it (None where it cannot).
Reference = str | Callable[[], str | None] | None


def _made(reference: Reference) -> str | None:
    """The reference's benchmark path, made now if `reference` is the function that makes it."""
    return reference() if callable(reference) else reference


def _beside(lab: Lab, reference: str | None, run_name: str) -> Run | None:
    """One run of the reference's benchmark beside one of yours that reached its time limit
    (None where there is no reference): _cut_short tells a busy machine from a hang by it."""
    return run_once(lab, reference, run_name + "-reference", series=False) if reference else None


def run_bench(lab: Lab, binary: str, run_name: str, reference: Reference = None,
              reference_on_timeout: Callable[[], str | None] | None = None) -> BenchResult:
    """Runs and scores the benchmark. `reference`: the reference solution's benchmark binary, or
    a function that makes it (None where it cannot), called only when a pair is to run or a run
    of yours reaches its time limit; reference_on_timeout: where no reference is given (no
    timed metric to pair), what finds it once the submission's run reaches its time limit
    (_cut_short). When a reference is given and the lab has timed metrics this machine can
    measure, both run ROUNDS times (up to MAX_ROUNDS while the pairs disagree or a metric has
    fewer than MIN_PAIRS measured pairs), interleaved, and those metrics are scored against the
    reference. A first run of yours that fails every timed metric (fails_alone) is scored alone:
    the reference is then neither made nor run."""
    skips = [hw.skip(lab, m) for m in lab.metrics]
    if all(skips):  # nothing this machine can measure: don't run the benchmark
        return BenchResult([Item(lab.id, "metric", m.name, m.points, status=SKIPPED, output=why,
                                 lasting=True)
                            for m, why in zip(lab.metrics, skips)])
    if not (reference and paired_here(lab, skips)):
        run = run_once(lab, binary, run_name)
        if not run.timed_out:
            return _alone(lab, run)
        ref = _made(reference) or (reference_on_timeout() if reference_on_timeout else None)
        return _cut_short(lab, [run], _beside(lab, ref, run_name))
    first = run_once(lab, binary, run_name)
    if first.timed_out:  # the machine's fault, or yours? (_cut_short)
        return _cut_short(lab, [first], _beside(lab, _made(reference), run_name))
    if fails_alone(lab, first):
        return _alone(lab, first)
    reference = _made(reference)
    if not reference:
        return _alone(lab, first)
    mine, refs = [first], []
    for r in range(MAX_ROUNDS):
        if r >= ROUNDS and not (_pairs_disagree(lab, mine, refs) or
                                _pairs_short(lab, mine, refs)):
            break
        order = [(mine, binary), (refs, reference)]
        for runs, b in (order if r % 2 == 0 else order[::-1]):
            if runs is mine and r == 0:  # the first run of yours, drawn (BenchResult.report)
                continue
            runs.append(run_once(lab, b, run_name + ("-reference" if runs is refs else ""),
                                 series=False))
            if runs is mine and mine[-1].timed_out:  # it would only hang again
                ran_first = r % 2 == 1  # this round's reference run came before yours
                ref = refs[-1] if ran_first else _beside(lab, reference, run_name)
                return _cut_short(lab, mine, ref)
    items = [score_vs_reference(lab, m, mine, refs) if m.vs_reference else
             score_metric(lab, m, mine[0].report, mine[0].why_none) for m in lab.metrics]
    return BenchResult(items, mine)
