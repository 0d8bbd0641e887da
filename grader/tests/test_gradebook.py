"""A term's gradebook from a batch (grader/classtools/gradebook.py) and a one-student regrade
merged into it (grader/classtools/regrade.py). Nothing is compiled: the batch's passes are
written here as the grader writes them."""
import csv
import json
import os

import pytest

from grader.classtools import batch, gradebook, regrade
from grader.reports import report
from grader.rules import labs
from grader.rules.config import ConfigError
from grader.rules.results import FAILED, PASSED, Item

LAB = "03"
ROSTER = "id,name,folder,late_days\n20261,\"Doe, Ann\",ann,03:2\n20262,Ben Roe,ben,\n"


def _batch(tmp_path) -> batch.Plan:
    """A merged batch of lab 03 for ann (every item passed) and ben (every item failed)."""
    subs = tmp_path / "subs"
    for n in ("ann", "ben"):
        os.makedirs(subs / n)
        (subs / n / "view.c").write_text(f"/* {n} */\n")
    p = batch.plan(str(subs), labs.select(LAB), str(tmp_path / "out"), 60, [], seed="1")
    for s, ok in (("ann", True), ("ben", False)):
        _pass(p, s, "tests", ok)
    batch.merge(p.out_dir, out=lambda *_: None)
    return p


def _items(ok: bool, kinds=("test",)) -> list[Item]:
    lab = labs.select(LAB)[0]
    xs = [("test", t) for t in lab.tests] + [("metric", m) for m in lab.metrics]
    return [Item(LAB, k, x.name, x.points, x.points if ok else 0, PASSED if ok else FAILED,
                 "passed" if ok else "wrong") for k, x in xs if k in kinds]


def _pass(p, s, part, ok):
    where = os.path.join(p.out_dir, s, part)
    os.makedirs(where, exist_ok=True)
    report.write_results(os.path.join(where, "results.json"), _items(ok), 1, [], True)
    with open(os.path.join(where, "status.json"), "w") as f:
        f.write('{"status": "ok", "seconds": 1}')


def test_the_gradebook_keys_students_by_id_after_the_late_policy(tmp_path):
    p = _batch(tmp_path)
    (tmp_path / "roster.csv").write_text(ROSTER)
    book = gradebook.build(p.out_dir, gradebook.read_roster(str(tmp_path / "roster.csv")), 10)
    tests = sum(t.points for t in labs.select(LAB)[0].tests)
    most = book["labs"][LAB]["max_score"]
    ann = book["students"][0]
    assert (ann["id"], ann["labs"][LAB]["points"], ann["labs"][LAB]["late_days"]) == \
        ("20261", tests, 2)
    assert ann["labs"][LAB]["final"] == round(tests - 2 * most / 10, 2), "two late days: -20%"
    assert book["students"][1]["labs"][LAB]["final"] == 0
    canvas, moodle, _ = gradebook.write(p.out_dir, book)
    with open(canvas, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert rows[0][5] == "Lab 03 tensor strides" and len(rows) == 3
    assert rows[1][0] == "Doe, Ann" and rows[1][2] == "20261"
    with open(moodle, newline="") as f:
        assert next(csv.reader(f))[:2] == ["ID number", "Full name"]


@pytest.mark.parametrize("text, why", [
    ("id,name,folder,late\n1,a,b,2\n", "unknown column 'late' (did you mean 'late_days'?)"),
    ("id,name,late_days\n1,a,2\n", "missing: folder"),
    ("id,name,folder,late_days\n1,a,b,two\n", "late_days must be a number"),
    ("id,name,folder,late_days\n1,a,b,\n1,c,d,\n", "row 3: 1 is listed twice"),
])
def test_the_roster_is_checked(tmp_path, text, why):
    (tmp_path / "r.csv").write_text(text)
    with pytest.raises(ConfigError) as e:
        gradebook.read_roster(str(tmp_path / "r.csv"))
    assert why in str(e.value) and "r.csv" in str(e.value)


def test_a_regrade_replaces_the_labs_items_and_records_the_hash(tmp_path, monkeypatch):
    """ben hands in a fixed file: his lab is graded again with his seed, its items replace the
    old ones (once each), the summary and the gradebook follow, and the hash is recorded."""
    p = _batch(tmp_path)
    (tmp_path / "roster.csv").write_text(ROSTER)
    (tmp_path / "subs" / "ben" / "view.c").write_text("/* fixed */\n")
    seeds = []

    def fake(src, out, parts, chosen, timeout, extra):
        seeds.append(extra[-1])
        os.makedirs(out, exist_ok=True)
        report.write_results(os.path.join(out, "results.json"),
                             _items(True, (parts[:-1],)), 1, [], True)
        return "ok", 1.0
    monkeypatch.setattr(batch, "_grade", fake)
    regrade.regrade(p.out_dir, "20262", LAB, str(tmp_path / "roster.csv"), out=lambda *_: None)
    res = json.loads((tmp_path / "out" / "ben" / "results.json").read_text())
    names = [t["name"] for t in res["tests"]]
    lab = labs.select(LAB)[0]
    assert len(names) == len(set(names)) == len(lab.tests) + len(lab.metrics)
    assert seeds and set(seeds) == {p.seeds["ben"]}, "the regrade uses ben's seed"
    want = batch.tree_hash(str(tmp_path / "subs" / "ben"))
    with open(tmp_path / "out" / "summary.csv") as f:
        ben = [r for r in csv.DictReader(f) if r["student"] == "ben"][0]
    assert ben["sha256"] == want and float(ben["score"]) == res["score"] > 0
    log = json.loads((tmp_path / "out" / regrade.LOG).read_text())
    assert log[-1]["student"] == "ben" and log[-1]["sha256"] == want
    book = json.loads((tmp_path / "out" / "gradebook.json").read_text())
    assert book["students"][1]["labs"][LAB]["points"] == res["score"]


def test_the_class_page_has_histograms_the_failure_matrix_and_the_seed(tmp_path):
    from grader.reports import class_report
    p = _batch(tmp_path)
    page = (tmp_path / "out" / class_report.PAGE).read_text()
    assert "<svg" in page and "Which tests students fail" in page and "class seed 1" in page
    assert "ben/staff.html" in page
    assert class_report.histogram([0, 5, 10, 10], 10) == [1, 0, 0, 0, 0, 1, 0, 0, 0, 2]
    with open(tmp_path / "out" / "ben" / "results.json") as f:
        names, cells = class_report.failure_matrix({"ben": json.load(f)}, LAB)
    assert set(cells["ben"].values()) == {"fail"} and len(names) == len(labs.select(LAB)[0].tests)
