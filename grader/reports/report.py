"""Presents graded items: the score table for people, Gradescope's results.json (with its
leaderboard) and JUnit XML. What students may see is decided here: a hidden test's failure
message is withheld in all three. Files are written atomically, so a reader never sees half a
file."""
from __future__ import annotations

import dataclasses
import json
import os
import re
import textwrap
import xml.etree.ElementTree as ET

from ..rules import hidden
from ..rules.results import FAILED, PARTIAL, PASSED, SKIPPED, Item, Note

MARK = {PASSED: "PASS", FAILED: "FAIL", PARTIAL: "PART", SKIPPED: "SKIP"}


def write_text(path: str, text: str):
    """Writes text to path whole or not at all (a temporary file renamed)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def totals(items: list[Item]) -> tuple[float, float, float]:
    """(score, max_score: every item's points, points not yet measured: skipped for hardware
    this machine lacks or an effect this run could not show). A skip is neither a gain (the
    maximum keeps its points) nor a silent loss (it is named, and batch grading measures again)."""
    score = sum(i.score for i in items if i.measured)
    most = sum(i.max_score for i in items)
    skipped = sum(i.max_score for i in items if not i.measured)
    return round(score, 2), round(most, 2), round(skipped, 2)


def _first_line(text: str, width: int) -> str:
    line = (text.strip().splitlines() or [""])[0]
    return line if len(line) <= width else line[: width - 3] + "..."


def shown_output(i: Item) -> str:
    """The item's output as students may see it: a hidden test's own failure message is withheld
    (it would reveal the test); the grader's words on how it ended (i.cause: a crash, a time
    limit, a build that failed) are shown."""
    if i.hidden and i.status != PASSED and not i.cause:
        return hidden.WITHHELD
    return i.output


def item_line(i: Item) -> str:
    """A test's line of the score table, or a metric's two: its name, points and title (what
    it measures), then how it scored."""
    pts = "  -  " if i.status == SKIPPED else f"{i.score:g}/{i.max_score:g}"
    if i.kind == "test" and i.status == SKIPPED:  # the reason whole: it often ends with the fix
        why = textwrap.wrap(_first_line(shown_output(i), 1000), 92)
        return "\n        ".join([f"  {MARK[i.status]}  {i.name:<40} {pts:>9}".rstrip()] + why)
    if i.kind == "test":  # a pass is silent, unless worth no points: its output says so
        why = "" if i.status == PASSED and i.max_score else _first_line(shown_output(i), 200)
        return f"  {MARK[i.status]}  {i.name:<40} {pts:>9}  {why}".rstrip()
    why = textwrap.wrap(_first_line(i.output, 1000), 92, max_lines=4, placeholder=" ...")
    return "\n        ".join([f"  {MARK[i.status]}  {i.name:<40} {pts:>9}  {i.title}".rstrip()]
                              + (why or [""]))


def _figure(v) -> str:
    """One info value, short: numbers to 3 figures, lists and tables inline."""
    if isinstance(v, bool) or v is None:
        return json.dumps(v)
    if isinstance(v, float):
        return f"{v:.0f}" if abs(v) >= 1000 else f"{v:.3g}"
    if isinstance(v, list):
        return "[" + ", ".join(_figure(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} {_figure(x)}" for k, x in v.items()) + "}"
    return str(v)


def _wrap(parts: list[str], width: int) -> list[str]:
    """parts joined by "; " into lines of at most about `width` characters."""
    lines, cur = [], ""
    for part in parts:
        if cur and len(cur) + len(part) + 2 > width:
            lines.append(cur + ";")
            cur = part
        else:
            cur = f"{cur}; {part}" if cur else part
    return lines + ([cur] if cur else [])


def info_lines(info: dict, width: int = 100) -> list[str]:
    """The benchmark's `info` figures (shown, not scored) as compact lines for the score
    table: "  info: key value; key value; ...", wrapped at about `width` characters; a table
    within it on lines of its own, "key: key value; ..."."""
    flat = [f"{k} {_figure(v)}" for k, v in info.items() if not isinstance(v, dict)]
    lines = _wrap(flat, width - 8)
    for k, v in info.items():
        if isinstance(v, dict):
            parts = [f"{a} {_figure(x)}" for a, x in v.items()] or ["{}"]
            lines += _wrap([f"{k}: {parts[0]}"] + parts[1:], width - 8)
    return [("  info: " if n == 0 else "        ") + line for n, line in enumerate(lines)]


def total_phrase(score: float, most: float, skipped: float, why: str = "") -> str:
    """'84/90', or with points skipped '84/90 (6 points not yet measured: <why>)'."""
    if not skipped:
        return f"{score:g}/{most:g}"
    return f"{score:g}/{most:g} ({skipped:g} points not yet measured{why})"


def lab_table(lab_id: str, items: list[Item], info: dict | None = None,
              hint: bool = True) -> str:
    """A lab's part of the score table as `make grade` prints it: each item's line, then
    lab_summary's."""
    return "\n".join([item_line(i) for i in items] + [lab_summary(lab_id, items, info, hint)])


