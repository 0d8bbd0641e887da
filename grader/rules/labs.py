"""Finds the labs and reads each one's lab.toml: points per test, editable files, whether the lab
has CUDA code, performance metrics with their ramp thresholds, hardware needs and limits. Read
strictly (grader/rules/config.py): an unknown key or a wrong type is an error naming the file, the table
and the key. The one reader of lab.toml: the build (common/lab-build.mk) is given what it needs
from it as make variables (Lab.make_vars, `python3 -m grader make-vars`)."""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from . import config, settings, thresholds

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LABS_DIR = os.path.join(ROOT, "labs")


# A lab's lab.toml is missing or malformed: the one configuration error (grader/rules/config.py).
LabError = config.ConfigError


@dataclass
class Test:
    name: str
    points: float
    hidden: bool = False             # an instructor-only test (grader/rules/hidden.py)
    visibility: str = ""             # Gradescope's: '' (visible; hidden tests after_published)


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
    # Its optional floor is in the metric's own unit: a figure no better than it scores nothing
    # whatever the reference did (it has not beaten the baseline the metric is a ratio to).
    vs_reference: dict | None = None

    @property
    def higher_is_better(self) -> bool:
        return self.full > self.zero

    def score(self, value: float) -> float:
        """Linear ramp from `zero` (no credit) to `full` (all points), clamped."""
        return ramp(value, self.zero, self.full) * self.points

    def score_vs_reference(self, fraction: float, value: float) -> float:
        """The ramp of vs_reference on yours / reference, `fraction` (higher is better); nothing
        when yours, `value`, is no better than its floor."""
        if self.below_floor(value):
            return 0.0
        return ramp(fraction, self.vs_reference["zero"], self.vs_reference["full"]) * self.points

    def below_floor(self, value: float) -> bool:
        """Whether yours, `value`, is no better than vs_reference's floor (False without one)."""
        floor = (self.vs_reference or {}).get("floor")
        if floor is None:
            return False
        return value <= floor if self.higher_is_better else value >= floor


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
    # CUDA code (kernels in src/*.cu, or CUDA runtime calls from C): built with the CUDA runtime
    # and the emulated device (common/lab-build.mk), its programs' limits lifted on a GPU (hw.py)
    cuda: bool = False
    plots: list = field(default_factory=list)  # [[plots]] tables, see grader/reports/plots.py
    extra_test_files: list = field(default_factory=list)  # hidden tests staged into tests/

    @property
    def path(self) -> str:
        return os.path.join(LABS_DIR, self.slug)

    def make_vars(self) -> list[str]:
        """What common/lab-build.mk learns from lab.toml, as make's command-line assignments:
        EDITABLE, the student's files (space-separated), and LAB_CUDA, 1 for a lab with CUDA
        code, else empty. Every build of a lab passes them (grader/grading/build.py, `make labNN`)."""
        return [f"EDITABLE={' '.join(self.editable)}", f"LAB_CUDA={'1' if self.cuda else ''}"]


# The keys each table of lab.toml may have; anything else is an error with a suggestion.
TOP_KEYS = ("lab", "tests", "metrics", "limits", "plots", "requires")
LAB_KEYS = ("title", "editable", "threaded", "cuda")
TEST_KEYS = ("name", "points", "visibility")
# When Gradescope shows a test to students (its results.json "visibility").
VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")
METRIC_KEYS = ("name", "title", "points", "zero", "full", "unit", "requires", "vs_reference")
LIMIT_KEYS = ("test_timeout_s", "bench_timeout_s", "address_space_mb")
PLOT_KEYS = ("series", "x", "y", "labels", "title", "xlabel", "ylabel", "logx", "logy", "hline",
             "points", "point_labels")
# Hardware a metric (or a whole lab) can require, as grader/grading/hw.py's unmet() checks it.
REQUIREMENTS = {"cores": int, "numa_nodes": int, "cuda": bool}


def _requires(t: dict, where: str, label: str) -> dict:
    """t's requires = { cores = n, numa_nodes = n, cuda = true } table, checked ({} if none);
    label names it in messages after where."""
    req = config.get(t, "requires", dict, where, {})
    where += label
    config.check_keys(req, REQUIREMENTS, where, "hardware requirement")
    for key, kind in REQUIREMENTS.items():
        val = config.get(req, key, kind, where, None)
        if kind is int and val is not None and val < 1:
            raise LabError(f"{where}: '{key}' must be at least 1, not {val}")
    return req


