"""The grade as one self-contained HTML page, report.html beside results.json: the totals, each
lab's tests, metrics and skips, the benchmark's figures, the student's plots and the `make hint`
commands for every lab that lost points. It is built from results.json as data (what students
may see is decided there: a hidden test's message is already withheld), escapes every text, and
loads nothing: inline CSS, no script, plots as data: URIs, so it opens offline and can be mailed.

`make grade` writes it when a run ends (after_grading); `make report [LAB=NN] [DIR=folder]
[STAFF=1]` (`python3 -m grader.reports.html_report`) writes it again from results.json without
grading: report.html, report-labNN.html for one lab; a batch student's with DIR, the staff's
copy (staff.html) with STAFF=1."""
from __future__ import annotations

import argparse
import base64
import dataclasses
import functools
import hashlib
import html
import importlib.util
import json
import os
import re
import sys
import tempfile
import time
from dataclasses import dataclass

from ..grading import grade
from . import hints, report
from ..rules import labs
from . import plots as plotting
from ..rules.config import ConfigError
from ..rules.results import Note

PAGE = "report.html"
# What the page shows that results.json does not hold, saved by the grading run: each lab's
# plots, with the digest of the results.json they belong to (a later grade voids them).
RUN_FILE = "report-run.json"
MAX_MESSAGE = 20000          # characters of one message shown; the rest is in results.json
MAX_POINTS = 100000          # values per series column that will be plotted
MAX_PNG = 4 << 20            # bytes of one PNG from build/plots/ that will be inlined
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
PASS, FAIL, PART, SKIP = "pass", "fail", "part", "skip"
WORD = {PASS: "PASS", FAIL: "FAIL", PART: "PART", SKIP: "SKIP"}
e = html.escape


@dataclass
class Entry:
    """One item of results.json's tests[], read back: a unit test or a metric."""
    kind: str                # "test" or "metric"
    name: str
    score: float
    max_score: float
    state: str               # PASS, FAIL, PART or SKIP
    message: str             # the failure message, a metric's result, or the skip reason
    title: str = ""          # a metric's "measures: ..." line


@dataclass
class LabInfo:
    """What lab.toml says about a lab id (fallbacks where it cannot be read)."""
    title: str
    points: dict             # item name -> points (for a skip results.json gives 0 points)
    hint_levels: int
    plot_specs: list


# ---- reading results.json ---------------------------------------------------------------------

def read_results(results_dir: str) -> tuple[dict, str, float]:
    """(results.json as a dict, the sha256 of its bytes, its modification time). Raises OSError
    when it is missing, ValueError when it is not a JSON object."""
    path = os.path.join(results_dir, "results.json")
    with open(path, "rb") as f:
        raw = f.read()
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise ValueError(f"{path} is not a JSON object")
    return data, hashlib.sha256(raw).hexdigest(), os.path.getmtime(path)


def _num(v) -> float:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0.0


# results.json's texts may be Markdown for Gradescope: the first line, then the rest fenced.
FENCED = re.compile(r"\A([^\n]*)\n\n(`{3,})\n(.*)\n\2\Z", re.S)
SKIPPED_WORD = re.compile(r"\ASKIPPED[^:\n]*: ")


def plain(text: str) -> str:
    """text with a Markdown fence around all but its first line taken off."""
    m = FENCED.match(text)
    return f"{m.group(1)}\n{m.group(3)}" if m else text


def entry(t: dict) -> tuple[str, Entry] | None:
    """(lab id, Entry) from one tests[] item, read from its extra_data (report.entry_data): lab,
    kind ("test" or "metric"), item (the name in lab.toml), skipped, and a metric's title, which
    the output ends with for Gradescope's page ("measures: <title>"). None for an item without
    a lab id or a name."""
    data = report.entry_data(t)
    lab, kind, name = data.get("lab"), data.get("kind"), data.get("item")
    if not isinstance(lab, str) or not lab or not isinstance(name, str) or not name:
        return None
    kind = "metric" if kind == "metric" else "test"
    out = plain(str(t.get("output", "")))
    score, most = _num(t.get("score")), _num(t.get("max_score"))
    title = str(data.get("title") or "") if kind == "metric" else ""
    if title and out.endswith(f"\nmeasures: {title}"):
        out = out.removesuffix(f"measures: {title}").rstrip("\n")
    if report.skipped(t):
        return lab, Entry(kind, name, score, most, SKIP, SKIPPED_WORD.sub("", out), title)
    state = (PASS if t["status"] == "passed" else PART if 0 < score < most else FAIL)
    return lab, Entry(kind, name, score, most, state, out, title)


