"""Presents graded items: the score table for people, Gradescope's results.json and JUnit XML.
Files are written atomically, so a reader never sees half a file."""
from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET

from .results import FAILED, PARTIAL, PASSED, SKIPPED, Item

MARK = {PASSED: "PASS", FAILED: "FAIL", PARTIAL: "PART", SKIPPED: "SKIP"}


def _atomic_write(path: str, text: str):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def totals(items: list[Item]) -> tuple[float, float, float]:
    """(score, max over gradable items, points skipped for missing hardware)."""
    score = sum(i.score for i in items if i.counted)
    most = sum(i.max_score for i in items if i.counted)
    skipped = sum(i.max_score for i in items if not i.counted)
    return round(score, 2), round(most, 2), round(skipped, 2)


def _first_line(text: str, width: int) -> str:
    line = (text.strip().splitlines() or [""])[0]
    return line if len(line) <= width else line[: width - 3] + "..."


def item_line(i: Item) -> str:
    label = i.name if i.kind == "test" else f"perf: {i.name}"
    pts = "  -  " if i.status == SKIPPED else f"{i.score:g}/{i.max_score:g}"
    why = "" if i.status == PASSED and i.kind == "test" else _first_line(i.output, 200)
    return f"  {MARK[i.status]}  {label:<40} {pts:>9}  {why}".rstrip()


def lab_summary(lab_id: str, title: str, items: list[Item]) -> str:
    tests = [i for i in items if i.kind == "test"]
    perf = [i for i in items if i.kind == "metric"]
    s, m, sk = totals(items)
    ts, tm, _ = totals(tests)
    ps, pm, _ = totals(perf)
    line = (f"  lab {lab_id} total {s:g}/{m:g}  (correctness {ts:g}/{tm:g}, performance "
            f"{ps:g}/{pm:g})")
    line += f"; {sk:g} points skipped (see SKIP above)" if sk else ""
    if any(i.status == FAILED for i in tests):
        line += f"\n  stuck? `make hint LAB={lab_id}` gives a nudge; LEVEL=2 and 3 give more"
    return line


def leaderboard(lab, items: list[Item]) -> list[dict]:
    """Gradescope leaderboard entries: each measured metric's value, best first."""
    order = {m.name: "desc" if m.full > m.zero else "asc" for m in lab.metrics}
    return [{"name": f"lab{i.lab} {i.name}", "value": round(i.value, 4), "order": order[i.name]}
            for i in items if i.kind == "metric" and i.value is not None and i.name in order]


def results_json(items: list[Item], elapsed_s: float, output: str, done: bool,
                 board: list[dict] | None = None) -> dict:
    """Gradescope's schema: score, execution_time, output, tests[] (name, score, max_score,
    status, output), leaderboard[] (name, value, order). Skipped items carry max_score 0 and no
    status, so they count for nothing either way."""
    score, most, skipped = totals(items)
    tests = []
    for i in items:
        name = f"lab{i.lab} / " + (i.name if i.kind == "test" else f"performance: {i.name}")
        entry = {"name": name, "score": i.score, "max_score": i.max_score, "output": i.output}
        if i.status == SKIPPED:
            entry.update(max_score=0, output="SKIPPED: " + i.output)
        else:
            entry["status"] = "passed" if i.status == PASSED else "failed"
        tests.append(entry)
    out = {"score": score, "max_score": most, "execution_time": round(elapsed_s, 1),
           "output": output, "tests": tests,
           "extra_data": {"skipped_points": skipped, "complete": done}}
    if board:
        out["leaderboard"] = board
    return out


def write_results(path: str, items: list[Item], elapsed_s: float, output: str, done: bool,
                  board: list[dict] | None = None):
    _atomic_write(path, json.dumps(results_json(items, elapsed_s, output, done, board), indent=2)
                  + "\n")


def write_junit(path: str, items: list[Item]):
    root = ET.Element("testsuites")
    for lab in sorted({i.lab for i in items}):
        mine = [i for i in items if i.lab == lab]
        suite = ET.SubElement(root, "testsuite", name=f"lab{lab}", tests=str(len(mine)),
                              failures=str(sum(i.status in (FAILED, PARTIAL) for i in mine)),
                              skipped=str(sum(i.status == SKIPPED for i in mine)))
        for i in mine:
            case = ET.SubElement(suite, "testcase", classname=f"lab{lab}.{i.kind}", name=i.name)
            if i.status == SKIPPED:
                ET.SubElement(case, "skipped", message=i.output)
            elif i.status != PASSED:
                ET.SubElement(case, "failure", message=_first_line(i.output, 500)).text = i.output
    _atomic_write(path, ET.tostring(root, encoding="unicode") + "\n")