def lab_summary(lab_id: str, items: list[Item], info: dict | None = None,
                hint: bool = True) -> str:
    """The lines closing a lab in the score table: the benchmark's info, the lab's total, and
    the `make hint` reminder after anything that lost points (unless hint is False: the points
    were lost to something no hint helps with, a crashing compiler)."""
    tests = [i for i in items if i.kind == "test"]
    perf = [i for i in items if i.kind == "metric"]
    ts, tm, _ = totals(tests)
    ps, pm, _ = totals(perf)
    lines = info_lines(info or {})
    lines.append(f"  lab {lab_id} total {total_phrase(*totals(items), ': see SKIP above')}; "
                 f"correctness {ts:g}/{tm:g}, performance {ps:g}/{pm:g}")
    if hint and any(i.status in (FAILED, PARTIAL) for i in items):
        lines.append(f"  stuck? `make hint LAB={lab_id}` gives a nudge; LEVEL=2 and 3 give more")
    return "\n".join(lines)


def leaderboard(items: list[Item]) -> list[dict]:
    """Gradescope leaderboard entries: each measured metric's value, with its order (higher or
    lower is better) from lab.toml."""
    return [{"name": f"lab{i.lab} {i.name}", "value": round(i.value, 4),
             "order": "desc" if i.higher_is_better else "asc"}
            for i in items if i.kind == "metric" and i.value is not None and
            i.higher_is_better is not None]


def markdown(text: str) -> str:
    """Output for Gradescope's Markdown: the first line as it is, the rest (compiler errors, a
    test's message, what a program printed) in a code block, fenced longer than any run of
    backticks inside."""
    head, _, rest = text.partition("\n")
    if not rest.strip():
        return text
    fence = "`" * max(3, 1 + max((len(r) for r in re.findall(r"`+", rest)), default=0))
    return f"{head}\n\n{fence}\n{rest.strip(chr(10))}\n{fence}"


def visibility(i: Item) -> str:
    """When Gradescope shows the item: lab.toml's or hidden.toml's word, else visible, and a
    hidden test after the grades are published. (labs.py refuses Gradescope's `hidden` on a
    test with points: students would see a total that holds them.)"""
    return i.visibility or ("after_published" if i.hidden else "visible")


def entry_name(i: Item) -> str:
    """The item's name in results.json's tests[]: "lab01 / test" or "lab01 / performance: m"."""
    return f"lab{i.lab} / " + (i.name if i.kind == "test" else f"performance: {i.name}")


STAFF_FILE = "staff.json"


def staff_json(items: list[Item]) -> dict:
    """What only the course staff may read beside results.json: {"withheld": {tests[] name: the
    message students see withheld}} (a hidden test's own words: a failed check, a crash)."""
    return {"withheld": {entry_name(i): i.output for i in items if shown_output(i) != i.output}}


def _entry(i: Item) -> dict:
    """One item of results.json's tests[], with Gradescope's keys only (name, score, max_score,
    status, output, visibility) and ours in its extra_data (entry_data)."""
    output = markdown(shown_output(i))
    if i.kind == "metric" and i.title:
        output += f"\n\nmeasures: {i.title}"
    data = {"lab": i.lab, "cause": i.cause, "kind": i.kind, "item": i.name}
    if i.kind == "metric" and i.title:
        data["title"] = i.title
    entry = {"name": entry_name(i), "score": i.score, "max_score": i.max_score,
             "status": "passed" if i.status == PASSED else "failed", "output": output,
             "visibility": visibility(i), "extra_data": data}
    if i.status == SKIPPED:
        data["skipped"] = True
        entry.update(score=0, output="SKIPPED (not yet measured): " + output)
    return entry