def entries_by_lab(results: dict) -> dict[str, list[Entry]]:
    """Lab id -> its entries, in results.json's order."""
    out: dict[str, list[Entry]] = {}
    for t in results.get("tests") or []:
        found = entry(t) if isinstance(t, dict) else None
        if found:
            out.setdefault(found[0], []).append(found[1])
    return out


@functools.lru_cache(maxsize=None)
def lab_info(lab_id: str) -> LabInfo:
    """lab.toml's title, item points, hint levels and plot specs for lab_id; plain fallbacks
    for a lab this tree does not have (results.json from elsewhere)."""
    try:
        lab = labs.select(lab_id)[0]
    except ConfigError:
        return LabInfo("", {}, 0, [])
    points = {t.name: t.points for t in lab.tests} | {m.name: m.points for m in lab.metrics}
    return LabInfo(lab.title, points, len(hints.source(lab)[1]), lab.plots)


# ---- plots ------------------------------------------------------------------------------------

def _columns_ok(series, names: list[str]) -> bool:
    """series holds each named column as a list of at most MAX_POINTS numbers."""
    if not isinstance(series, dict):
        return False
    for n in names:
        col = series.get(n)
        if not isinstance(col, list) or len(col) > MAX_POINTS or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in col):
            return False
    return True


def _spec_columns(spec: dict) -> list[str]:
    ys = spec["y"] if isinstance(spec["y"], list) else [spec["y"]]
    return [spec["x"], *ys]


def draw_lab(specs: list, series: dict | None) -> tuple[list[dict], list[str]]:
    """The lab's [[plots]] drawn from the graded run's series (the benchmark's report):
    ([{title, caption, png (base64)}], notes on what could not be drawn). Never raises."""
    if not specs:
        return [], []
    if not isinstance(series, dict) or not series:
        return [], ["no plots: the benchmark reported no series in this run (is that part "
                    "implemented? did the benchmark run?)"]
    if importlib.util.find_spec("matplotlib") is None:
        return [], ["no plots: drawing them needs matplotlib, which this Python lacks "
                    "(Debian: python3-matplotlib; `make deps` installs it)"]
    figs, notes = [], []
    for spec in specs:
        figs_or_note = _draw_one(spec, series)
        (figs if isinstance(figs_or_note, dict) else notes).append(figs_or_note)
    return figs, notes


def _draw_one(spec: dict, series: dict) -> dict | str:
    """One plot as {title, caption, png}, or a note saying why it is not there."""
    name = spec["series"]
    data, pts = series.get(name), series.get(spec.get("points", ""))
    if not _columns_ok(data, _spec_columns(spec)):
        return (f"no plot of '{name}': this run's benchmark reported no such series (a part "
                "it skipped, or one not implemented yet)")
    if pts is not None and not _columns_ok(pts, _spec_columns(spec)):
        pts = None
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "plot.png")
        try:
            plotting.draw(spec, data, path, pts)
            with open(path, "rb") as f:
                png = f.read()
        except Exception as exc:  # a plot that cannot be drawn costs that plot only
            return f"no plot of '{name}': {type(exc).__name__}: {exc}"
    return {"title": spec.get("title", name), "caption": "from this grading run's benchmark",
            "png": base64.b64encode(png).decode()}


def saved_plots(lab_id: str, plots_dir: str = plotting.PLOTS_DIR) -> list[dict]:
    """The lab's PNGs that `make plots` left in build/plots/, captioned with their time."""
    try:
        names = sorted(n for n in os.listdir(plots_dir)
                       if n.startswith(f"lab{lab_id}-") and n.endswith(".png"))
    except OSError:
        return []
    out = []
    for n in names:
        path = os.path.join(plots_dir, n)
        try:
            if os.path.getsize(path) > MAX_PNG:
                continue
            with open(path, "rb") as f:
                png = f.read()
        except OSError:
            continue
        if png.startswith(PNG_MAGIC):
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(os.path.getmtime(path)))
            out.append({"title": n, "png": base64.b64encode(png).decode(),
                        "caption": f"from `make plots` ({when}), not from this grading run"})
    return out


# ---- the page ---------------------------------------------------------------------------------

