"""`make gradebook ROSTER=file [OUT=build/batch] [LATE_PENALTY=10]`: a batch's summary as a term's
gradebook for a learning-management system. The roster (CSV: id, name, folder, late_days) maps
each submission folder to a student id; each lab's points pass through the stated late policy
(LATE_PENALTY percent of the lab's points per late day, never below 0); out come
gradebook-canvas.csv (Canvas's import columns: Student, ID, SIS User ID, SIS Login ID, Section,
then one column per lab), gradebook-moodle.csv (ID number, Full name, one column per lab: map
"ID number" to the users' ID number in Moodle's CSV import) and gradebook.json (the same, with
the raw points, the late days, the policy and each lab's maximum)."""
from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass, field

from . import batch
from ..rules import config
from ..rules.config import ConfigError

ROSTER_COLUMNS = ("id", "name", "folder", "late_days")
PENALTY = 10.0   # percent of a lab's points per late day (the default policy)


@dataclass
class Student:
    id: str
    name: str
    folder: str
    late: dict[str, int] = field(default_factory=dict)   # lab id -> late days ("" : every lab)

    def late_days(self, lab_id: str) -> int:
        return self.late.get(lab_id, self.late.get("", 0))


def _late(text: str, where: str) -> dict[str, int]:
    """late_days as written: empty (none), "2" (each lab) or "03:2 09:1" (per lab)."""
    out: dict[str, int] = {}
    for part in text.replace(",", " ").split():
        lab, _, days = part.rpartition(":")
        if not days.isdigit():
            raise ConfigError(f"{where}: late_days must be a number of days or lab:days pairs "
                              f"(\"2\", \"03:2 09:1\"), not {text!r}")
        out[lab.removeprefix("lab").zfill(2) if lab else ""] = int(days)
    return out


def read_roster(path: str) -> list[Student]:
    """The roster at path. Raises ConfigError naming the file and row on an unknown or missing
    column (with a suggestion), an empty id or folder, or an id or folder listed twice."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            rows = list(csv.DictReader(f))
            header = rows and list(rows[0]) or []
    except OSError as e:
        raise ConfigError(f"{config.shown(path)}: {e}") from e
    where = config.shown(path)
    config.check_keys({k: None for k in header}, ROSTER_COLUMNS, where, "column")
    missing = [c for c in ("id", "folder") if c not in header]
    if missing or not rows:
        raise ConfigError(f"{where}: needs a header row with id, name, folder, late_days and one "
                          f"row per student (missing: {', '.join(missing) or 'rows'})")
    out, seen = [], set()
    for n, r in enumerate(rows, start=2):
        sid, folder = (r.get("id") or "").strip(), (r.get("folder") or "").strip()
        if not sid or not folder:
            raise ConfigError(f"{where}, row {n}: an empty id or folder")
        if sid in seen or folder in seen:
            raise ConfigError(f"{where}, row {n}: {sid if sid in seen else folder} is listed twice")
        seen |= {sid, folder}
        out.append(Student(sid, (r.get("name") or "").strip(), folder,
                           _late(r.get("late_days") or "", f"{where}, row {n}")))
    return out


def after_policy(points: float, most: float, days: int, penalty: float) -> float:
    """points less `penalty` percent of the lab's maximum per late day, never below 0."""
    return round(max(0.0, points - most * penalty / 100.0 * days), 2)


def _maxima(p: batch.Plan) -> dict[str, float]:
    """Lab id -> every item's points (lab.toml's)."""
    return {lab.id: round(sum(t.points for t in lab.tests) + sum(m.points for m in lab.metrics),
                          2) for lab in p.chosen}


def build(out_dir: str, roster: list[Student], penalty: float = PENALTY) -> dict:
    """gradebook.json's content from the batch in out_dir (its plan and summary.json) and the
    roster: per student and lab the points, late days and points after the policy; the folders
    of the batch that the roster lacks. Raises ConfigError when out_dir has no merged batch."""
    p = batch.load_plan(out_dir)
    try:
        with open(os.path.join(out_dir, "summary.json")) as f:
            summary = {r["student"]: r for r in json.load(f)}
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ConfigError(f"{out_dir}: no summary.json to export (make batch first): {e}") from e
    most = _maxima(p)
    students = []
    for st in roster:
        row = summary.get(st.folder, {})
        labs = {}
        for lab_id, m in most.items():
            pts = float(row.get(f"lab{lab_id}", 0) or 0)
            days = st.late_days(lab_id)
            labs[lab_id] = {"points": pts, "late_days": days,
                            "final": after_policy(pts, m, days, penalty)}
        students.append({"id": st.id, "name": st.name, "folder": st.folder,
                         "graded": st.folder in summary, "labs": labs,
                         "total": round(sum(v["final"] for v in labs.values()), 2)})
    return {"policy": f"each late day costs {penalty:g}% of the lab's points, never below 0",
            "penalty_pct_per_day": penalty, "class_seed": p.class_seed,
            "labs": {k: {"slug": next(s for s in p.labs if s[3:5] == k), "max_score": v}
                     for k, v in most.items()},
            "students": students,
            "not_on_roster": sorted(set(summary) - {s.folder for s in roster})}


def column(book: dict, lab_id: str) -> str:
    """A lab's column title: "Lab 03 tensor strides". No parentheses: Canvas reads "Name (N)" as
    the assignment whose id is N, so a title in that shape would not make a new assignment."""
    slug = book['labs'][lab_id]['slug']
    return f"Lab {lab_id} {slug.split('-', 1)[-1].replace('-', ' ')}"


def write(out_dir: str, book: dict) -> list[str]:
    """gradebook-canvas.csv, gradebook-moodle.csv and gradebook.json in out_dir; their paths."""
    labs = list(book["labs"])
    canvas = os.path.join(out_dir, "gradebook-canvas.csv")
    with open(canvas, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section"] +
                   [column(book, k) for k in labs])
        for s in book["students"]:
            w.writerow([s["name"], "", s["id"], "", ""] + [s["labs"][k]["final"] for k in labs])
    moodle = os.path.join(out_dir, "gradebook-moodle.csv")
    with open(moodle, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["ID number", "Full name"] + [column(book, k) for k in labs])
        for s in book["students"]:
            w.writerow([s["id"], s["name"]] + [s["labs"][k]["final"] for k in labs])
    js = os.path.join(out_dir, "gradebook.json")
    with open(js, "w") as f:
        json.dump(book, f, indent=2)
    return [canvas, moodle, js]


def main(out_dir: str, roster_path: str, penalty: float = PENALTY, out=print) -> int:
    """`make gradebook`: the three files, and what the roster and the batch do not share."""
    book = build(out_dir, read_roster(roster_path), penalty)
    paths = write(out_dir, book)
    missing = [s["id"] for s in book["students"] if not s["graded"]]
    out(f"gradebook: {', '.join(os.path.relpath(p) for p in paths)} "
        f"({len(book['students'])} students; {book['policy']})")
    if missing:
        out(f"  note: no submission graded for {', '.join(missing)}: 0 points")
    if book["not_on_roster"]:
        out(f"  note: graded folders not on the roster: {', '.join(book['not_on_roster'])}")
    return 0
