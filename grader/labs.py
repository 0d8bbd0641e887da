"""Finds the labs and reads each one's lab.toml: points per test, editable files, performance
metrics with their ramp thresholds, hardware needs and limits. Errors name the file and key."""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from . import thresholds

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LABS_DIR = os.path.join(ROOT, "labs")


class LabError(Exception):
    """A lab's lab.toml is missing or malformed (a maintainer's error, not a student's)."""


@dataclass
class Test:
    name: str
    points: float
    hidden: bool = False             # an instructor-only test (grader/hidden.py)


@dataclass
class Metric:
    name: str
    title: str
    points: float
    zero: float                      # value scoring nothing
    full: float                      # value scoring all points; zero > full: lower is better
    unit: str = ""
    requires: dict = field(default_factory=dict)
    source: str = "lab.toml"         # where zero/full come from (or the thresholds file)
    # A timed metric's ramp on "yours as a fraction of the reference's figure, same run"
    # ({zero, full}, both fractions, full close to 1): used where the reference is present.
    vs_reference: dict | None = None

    @property
    def higher_is_better(self) -> bool:
        return self.full > self.zero

    def score(self, value: float) -> float:
        """Linear ramp from `zero` (no credit) to `full` (all points), clamped."""
        return ramp(value, self.zero, self.full) * self.points

    def score_vs_reference(self, fraction: float) -> float:
        """The ramp of vs_reference on yours / reference (higher is better)."""
        return ramp(fraction, self.vs_reference["zero"], self.vs_reference["full"]) * self.points


def ramp(value: float, zero: float, full: float) -> float:
    """0 at `zero`, 1 at `full`, linear in between, clamped (zero > full: lower is better)."""
    return min(1.0, max(0.0, (value - zero) / (full - zero)))


@dataclass
class Lab:
    id: str                          # "01"
    slug: str                        # "lab01-cache-lines"
    title: str
    editable: list[str]
    tests: list[Test]
    metrics: list[Metric]
    requires: dict = field(default_factory=dict)
    test_timeout_s: float = 10.0
    bench_timeout_s: float = 120.0
    address_space_mb: int | None = 4096
    threaded: bool = False           # `make test` also runs the solution under TSan
    plots: list = field(default_factory=list)  # [[plots]] tables, see grader/plots.py
    extra_test_files: list = field(default_factory=list)  # hidden tests staged into tests/

    @property
    def path(self) -> str:
        return os.path.join(LABS_DIR, self.slug)


def _need(table: dict, key: str, kind, where: str):
    if key not in table:
        raise LabError(f"{where}: missing '{key}'")
    val = table[key]
    if kind is float and isinstance(val, int) and not isinstance(val, bool):
        val = float(val)
    if not isinstance(val, kind):
        raise LabError(f"{where}: '{key}' must be {kind.__name__}, not {val!r}")
    return val


def _metric(m: dict, where: str) -> Metric:
    name = _need(m, "name", str, where)
    metric = Metric(name=name, title=m.get("title", name), points=_need(m, "points", float, where),
                    zero=_need(m, "zero", float, where), full=_need(m, "full", float, where),
                    unit=m.get("unit", ""), requires=m.get("requires", {}),
                    vs_reference=_vs_reference(m, f"{where}: metric {name}"))
    if metric.zero == metric.full:
        raise LabError(f"{where}: metric {name}: zero and full thresholds must differ")
    return metric


def _vs_reference(m: dict, where: str) -> dict | None:
    """vs_reference = { zero = Z, full = F }: fractions of the reference, 0 <= Z < F <= 1.5."""
    if "vs_reference" not in m:
        return None
    t = _need(m, "vs_reference", dict, where)
    z, f = _need(t, "zero", float, where + ".vs_reference"), _need(t, "full", float,
                                                                   where + ".vs_reference")
    if not 0 <= z < f <= 1.5:
        raise LabError(f"{where}: vs_reference needs 0 <= zero < full <= 1.5 (fractions of the "
                       f"reference's figure), not zero = {z:g}, full = {f:g}")
    return {"zero": z, "full": f}


def _calibrated(key: str, metrics: list[Metric]):
    """Replaces lab.toml's thresholds by the course's thresholds file's, where it has them."""
    try:
        table = thresholds.load().get(key, {})
    except thresholds.ThresholdsError as e:
        raise LabError(str(e)) from e
    for m in metrics:
        t = table.get(m.name)
        if t and (t["full"] > t["zero"]) == (m.full > m.zero):
            m.zero, m.full = float(t["zero"]), float(t["full"])
            m.source = os.path.relpath(thresholds.path())
        elif t:
            raise LabError(f"{thresholds.path()}: [{key}.{m.name}] turns lab.toml's direction "
                           "(higher/lower is better) around")


def load(slug: str) -> Lab:
    path = os.path.join(LABS_DIR, slug, "lab.toml")
    try:
        with open(path, "rb") as f:
            t = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise LabError(f"{path}: {e}") from e
    lab = _need(t, "lab", dict, path)
    tests = [Test(_need(x, "name", str, path), _need(x, "points", float, path))
             for x in t.get("tests", [])]
    metrics = [_metric(m, path) for m in t.get("metrics", [])]
    _calibrated(slug[:5], metrics)
    limits = t.get("limits", {})
    return Lab(id=slug[3:5], slug=slug, title=_need(lab, "title", str, path),
               editable=_need(lab, "editable", list, path), tests=tests, metrics=metrics,
               requires=t.get("requires", {}),
               test_timeout_s=float(os.environ.get("MLMEM_TEST_TIMEOUT_S") or
                                    limits.get("test_timeout_s", 10)),
               bench_timeout_s=float(limits.get("bench_timeout_s", 120)),
               address_space_mb=limits.get("address_space_mb", 4096) or None,
               threaded=bool(lab.get("threaded", False)), plots=t.get("plots", []))


def slugs() -> list[str]:
    return sorted(d for d in os.listdir(LABS_DIR)
                  if d.startswith("lab") and d[3:5].isdigit() and
                  os.path.isfile(os.path.join(LABS_DIR, d, "lab.toml")))


def select(lab_id: str | None) -> list[Lab]:
    """All labs, or the one whose number is lab_id ("1", "01" or "lab01"). Raises LabError
    listing the labs when there is no such lab."""
    all_slugs = slugs()
    if not lab_id:
        return [load(s) for s in all_slugs]
    num = lab_id.removeprefix("lab").zfill(2)
    match = [s for s in all_slugs if s[3:5] == num]
    if not match:
        raise LabError(f"there is no lab '{lab_id}'. The labs are:\n" +
                       "\n".join(f"  {s[3:5]}  {s}" for s in all_slugs))
    return [load(match[0])]