CSS = """
:root{--fg:#1f2328;--muted:#57606a;--line:#d0d7de;--bg:#f6f8fa}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);
 font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",Arial,sans-serif}
main{max-width:1120px;margin:0 auto;padding:20px 24px 48px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:20px;margin:0}h3{font-size:16px;margin:20px 0 6px}
section,header{background:#fff;border:1px solid var(--line);border-radius:8px;padding:18px 22px;
 margin:0 0 18px}
.muted{color:var(--muted)}.score{color:#424a53}small{font-size:15px;font-weight:400}
.big{font-size:34px;font-weight:700;margin:6px 0}
table{border-collapse:collapse;width:100%;table-layout:fixed;margin:4px 0}
th,td{border-bottom:1px solid var(--line);padding:6px 8px;text-align:left;vertical-align:top;
 overflow-wrap:anywhere}
th{background:var(--bg);font-weight:600}
col.st{width:72px}col.name{width:40%}col.pts{width:84px}col.lab{width:30%}
td.pts,th.pts{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.badge{display:inline-block;min-width:48px;text-align:center;font-weight:700;font-size:12px;
 padding:2px 6px;border-radius:4px;border:1px solid}
.pass{background:#dafbe1;color:#0a5c2b;border-color:#8dd8a3}
.fail{background:#ffebe9;color:#9a0e24;border-color:#f5a3a8}
.part{background:#fff4c2;color:#6a4300;border-color:#e6c35c}
.skip{background:#eaeef2;color:#32383f;border-color:#bcc4cc}
pre{margin:4px 0 0;padding:8px 10px;background:#fff8f7;border:1px solid #f1c7c4;border-radius:6px;
 white-space:pre-wrap;overflow-wrap:anywhere;max-height:22em;overflow:auto;
 font:12.5px/1.4 ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace}
pre.plain{background:var(--bg);border-color:var(--line)}
code{font:13px ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;background:var(--bg);
 padding:1px 4px;border-radius:4px}
.bar{height:8px;background:#eaeef2;border-radius:4px;overflow:hidden;margin:6px 0 2px}
.bar span{display:block;height:100%;background:#2da44e}
.warn{background:#fff4c2;border:1px solid #e6c35c;border-radius:6px;padding:8px 12px;margin:10px 0}
.figs{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:10px}
.figs table{font-size:13px}.figs td{padding:3px 6px}
.figs caption{text-align:left;font-weight:600;padding:4px 0}
.plots figure{margin:10px 0}.plots img{max-width:100%;height:auto;border:1px solid var(--line)}
figcaption{color:var(--muted);font-size:13px}
ul.cmds{margin:6px 0 12px;padding-left:20px}
"""


def _pts(x: float) -> str:
    return f"{x:g}"


def _total(score: float, most: float, skipped: float) -> str:
    """The score as the score table words it, the points skipped in smaller type."""
    head, _, rest = report.total_phrase(score, most, skipped, ": see SKIP below").partition(" ")
    return e(head) + (f' <small class="muted">{e(rest)}</small>' if rest else "")


def _bar(score: float, most: float) -> str:
    pct = 0 if most <= 0 else max(0.0, min(100.0, 100 * score / most))
    return f'<div class="bar"><span style="width:{pct:.1f}%"></span></div>'


def _badge(state: str) -> str:
    return f'<span class="badge {state}">{WORD[state]}</span>'


def _message(text: str, note: bool = False) -> str:
    """text in an escaped <pre> (a failure's colours; note: neutral ones), cut at MAX_MESSAGE
    characters."""
    if len(text) > MAX_MESSAGE:
        more = len(text) - MAX_MESSAGE
        text = text[:MAX_MESSAGE] + f"\n... ({more} more characters in results.json)"
    attr = ' class="plain"' if note else ""
    return f"<pre{attr}>{e(text)}</pre>"


def _lab_totals(lab_id: str, results: dict, items: list[Entry]) -> tuple[float, float, float]:
    mine = report.labs_data(results).get(lab_id)
    if isinstance(mine, dict):
        return tuple(_num(mine.get(k)) for k in ("score", "max_score", "skipped_points"))
    return sum(i.score for i in items), sum(i.max_score for i in items), 0.0


def lost_points(items: list[Entry]) -> bool:
    return any(i.state in (FAIL, PART) for i in items)


STAFF_NOTE = ("Course staff's copy: a hidden test's own message is shown here; students see it "
              "withheld (their page is report.html). Do not hand this page to a student.")