def _metric(m: dict, where: str) -> Metric:
    config.check_keys(m, METRIC_KEYS, where)
    name = config.get(m, "name", str, where)
    metric = Metric(name=name, title=config.get(m, "title", str, where, name),
                    points=config.get(m, "points", float, where),
                    zero=config.get(m, "zero", float, where),
                    full=config.get(m, "full", float, where),
                    unit=config.get(m, "unit", str, where, ""),
                    requires=_requires(m, where, " requires"),
                    vs_reference=_vs_reference(m, where))
    if metric.zero == metric.full:
        raise LabError(f"{where}: zero and full thresholds must differ")
    return metric


def _vs_reference(m: dict, where: str) -> dict | None:
    """vs_reference = { zero = Z, full = F [, floor = B] }: fractions of the reference,
    0 <= Z < F <= 1.5; B, in the metric's unit, at or past its own zero (no better than it)."""
    t = config.get(m, "vs_reference", dict, where, None)
    if t is None:
        return None
    where += ".vs_reference"
    config.check_keys(t, ("zero", "full", "floor"), where)
    z, f = config.get(t, "zero", float, where), config.get(t, "full", float, where)
    if not 0 <= z < f <= 1.5:
        raise LabError(f"{where}: vs_reference needs 0 <= zero < full <= 1.5 (fractions of the "
                       f"reference's figure), not zero = {z:g}, full = {f:g}")
    floor = config.get(t, "floor", float, where, None)
    if floor is None:
        return {"zero": z, "full": f}
    zero, full = config.get(m, "zero", float, where), config.get(m, "full", float, where)
    if (floor > zero) if full > zero else (floor < zero):
        raise LabError(f"{where}: floor = {floor:g} is better than the metric's own zero "
                       f"({zero:g}): a figure the ramp already credits")
    return {"zero": z, "full": f, "floor": floor}


def read_test(x: dict, where: str) -> Test:
    """A [[tests]] table: name, points and Gradescope's visibility. Gradescope's `hidden` is
    for tests without points: it shows students their total when the only tests kept from
    them are `hidden` ones, so a hidden test with points would show in it (after_published
    keeps the total from them until the grades are published)."""
    config.check_keys(x, TEST_KEYS, where)
    vis = config.get(x, "visibility", str, where, "")
    if vis and vis not in VISIBILITIES:
        raise LabError(f"{where}: 'visibility' must be one of {', '.join(VISIBILITIES)}, "
                       f"not {vis!r}")
    points = config.get(x, "points", float, where)
    if vis == "hidden" and points:
        raise LabError(f"{where}: visibility 'hidden' is for tests without points (Gradescope "
                       "would show students a total holding them); use 'after_published'")
    return Test(config.get(x, "name", str, where), points, visibility=vis)


def _plot(p: dict, where: str) -> dict:
    """A [[plots]] table (grader/reports/plots.py draws it), checked."""
    config.check_keys(p, PLOT_KEYS, where)
    for key in ("series", "x"):
        config.get(p, key, str, where)
    config.get(p, "y", (str, list), where)
    for key in ("title", "xlabel", "ylabel"):
        config.get(p, key, str, where, None)
    for key in ("logx", "logy"):
        config.get(p, key, bool, where, None)
    config.get(p, "labels", list, where, None)
    config.get(p, "hline", float, where, None)
    config.get(p, "points", str, where, None)
    config.get(p, "point_labels", list, where, None)
    return p


def entries(t: dict, kind: str, read, path: str) -> list:
    """Each [[kind]] table of t read by read(table, where); a name given twice is an error."""
    out = [read(x, f"{path}: {config.entry(kind, i, x)}")
           for i, x in enumerate(config.tables(t, kind, path))]
    names = [getattr(x, "name", None) for x in out]
    twice = sorted({n for n in names if n is not None and names.count(n) > 1})
    if twice:
        raise LabError(f"{path}: [[{kind}]] names given more than once: {', '.join(twice)}")
    return out


