"""A batch's class page, <out>/summary.html, for the course staff: per lab a histogram of the
students' points, the student x test failure matrix (which tests most students fail), the
metrics' spread (their points: timed ones are the only items that may move when the same code
is graded again), the batch's class seed and machine, the flagged pairs of the similarity check, and a
link to each student's pages. Built from the batch's files as data; every text escaped; nothing
loaded from outside (the histograms are inline SVG)."""
from __future__ import annotations

import json
import os
import statistics

from . import report
from .html_report import CSS, e
from ..rules.labs import Lab

PAGE = "summary.html"
BUCKETS = 10             # histogram bars: tenths of the lab's maximum


def _load(path: str, default):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def histogram(points: list[float], most: float) -> list[int]:
    """How many of `points` fall in each tenth of 0..most (the top tenth holds most itself)."""
    counts = [0] * BUCKETS
    for x in points:
        k = BUCKETS - 1 if most <= 0 else min(BUCKETS - 1, int(BUCKETS * max(0.0, x) / most))
        counts[k] += 1
    return counts


def _svg(counts: list[int], most: float) -> str:
    """The histogram as an inline SVG: one bar per tenth, its count above it."""
    w, h, top = 36, 120, max(counts) or 1
    bars = []
    for k, c in enumerate(counts):
        bh = round(h * c / top)
        bars.append(f'<rect x="{k * w + 2}" y="{h - bh + 16}" width="{w - 4}" height="{bh}" '
                     f'fill="#2da44e"><title>{c}</title></rect>'
                     f'<text x="{k * w + w / 2}" y="{h - bh + 12}" font-size="11" '
                     f'text-anchor="middle">{c or ""}</text>'
                     f'<text x="{k * w + w / 2}" y="{h + 30}" font-size="10" '
                     f'text-anchor="middle">{k * most / BUCKETS:g}</text>')
    return (f'<svg role="img" aria-label="histogram" width="{w * len(counts)}" height="{h + 36}" '
            f'xmlns="http://www.w3.org/2000/svg">{"".join(bars)}</svg>')


def failure_matrix(results: dict[str, dict], lab_id: str) -> tuple[list[str], dict]:
    """(the lab's test item names, most failed first; student -> item -> "pass", "fail" or
    "skip") from each student's merged results.json."""
    cells: dict[str, dict[str, str]] = {}
    for s, res in results.items():
        for t in res.get("tests", []):
            d = report.entry_data(t)
            if d.get("lab") == lab_id and d.get("kind") == "test":
                cells.setdefault(s, {})[d.get("item")] = (
                    "skip" if report.skipped(t) else
                    "pass" if t.get("status") == "passed" else "fail")
    names = {n for row in cells.values() for n in row}
    fails = {n: sum(row.get(n) == "fail" for row in cells.values()) for n in names}
    return sorted(names, key=lambda n: (-fails[n], n)), cells


def metric_spread(results: dict[str, dict], lab: Lab) -> list[tuple[str, float, float, float]]:
    """(metric, min, median, max of the points measured) per metric of the lab."""
    out = []
    for m in lab.metrics:
        got = [t["score"] for res in results.values() for t in res.get("tests", [])
               if report.entry_data(t).get("lab") == lab.id
               and report.entry_data(t).get("item") == m.name and not report.skipped(t)]
        if got:
            out.append((m.name, min(got), statistics.median(got), max(got)))
    return out


def _matrix_html(names: list[str], cells: dict) -> str:
    mark = {"pass": "✓", "fail": "✗", "skip": "–"}
    head = "".join(f'<th class="v">{e(n)}</th>' for n in names)
    rows = "".join(f"<tr><td>{e(s)}</td>" + "".join(
        f'<td class="{cells[s].get(n, "skip")}">{mark[cells[s].get(n, "skip")]}</td>'
        for n in names) + "</tr>" for s in sorted(cells))
    failed = "".join(f"<td>{sum(r.get(n) == 'fail' for r in cells.values())}</td>"
                     for n in names)
    return (f'<table class="matrix"><tr><th>student</th>{head}</tr>{rows}'
            f"<tr><th>fails</th>{failed}</tr></table>")