REGRADE_NOTE = ("Graded again with the same seed, the same code gets the same correctness score; "
                "only timed metrics (measured on the machine at the time) may move.")


def with_staff(results: dict, withheld: dict) -> dict:
    """results with each hidden test's withheld message (staff.json's "withheld": tests[] name
    -> message) put back, for the course staff's page."""
    tests = [{**t, "output": report.markdown(withheld[t["name"]])}
             if isinstance(t, dict) and isinstance(withheld.get(t.get("name")), str) else t
             for t in results.get("tests") or []]
    return {**results, "tests": tests}


def _header(results: dict, by_lab: dict, graded_at: float, seeds: dict,
            staff: bool = False) -> str:
    score, most = _num(results.get("score")), _num(report.max_total(results))
    skipped = sum(_lab_totals(k, results, v)[2] for k, v in by_lab.items())
    when = time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(graded_at))
    rows = "".join(_total_row(k, results, v) for k, v in by_lab.items())
    parts = ['<header><h1>mlmem: your grade</h1>',
             f'<div class="big">{_total(score, most, skipped)}</div>',
             _bar(score, most),
             f'<p class="muted">graded {e(when)}; the run took '
             f'{_num(results.get("execution_time")):g} s</p>']
    if staff:
        parts.append(f'<div class="warn">{e(STAFF_NOTE)}</div>')
    if (results.get("extra_data") or {}).get("complete") is False:
        parts.append('<div class="warn">This grading run did not finish (interrupted, or still '
                     'under way): these are partial results.</div>')
    parts += [f'<p class="muted">lab {e(k)}: {e(line)}</p>' for k, line in seeds.items()]
    if seeds:
        parts.append(f'<p class="muted">{e(REGRADE_NOTE)}</p>')
    parts.append('<table><colgroup><col class="lab"><col class="pts"><col><col></colgroup>'
                 '<tr><th>lab</th><th class="pts">points</th><th>correctness / performance</th>'
                 f'<th>skipped (not measured)</th></tr>{rows}</table>')
    notes = notes_in(results)
    if notes:
        parts.append("<h3>Notes</h3>" + _message("\n".join(n.line() for n in notes), note=True))
    return "".join(parts) + "</header>"


def _total_row(lab_id: str, results: dict, items: list[Entry]) -> str:
    s, m, sk = _lab_totals(lab_id, results, items)
    split = []
    for kind, word in (("test", "correctness"), ("metric", "performance")):
        mine = [i for i in items if i.kind == kind]
        got, most = sum(i.score for i in mine), sum(i.max_score for i in mine)
        split.append(f"{word} {_pts(got)}/{_pts(most)}")
    title = lab_info(lab_id).title
    return (f'<tr><td><a href="#lab{e(lab_id)}">lab {e(lab_id)}</a> {e(title)}</td>'
            f'<td class="pts">{_pts(s)}/{_pts(m)}</td><td>{e(", ".join(split))}</td>'
            f'<td>{_pts(sk) + " points" if sk else "none"}</td></tr>')


def _why(i: Entry, kind: str, previous: str | None) -> str:
    """The last cell of an item's row: nothing for a passed test (but one worth no points,
    whose output says so), a metric's result as text, a failure's message in a <pre> (or "same
    as above" when it repeats the row before)."""
    if kind == "test" and i.state == PASS and i.max_score:
        return ""
    if kind == "metric" and i.state != FAIL or kind == "test" and i.state == PASS:
        return e(i.message)
    if i.message == previous:
        return '<span class="muted">(the same message as above)</span>'
    return _message(i.message)


def _items_table(items: list[Entry], kind: str) -> str:
    """Tests or metrics that counted: state, name (and what a metric measures), points, and
    why: a failure's message, a metric's result and how it was scored."""
    rows, previous = [], None
    for i in items:
        name = f"<code>{e(i.name)}</code>"
        if i.title:
            name += f'<div class="muted">measures: {e(i.title)}</div>'
        rows.append(f"<tr><td>{_badge(i.state)}</td><td>{name}</td>"
                    f'<td class="pts">{_pts(i.score)}/{_pts(i.max_score)}</td>'
                    f"<td>{_why(i, kind, previous)}</td></tr>")
        previous = i.message if i.state != PASS else None
    head = "test" if kind == "test" else "metric"
    what = "why it failed" if kind == "test" else "result and how it was scored"
    return ('<table><colgroup><col class="st"><col class="name"><col class="pts"><col></colgroup>'
            f'<tr><th></th><th>{head}</th><th class="pts">points</th><th>{what}</th></tr>'
            + "".join(rows) + "</table>")