def _calibrated(key: str, metrics: list[Metric]):
    """Replaces lab.toml's thresholds by the course's thresholds file's, where it has them."""
    table = thresholds.load().get(key, {})
    where = config.shown(thresholds.path())
    known = {m.name for m in metrics}
    for name in table:
        if name not in known:
            raise LabError(f"{where}: [{key}.{name}]: lab {key[3:]} has no metric '{name}'"
                           f"{config.suggestion(name, known)}")
    for m in metrics:
        t = table.get(m.name)
        if t and (t["full"] > t["zero"]) == (m.full > m.zero):
            m.zero, m.full = float(t["zero"]), float(t["full"])
            m.source = os.path.relpath(thresholds.path())
        elif t:
            raise LabError(f"{where}: [{key}.{m.name}] turns lab.toml's direction "
                           "(higher/lower is better) around")


def _timeout(limits: dict, key: str, where: str, default: float, env: float | None) -> float:
    """[limits] `key`, or the setting that replaces it where it is set (MLMEM_TEST_TIMEOUT_S,
    MLMEM_BENCH_TIMEOUT_S: the grader's own tests of hangs)."""
    own = config.get(limits, key, float, where, default)
    return own if env is None else env


def _lab(t: dict, path: str) -> tuple[str, list[str], bool, bool]:
    """[lab]: title, editable files, threaded, cuda."""
    lab = config.get(t, "lab", dict, path)
    where = f"{path}: [lab]"
    config.check_keys(lab, LAB_KEYS, where)
    return (config.get(lab, "title", str, where), config.get(lab, "editable", list, where),
            config.get(lab, "threaded", bool, where, False),
            config.get(lab, "cuda", bool, where, False))


def load(slug: str) -> Lab:
    """The lab labs/<slug>/lab.toml describes, with the thresholds file's ramps in place of its
    own where the file has them. Raises LabError (ConfigError) naming the file, table and key
    on anything it does not know or cannot use."""
    file = os.path.join(LABS_DIR, slug, "lab.toml")
    t, path = config.read(file), config.shown(file)
    config.check_keys(t, TOP_KEYS, f"{path}: the top level")
    title, editable, threaded, cuda = _lab(t, path)
    metrics = entries(t, "metrics", _metric, path)
    _calibrated(slug[:5], metrics)
    limits = config.get(t, "limits", dict, path, {})
    where = f"{path}: [limits]"
    config.check_keys(limits, LIMIT_KEYS, where)
    env = settings.current()
    return Lab(id=slug[3:5], slug=slug, title=title, editable=editable,
               tests=entries(t, "tests", read_test, path), metrics=metrics,
               requires=_requires(t, path, ": [requires]"),
               test_timeout_s=_timeout(limits, "test_timeout_s", where, 10.0, env.test_timeout_s),
               bench_timeout_s=_timeout(limits, "bench_timeout_s", where, 120.0,
                                        env.bench_timeout_s),
               address_space_mb=config.get(limits, "address_space_mb", int, where, 4096) or None,
               threaded=threaded, cuda=cuda, plots=entries(t, "plots", _plot, path))


def slugs() -> list[str]:
    return sorted(d for d in os.listdir(LABS_DIR)
                  if d.startswith("lab") and d[3:5].isdigit() and
                  os.path.isfile(os.path.join(LABS_DIR, d, "lab.toml")))


def select(lab_id: str | None) -> list[Lab]:
    """All labs (lab_id empty or "all"), the one whose number is lab_id ("1", "01" or "lab01"),
    or several, comma-separated ("03,09"), in the order given, each once. Raises LabError
    listing the labs when there is no such lab."""
    all_slugs = slugs()
    if not lab_id or lab_id == "all":
        return [load(s) for s in all_slugs]
    chosen: list[str] = []
    for one in (x.strip() for x in lab_id.split(",")):
        num = one.removeprefix("lab").zfill(2)
        match = [s for s in all_slugs if s[3:5] == num]
        if not match:
            raise LabError(f"there is no lab '{one}'. The labs are:\n" +
                           "\n".join(f"  {s[3:5]}  {s}" for s in all_slugs))
        if match[0] not in chosen:
            chosen.append(match[0])
    return [load(s) for s in chosen]
