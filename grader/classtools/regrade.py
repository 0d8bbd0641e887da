"""`make regrade STUDENT=id LAB=NN [OUT=build/batch] [ROSTER=file]`: one student's lab graded again
inside a batch (a late hand-in, a fixed grader) and merged into it: the student's passes of that
lab run again with the student's seed, their items replace that lab's in the student's passes,
the summary is merged again, the hash of the files graded is recorded (plan.json, summary.csv,
regrades.json), and with a roster the gradebook is written again."""
from __future__ import annotations

import json
import os
import time

from . import batch, gradebook
from ..reports import report
from ..rules import labs, submission
from ..rules.config import ConfigError

LOG = "regrades.json"


def without_lab(res: dict, lab_id: str) -> dict:
    """A pass's results.json less everything of lab lab_id: its items, totals, notes, skips and
    leaderboard entries."""
    ed = res.get("extra_data") or {}
    return {**res,
            "tests": [t for t in res.get("tests", []) if report.entry_lab(t) != lab_id],
            "leaderboard": [e for e in res.get("leaderboard", [])
                            if not e.get("name", "").startswith(f"lab{lab_id} ")],
            "output": "",
            "extra_data": {**ed, "labs": {k: v for k, v in (ed.get("labs") or {}).items()
                                          if k != lab_id},
                           "notes": [n for n in ed.get("notes", []) if n.get("lab") != lab_id],
                           "not_measured": [n for n in ed.get("not_measured", [])
                                            if not n["name"].startswith(f"lab{lab_id} /")]}}


def _folder(student: str, roster: str | None) -> str:
    """The submission folder of `student`: the roster's folder for that id, else the name."""
    if not roster:
        return student
    found = [s.folder for s in gradebook.read_roster(roster) if student in (s.id, s.folder)]
    if not found:
        raise ConfigError(f"{roster}: no student {student!r}")
    return found[0]


def _part(p: batch.Plan, s: str, lab, part: str, out) -> None:
    """Student s's `part` pass of `lab` again, its items put in place of the lab's in the pass."""
    where = os.path.join(p.out_dir, s, part)
    again = os.path.join(p.out_dir, s, f"{part}-regrade")
    status, secs = batch._grade(p.trees[s], again, part, [lab], p.timeout, p.args(s))
    out(f"  {part:<7} {s:<24} {secs:6.1f} s  {status}")
    merged = batch._merge([batch._load(os.path.join(again, "results.json")),
                           without_lab(batch._load(os.path.join(where, "results.json")), lab.id)])
    os.makedirs(where, exist_ok=True)
    with open(os.path.join(where, "results.json"), "w") as f:
        json.dump(merged, f, indent=2)
    with open(os.path.join(where, "status.json"), "w") as f:
        json.dump({"status": status, "seconds": round(secs, 1)}, f)


def regrade(out_dir: str, student: str, lab_id: str, roster: str | None = None,
            out=print) -> list[dict]:
    """Grades `student`'s lab lab_id again in the batch in out_dir and merges; the summary.
    Raises ConfigError when the batch has no such student or lab."""
    p = batch.load_plan(out_dir)
    s = _folder(student, roster)
    lab = labs.select(lab_id)[0]
    if s not in p.trees:
        raise ConfigError(f"{out_dir}: the batch has no student folder {s!r}")
    if lab.slug not in p.labs:
        raise ConfigError(f"{out_dir}: the batch graded {', '.join(p.labs)}, not {lab.slug}")
    src = os.path.join(p.submissions, s)
    p.trees[s] = submission.resolve(src, p.chosen, os.path.join(p.out_dir, s, "tree"))
    if not p.trees[s]:
        raise ConfigError(f"{src}: no lab files found")
    p.hashes[s] = batch.tree_hash(src)
    p.save()
    out(f"regrade: {s}, lab {lab.id}, files sha256 {p.hashes[s][:16]}..., seed {p.seeds.get(s)}")
    for part in ["tests"] + (["metrics"] if lab.metrics else []):
        _part(p, s, lab, part, out)
    _log(out_dir, {"student": s, "lab": lab.id, "sha256": p.hashes[s], "seed": p.seeds.get(s),
                   "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
    table = batch.merge(out_dir, out)
    if roster:
        gradebook.main(out_dir, roster, out=out)
    return table


def _log(out_dir: str, entry: dict):
    """Appends entry to <out>/regrades.json (a list, oldest first)."""
    path = os.path.join(out_dir, LOG)
    done = batch._load(path) if os.path.isfile(path) else []
    with open(path, "w") as f:
        json.dump((done if isinstance(done, list) else []) + [entry], f, indent=2)