def _skipped_points(i: Entry, info: LabInfo) -> str:
    """A skipped item's points: results.json's max_score where it keeps them, else lab.toml's."""
    if i.max_score:
        return _pts(i.max_score)
    return _pts(info.points[i.name]) if i.name in info.points else "-"


def _skips_table(items: list[Entry], info: LabInfo) -> str:
    rows = "".join(
        f'<tr><td>{_badge(SKIP)}</td><td><code>{e(i.name)}</code>'
        + (f'<div class="muted">measures: {e(i.title)}</div>' if i.title else "")
        + f'</td><td class="pts">{_skipped_points(i, info)}</td><td>{e(i.message)}</td></tr>'
        for i in items)
    return ("<h3>Skipped: not measured in this run</h3>"
            '<p class="muted">This machine, in this run, could not measure these (hardware it '
            "lacks, or an effect it could not show). They are not failures: the reason says "
            "what they need.</p>"
            '<table><colgroup><col class="st"><col class="name"><col class="pts"><col></colgroup>'
            '<tr><th></th><th>item</th><th class="pts">points</th><th>why it was skipped</th></tr>'
            + rows + "</table>")


def _figure_row(key, value) -> str:
    """One info figure: key and value side by side, or a long text under its key."""
    text = report._figure(value)
    if len(text) > 40:
        return f'<tr><td colspan="2"><b>{e(str(key))}</b>: {e(text)}</td></tr>'
    return f"<tr><td>{e(str(key))}</td><td>{e(text)}</td></tr>"


def _figure_table(caption: str, pairs: dict) -> str:
    rows = "".join(_figure_row(k, v) for k, v in pairs.items())
    return f"<table><caption>{e(caption)}</caption>{rows}</table>"


def _info(info) -> str:
    """The benchmark's info figures (shown, not scored): the plain ones in one small table,
    each nested table in one of its own."""
    if not isinstance(info, dict) or not info:
        return ""
    flat = {k: v for k, v in info.items() if not isinstance(v, dict)}
    tables = ([_figure_table("figures", flat)] if flat else []) + [
        _figure_table(str(k), v) for k, v in info.items() if isinstance(v, dict)]
    return ("<h3>The benchmark's figures (shown, not scored)</h3>"
            f'<div class="figs">{"".join(tables)}</div>')


def _plots(figs: list[dict], notes: list[str]) -> str:
    if not figs and not notes:
        return ""
    out = ['<div class="plots"><h3>Your plots</h3>']
    out += [f'<p class="muted">{e(n)}</p>' for n in notes]
    for f in figs:
        src = "data:image/png;base64," + str(f.get("png", ""))
        out.append(f'<figure><img alt="{e(str(f.get("title", "")))}" src="{e(src)}">'
                   f'<figcaption>{e(str(f.get("title", "")))}: '
                   f'{e(str(f.get("caption", "")))}</figcaption></figure>')
    return "".join(out) + "</div>"


def _lab_section(lab_id: str, results: dict, items: list[Entry], plots: dict) -> str:
    info = lab_info(lab_id)
    s, m, sk = _lab_totals(lab_id, results, items)
    tests = [i for i in items if i.kind == "test" and i.state != SKIP]
    metrics = [i for i in items if i.kind == "metric" and i.state != SKIP]
    skips = [i for i in items if i.state == SKIP]
    lab_info_figs = report.labs_data(results).get(lab_id) or {}
    parts = [f'<section id="lab{e(lab_id)}"><h2>lab {e(lab_id)} {e(info.title)}'
             f' <span class="score">{_total(s, m, sk)}</span></h2>',
             _bar(s, m)]
    if tests:
        parts.append("<h3>Unit tests (correctness)</h3>" + _items_table(tests, "test"))
    if metrics:
        parts.append("<h3>Performance</h3>" + _items_table(metrics, "metric"))
    if skips:
        parts.append(_skips_table(skips, info))
    parts.append(_info(lab_info_figs.get("info") if isinstance(lab_info_figs, dict) else None))
    mine = plots.get(lab_id) or {}
    parts.append(_plots(mine.get("figures") or [], mine.get("notes") or []))
    if lost_points(items):
        parts.append('<p>Lost points here? <a href="#stuck">Stuck?</a> lists the hints.</p>')
    return "".join(parts) + "</section>"