def _lab_html(lab: Lab, table: list[dict], results: dict[str, dict]) -> str:
    most = sum(t.points for t in lab.tests) + sum(m.points for m in lab.metrics)
    pts = [float(r.get(f"lab{lab.id}") or 0) for r in table]
    names, cells = failure_matrix(results, lab.id)
    spread = metric_spread(results, lab)
    rows = "".join(f"<tr><td>{e(n)}</td><td>{a:g}</td><td>{b:g}</td><td>{c:g}</td></tr>"
                   for n, a, b, c in spread)
    return (f"<section><h2>lab {e(lab.id)}: {e(lab.title)}</h2>"
            f"<h3>Points ({len(pts)} students, of {most:g})</h3>{_svg(histogram(pts, most), most)}"
            f"<h3>Which tests students fail</h3>{_matrix_html(names, cells)}"
            "<h3>Metrics' spread (points)</h3><p class=\"muted\">Graded again with the same "
            "seed, the same code keeps its correctness points; only timed metrics may move.</p>"
            f"<table><tr><th>metric</th><th>min</th><th>median</th><th>max</th></tr>{rows}"
            "</table></section>")


def render(out_dir: str, chosen: list[Lab], table: list[dict], class_seed: str,
           machine: str) -> str:
    """The page (see the module's words) for the batch in out_dir and its summary rows."""
    results = {r["student"]: _load(os.path.join(out_dir, r["student"], "results.json"), {})
               for r in table}
    sim = _load(os.path.join(out_dir, "similarity.json"), {})
    flagged = [f"lab {k}: {x['a']} ~ {x['b']} ({x['percent']}%)"
               for k, v in (sim.get("labs") or {}).items() for x in v.get("flagged", [])]
    sim_html = (f"<p>{e(sim.get('note', ''))}</p>" if sim.get("note") else
                "<ul>" + "".join(f"<li>{e(f)}</li>" for f in flagged) + "</ul>" if flagged else
                "<p>no pair flagged</p>")
    links = "".join(f'<li>{e(r["student"])}: {r.get("score", 0):g} of {r.get("max_score", 0):g}'
                    f' (<a href="{e(r["student"])}/staff.html">staff</a>, '
                    f'<a href="{e(r["student"])}/report.html">student</a>)</li>' for r in table)
    body = (f"<header><h1>mlmem: the class ({len(table)} students)</h1>"
            f'<p class="muted">class seed {e(class_seed or "(none)")}; '
            f'machine {e(machine or "(not recorded)")}</p>'
            f"</header>{''.join(_lab_html(lab, table, results) for lab in chosen)}"
            f'<section><h2>Similarity</h2>{sim_html}<p><a href="similarity.txt">the report</a>'
            f"</p></section><section><h2>Students</h2><ul>{links}</ul></section>")
    style = (CSS + ".matrix td,.matrix th{padding:2px 4px;text-align:center}"
             ".matrix .fail{color:#cf222e}.matrix .pass{color:#1a7f37}"
             ".matrix{table-layout:auto}"
             ".matrix td:first-child,.matrix th:first-child{white-space:nowrap;text-align:left}"
             "th.v{writing-mode:vertical-rl;font-weight:normal;font-size:12px}")
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>mlmem class summary</title><style>{style}</style></head>"
            f"<body><main>{body}</main></body></html>\n")


def write(out_dir: str, chosen: list[Lab], table: list[dict], class_seed: str,
          machine: str) -> str:
    """Writes <out_dir>/summary.html; its path."""
    path = os.path.join(out_dir, PAGE)
    report.write_text(path, render(out_dir, chosen, table, class_seed, machine))
    return path