def entry_data(t: dict) -> dict:
    """Our keys of one tests[] entry (its extra_data): lab, cause, kind, item, a metric's title,
    skipped; {} where it has none."""
    found = t.get("extra_data") if isinstance(t, dict) else None
    return found if isinstance(found, dict) else {}


def entry_lab(t: dict) -> str | None:
    """The lab id of one tests[] entry (entry_data's lab), None where it has none."""
    return entry_data(t).get("lab")


def skipped(t: dict) -> bool:
    """Whether one tests[] entry is a skip (not yet measured: score 0, max_score kept)."""
    return entry_data(t).get("skipped") is True


def max_total(results: dict) -> float:
    """A results.json's maximum (extra_data.max_score: every item's points)."""
    return (results.get("extra_data") or {}).get("max_score", 0)


def labs_data(results: dict) -> dict:
    """A results.json's extra_data.labs (lab id -> totals, info, seed, staged); {} where it has
    none."""
    found = (results.get("extra_data") or {}).get("labs")
    return found if isinstance(found, dict) else {}


def _labs(items: list[Item], info: dict[str, dict], seeds: dict[str, str],
          staged: dict[str, dict]) -> dict:
    """extra_data.labs: per lab id, its totals, its benchmark's info, its seed line and what was
    graded (staged: the submission folder and the staged copy, relative to the repository)."""
    labs = {}
    for lab in sorted({i.lab for i in items}):
        s, m, sk = totals([i for i in items if i.lab == lab])
        labs[lab] = {"score": s, "max_score": m, "skipped_points": sk, "info": info.get(lab, {})}
        if lab in seeds:
            labs[lab]["seed"] = seeds[lab]
        if lab in staged:
            labs[lab]["staged"] = staged[lab]
    return labs


def results_json(items: list[Item], elapsed_s: float, notes: list[Note], done: bool,
                 info: dict[str, dict] | None = None,
                 seeds: dict[str, str] | None = None,
                 staged: dict[str, dict] | None = None) -> dict:
    """Gradescope's schema (its autograder specification, and nothing outside it): score,
    execution_time, output (the notes, one "lab NN: ..." line each), tests[] (name, score,
    max_score, status, output, visibility, extra_data), leaderboard[] (name, value, order),
    extra_data. Gradescope hides the total from students while any test with points is not yet
    visible (after_published, after_due_date), so hidden tests' points never show in it before
    publication. Our own readers take data, never text: each tests[] entry's extra_data holds
    its lab id, kind, item name (lab.toml's), a metric's title and cause (results.Cause: "" for
    the test's own words); a skipped item has status "failed", score 0, its max_score, and
    extra_data.skipped true, and is listed in extra_data.not_measured (name, points, why,
    again). extra_data.max_score is every item's points; extra_data.notes holds the notes as
    {lab, text} ("" lab: the whole run); extra_data.labs has, per lab id, the lab's score,
    max_score, skipped_points (not yet measured), the benchmark's info figures and, where its
    tests printed one, the seed line ("mlmem: seed ..."); where it was built, staged:
    {submission, stage}, the folders graded and staged (`make handin` compares the stage with
    the student's files)."""
    score, most, skipped_pts = totals(items)
    tests = [_entry(i) for i in items]
    out = {"score": score, "execution_time": round(elapsed_s, 1),
           "output": markdown("\n".join(n.line() for n in notes)), "output_format": "md",
           "test_output_format": "md", "visibility": "visible", "stdout_visibility": "hidden",
           "tests": tests,
           "extra_data": {"max_score": most, "skipped_points": skipped_pts, "complete": done,
                          "labs": _labs(items, info or {}, seeds or {}, staged or {}),
                          "notes": [dataclasses.asdict(n) for n in notes],
                          "not_measured": [{"name": entry_name(i), "points": i.max_score,
                                            "why": i.output, "again": not i.lasting}
                                           for i in items if not i.measured]}}
    board = leaderboard(items)
    if board:
        out["leaderboard"] = board
    return out


def write_results(path: str, items: list[Item], elapsed_s: float, notes: list[Note], done: bool,
                  info: dict[str, dict] | None = None, seeds: dict[str, str] | None = None,
                  staged: dict[str, dict] | None = None):
    """results.json (results_json), written atomically."""
    write_text(path, json.dumps(results_json(items, elapsed_s, notes, done, info, seeds, staged),
                                indent=2) + "\n")


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
                why = shown_output(i)
                ET.SubElement(case, "failure", message=_first_line(why, 500)).text = why
    write_text(path, ET.tostring(root, encoding="unicode") + "\n")