def _stuck(by_lab: dict) -> str:
    lost = [k for k, v in by_lab.items() if lost_points(v)]
    if not lost:
        return ""
    out = ['<section id="stuck"><h2>Stuck?</h2><p>Hints come in levels, from a nudge (1) to the '
           "step in words; take the next level only when the last one did not unstick you.</p>"]
    for lab_id in lost:
        levels = lab_info(lab_id).hint_levels
        if not levels:
            out.append(f"<p>lab {e(lab_id)}: <code>make hint LAB={e(lab_id)}</code></p>")
            continue
        cmds = "".join(f"<li><code>make hint LAB={e(lab_id)} LEVEL={k}</code></li>"
                       for k in range(1, levels + 1))
        out.append(f'<p>lab {e(lab_id)}:</p><ul class="cmds">{cmds}</ul>')
    return "".join(out) + "</section>"


def seeds_in(results: dict) -> dict[str, str]:
    """Lab id -> the seed line its tests printed ("mlmem: seed ..."), from extra_data.labs."""
    return {k: v["seed"] for k, v in report.labs_data(results).items()
            if isinstance(v, dict) and isinstance(v.get("seed"), str)}


def notes_in(results: dict) -> list[Note]:
    """results.json's notes (extra_data.notes: {lab, text}), in order; malformed ones left out."""
    found = (results.get("extra_data") or {}).get("notes")
    return [Note(n["lab"], n["text"]) for n in (found if isinstance(found, list) else [])
            if isinstance(n, dict) and isinstance(n.get("lab"), str)
            and isinstance(n.get("text"), str)]


def render(results: dict, graded_at: float, plots: dict | None = None,
           staff: bool = False) -> str:
    """The page for results (results.json as a dict; each lab's seed line from its
    extra_data.labs). plots: lab id -> {"figures": [{title, caption, png (base64)}],
    "notes": [...]}. staff: the course staff's copy (says so; with_staff's messages). Every
    text is escaped; nothing is loaded from outside the page."""
    by_lab = entries_by_lab(results)
    seeds, plots = seeds_in(results), plots or {}
    body = [_header(results, by_lab, graded_at, {k: seeds[k] for k in by_lab if k in seeds},
                    staff)]
    body += [_lab_section(k, results, v, plots) for k, v in by_lab.items()]
    body.append(_stuck(by_lab))
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>mlmem grade {e(_pts(_num(results.get('score'))))}/"
            f"{e(_pts(_num(report.max_total(results))))}</title><style>{CSS}</style></head>"
            f"<body><main>{''.join(body)}</main></body></html>\n")


def only_lab(results: dict, lab_id: str) -> dict:
    """results narrowed to one lab: its tests and notes (by their lab field), its
    extra_data.labs entry, its score as the total. Raises KeyError when results.json has no
    such lab."""
    mine = [t for t in results.get("tests") or [] if isinstance(t, dict)
            and report.entry_lab(t) == lab_id]
    if not mine:
        raise KeyError(lab_id)
    lab = report.labs_data(results).get(lab_id) or {}
    out = {**results, "tests": mine,
           "score": lab.get("score", sum(_num(t.get("score")) for t in mine))}
    notes = [n for n in notes_in(results) if n.lab == lab_id]
    out["extra_data"] = {**(results.get("extra_data") or {}), "labs": {lab_id: lab} if lab else {},
                         "notes": [dataclasses.asdict(n) for n in notes],
                         "max_score": lab.get("max_score",
                                              sum(_num(t.get("max_score")) for t in mine))}
    out["output"] = report.markdown("\n".join(n.line() for n in notes))
    return out


# ---- writing it -------------------------------------------------------------------------------

def _run_plots(results_dir: str, digest: str) -> dict:
    """The plots the grading run saved for this very results.json; {} otherwise."""
    try:
        with open(os.path.join(results_dir, RUN_FILE)) as f:
            saved = json.load(f)
    except (OSError, ValueError):
        return {}
    if not isinstance(saved, dict) or saved.get("results_sha256") != digest:
        return {}
    return saved.get("plots") or {}


def _fallback_plots(results_dir: str, lab_ids, plots: dict) -> dict:
    """For the student's own build/grade only: build/plots/ PNGs for the labs whose graded
    run drew none."""
    if os.path.realpath(results_dir) != os.path.realpath(grade.GRADE_DIR):
        return plots
    out = dict(plots)
    for lab_id in lab_ids:
        if not (out.get(lab_id) or {}).get("figures"):
            saved = saved_plots(lab_id)
            if saved:
                out[lab_id] = {"figures": saved, "notes": []}
    return out


def _staff_withheld(results_dir: str) -> dict:
    """staff.json's "withheld" map beside results.json; {} where there is none."""
    try:
        with open(os.path.join(results_dir, report.STAFF_FILE)) as f:
            found = json.load(f).get("withheld")
    except (OSError, ValueError, AttributeError):
        return {}
    return found if isinstance(found, dict) else {}


def page_name(lab_id: str | None = None, staff: bool = False) -> str:
    """report.html, report-labNN.html for one lab; staff.html, staff-labNN.html for staff."""
    stem = "staff" if staff else "report"
    return f"{stem}-lab{lab_id}.html" if lab_id else f"{stem}.html"


def write(results_dir: str, lab_id: str | None = None, staff: bool = False) -> str:
    """Writes results_dir/report.html (report-labNN.html for one lab) from results_dir's
    results.json and what its grading run saved; returns its path. staff: the course staff's
    copy instead (staff.html: hidden tests' messages from staff.json). Raises OSError/ValueError
    when results.json is missing or unreadable, KeyError when it has no lab lab_id."""
    results, digest, mtime = read_results(results_dir)
    plots = _run_plots(results_dir, digest)
    if staff:
        results = with_staff(results, _staff_withheld(results_dir))
    if lab_id:
        results = only_lab(results, lab_id)
    plots = _fallback_plots(results_dir, entries_by_lab(results), plots)
    path = os.path.join(results_dir, page_name(lab_id, staff))
    report.write_text(path, render(results, mtime, plots, staff))
    return path


def after_grading(results_dir: str, series: dict) -> str:
    """At the end of a grading run: draws each graded lab's plots from its benchmark's series
    (lab id -> the report's `series`), saves them beside results.json, and writes report.html.
    Returns the one line to print: where the page is, or why there is none. Never raises: the
    page must never fail or change a grade."""
    try:
        results, digest, _ = read_results(results_dir)
        plots = {}
        for lab_id in entries_by_lab(results):
            figs, notes = draw_lab(lab_info(lab_id).plot_specs, series.get(lab_id))
            plots[lab_id] = {"figures": figs, "notes": notes}
        report.write_text(os.path.join(results_dir, RUN_FILE), json.dumps(
            {"results_sha256": digest, "plots": plots}) + "\n")
        path = write(results_dir)
    except Exception as exc:  # noqa: BLE001  (any failure here leaves the grade as it is)
        return f"note: no HTML report this time ({type(exc).__name__}: {exc}); the grade stands"
    return f"report: {os.path.relpath(path)} (the whole grade on one page; open it in a browser)"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="grader.reports.html_report",
                                description="rewrite report.html from results.json (no grading)")
    p.add_argument("--lab", help="only this lab: report-labNN.html")
    p.add_argument("--dir", default=grade.GRADE_DIR,
                   help="the folder of results.json (default build/grade; a batch student's: "
                        "build/batch/<student>)")
    p.add_argument("--staff", action="store_true",
                   help="the course staff's copy, staff.html: hidden tests' messages shown")
    a = p.parse_args(argv)
    lab_id = a.lab.removeprefix("lab").zfill(2) if a.lab else None
    shown = os.path.relpath(os.path.join(a.dir, "results.json"))
    try:
        path = write(a.dir, lab_id, a.staff)
    except OSError:
        print(f"mlmem: no grade to report: {shown} is missing; `make grade` first", file=sys.stderr)
        return 1
    except ValueError as exc:
        print(f"mlmem: {shown} cannot be read ({exc}); `make grade` writes it again",
              file=sys.stderr)
        return 1
    except KeyError:
        graded = ", ".join(entries_by_lab(read_results(a.dir)[0])) or "none"
        print(f"mlmem: {shown} has no lab {lab_id} (graded: {graded}); "
              f"`make grade LAB={lab_id}` first", file=sys.stderr)
        return 2
    print(f"report: {os.path.relpath(path)} ({os.path.getsize(path) // 1024} KB; "
          "open it in a browser)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
