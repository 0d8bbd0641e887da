"""report.html (grader/reports/html_report.py): one self-contained page per graded run, built from
results.json. Everything a student's program printed is escaped, nothing is loaded from outside
the page, a hidden test shows no more than results.json does, and a failure to write the page
never touches the grade. One test renders the page in a real browser (Debian's chromium,
headless, offline) and checks the screenshot."""
from __future__ import annotations

import html.parser
import json
import os
import re
import shutil
import subprocess

import pytest

from grader.rules import hidden
from grader.reports import html_report, report
from grader.rules.results import FAILED, PASSED, SKIPPED, Cause, Item, Note

from conftest import ROOT

HOSTILE = "expected 3, got <script>alert(1)</script> & more\n    at check_blocks.c:13"
SKIP_WHY = "needs a CUDA GPU; this machine has none"
NOTE = "tests the program ran that lab.toml does not list: t_extra (0 points)"
def _t(lab: str, kind: str, item: str, title: str = "", skipped: bool = False, **kw) -> dict:
    """One results.json tests[] entry: Gradescope's keys (kw) and ours in its extra_data."""
    data = {"lab": lab, "kind": kind, "item": item, "cause": ""}
    data.update({"title": title} if title else {})
    data.update({"skipped": True} if skipped else {})
    return {"status": "failed", **kw, "extra_data": data}


RESULTS = {
    "score": 10.5, "execution_time": 3.2,
    "output": f"lab 09: {NOTE}",
    "tests": [
        _t("09", "test", "test_create_bad_args", name="lab09 / test_create_bad_args", score=2,
           max_score=2, status="passed", output="passed"),
        _t("09", "test", "test_seq_add_fills_in_order", name="lab09 / test_seq_add_fills_in_order",
           score=0, max_score=4, output=HOSTILE),
        _t("09", "test", "t_hidden", name="lab09 / t_hidden", score=0, max_score=3,
           output=hidden.WITHHELD),
        _t("09", "test", "t_shown", name="lab09 / t_shown", score=0, max_score=0,
           status="passed", output="passed (shown, worth no points)"),
        _t("09", "metric", "kv_waste_pct", "token slots reserved but unused",
           name="lab09 / performance: kv_waste_pct", score=8.5, max_score=11,
           output="5.2% (0 points at 20%, full at 4%; lower is better)\n"
                  "measures: token slots reserved but unused"),
        _t("09", "metric", "cuda_thing", "a GPU figure", skipped=True,
           name="lab09 / performance: cuda_thing", score=0, max_score=0,
           output="SKIPPED: " + SKIP_WHY + "\nmeasures: a GPU figure"),
    ],
    "extra_data": {"max_score": 20, "skipped_points": 6, "complete": True,
                   "notes": [{"lab": "09", "text": NOTE}],
                   "labs": {"09": {"score": 10.5, "max_score": 20, "skipped_points": 6,
                                   "seed": "mlmem: seed 42 (replay with MLMEM_SEED=42)",
                                   "info": {"budget": "1024 blocks",
                                            "chat": {"steps": 2485, "waste_pct": 2.27}}}}},
}


class Balanced(html.parser.HTMLParser):
    """Parses a page and records where its tags do not nest (html.parser itself never fails)."""
    VOID = {"meta", "img", "br", "col", "hr", "link", "input"}

    def __init__(self):
        super().__init__()
        self.stack, self.errors, self.urls = [], [], []

    def handle_starttag(self, tag, attrs):
        self.urls += [v for k, v in attrs if k in ("src", "href") and v]
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()


def parsed(page: str) -> Balanced:
    p = Balanced()
    p.feed(page)
    p.close()
    assert not p.errors and not p.stack, (p.errors, p.stack)
    return p


@pytest.fixture
def graded(tmp_path):
    """A results folder holding RESULTS as results.json."""
    (tmp_path / "results.json").write_text(json.dumps(RESULTS))
    return tmp_path


def test_the_page_escapes_what_a_program_printed_and_loads_nothing():
    page = html_report.render(RESULTS, 0)
    assert "<script" not in page.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more" in page
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*https?:""", page, re.I)
    p = parsed(page)
    assert all(u.startswith(("#", "data:image/png;base64,")) for u in p.urls), p.urls


def test_the_page_shows_totals_skips_apart_from_failures_and_the_hints():
    page = html_report.render(RESULTS, 0)
    text = re.sub(r"<[^>]+>", "", page)
    assert "10.5/20 (6 " in text                   # the total, and the points skipped beside it
    assert "lab 09: mlmem: seed 42 (replay with MLMEM_SEED=42)" in text
    skips = page.split("Skipped: not measured")[1]
    assert SKIP_WHY in skips and "cuda_thing" in skips and "a GPU figure" in skips
    assert SKIP_WHY not in page.split("Skipped: not measured")[0], "a skip is not a failure"
    assert "make hint LAB=09 LEVEL=1" in page and "make hint LAB=09 LEVEL=3" in page
    assert "token slots reserved but unused" in page and "PART" in page
    assert "2485" in page and "1024 blocks" in page           # the benchmark's info figures
    assert "t_extra (0 points)" in page                        # results.json's notes
    assert "passed (shown, worth no points)" in text          # a test worth no points
    assert text.count("passed") == 1, "a passed test worth points is silent"


def test_a_hidden_test_shows_no_more_than_results_json(tmp_path):
    secret = Item("09", "test", "t_hidden", 2, 0, FAILED, "expected 42 at check_x.c:9",
                  hidden=True)
    shown = Item("09", "test", "t_open", 2, 2, PASSED, "passed")
    skipped = Item("09", "metric", "m", 6, 0, SKIPPED, SKIP_WHY)
    results = report.results_json([secret, shown, skipped], 1, [], True)
    page = html_report.render(results, 0)
    assert "check_x.c" not in page and html_report.e(hidden.WITHHELD) in page
    assert SKIP_WHY in page


def test_the_staff_page_says_why_a_hidden_test_failed(tmp_path):
    """A hidden test that crashed: the student's page (report.html) says it is withheld, the
    course staff's (staff.html, from staff.json) gives the crash."""
    crashed = Item("09", "test", "t_hidden", 2, 0, FAILED, "Received signal 11 (Segmentation "
                   "fault) at check_x.c:9", hidden=True)
    items = [crashed, Item("09", "test", "t_open", 2, 2, PASSED, "passed")]
    (tmp_path / "results.json").write_text(json.dumps(report.results_json(items, 1, [], True)))
    (tmp_path / report.STAFF_FILE).write_text(json.dumps(report.staff_json(items)))
    theirs = open(html_report.write(str(tmp_path))).read()
    ours = open(html_report.write(str(tmp_path), staff=True)).read()
    assert "signal 11" not in theirs and html_report.e(hidden.WITHHELD) in theirs
    assert "signal 11" in ours and html_report.e(html_report.STAFF_NOTE) in ours
    assert os.path.basename(html_report.write(str(tmp_path), "09", staff=True)) == \
        "staff-lab09.html"


def test_gradescope_markdown_fences_are_taken_off():
    fenced = "does not compile:\n\n````\nsrc/kv.c:3: error: ``` `x`\n````"
    assert html_report.plain(fenced) == "does not compile:\nsrc/kv.c:3: error: ``` `x`"
    assert html_report.plain("one line") == "one line"


def test_make_report_writes_the_page_and_one_lab_without_grading(graded, capsys):
    assert html_report.main(["--dir", str(graded)]) == 0
    assert "report.html" in capsys.readouterr().out
    assert html_report.main(["--dir", str(graded), "--lab", "9"]) == 0
    one = (graded / "report-lab09.html").read_text()
    assert "test_seq_add_fills_in_order" in one
    assert html_report.main(["--dir", str(graded), "--lab", "03"]) == 2
    assert "no lab 03" in capsys.readouterr().err
    assert html_report.main(["--dir", str(graded / "none")]) == 1


def test_make_report_says_the_names_it_writes_and_reaches_a_batch_student(graded):
    """`make help` names the files `make report` writes (report.html, report-labNN.html,
    staff.html) and `make report DIR=<a batch student's folder> LAB=NN` writes there."""
    helped = subprocess.run(["make", "-s", "help"], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout
    for name in (html_report.page_name(), html_report.page_name("NN"),
                 html_report.page_name(staff=True)):
        assert name in helped, name
    assert "DIR=build/batch/<student>" in helped
    subprocess.run(["make", "-s", "report", f"DIR={graded}", "LAB=09", "STAFF=1"], cwd=ROOT,
                   check=True, capture_output=True)
    assert (graded / "staff-lab09.html").is_file()


def test_the_hook_never_fails_and_says_why(tmp_path):
    line = html_report.after_grading(str(tmp_path / "missing"), {})
    assert line.startswith("note: no HTML report") and "\n" not in line


def test_a_page_that_cannot_be_written_leaves_the_grade_as_it_was(graded, monkeypatch):
    before = (graded / "results.json").read_bytes()

    def broken(*_args, **_kw):
        raise RuntimeError("boom")
    monkeypatch.setattr(html_report, "render", broken)
    line = html_report.after_grading(str(graded), {})
    assert line.startswith("note: no HTML report") and "boom" in line
    assert (graded / "results.json").read_bytes() == before
    assert not (graded / "report.html").exists()


def test_make_report_takes_the_seed_from_results_json(graded):
    line = html_report.after_grading(str(graded), {})
    assert line.startswith("report: ") and (graded / "report.html").is_file()
    os.remove(graded / "report.html")
    html_report.main(["--dir", str(graded)])
    assert "mlmem: seed 42" in (graded / "report.html").read_text()
    assert html_report.e(html_report.REGRADE_NOTE) in (graded / "report.html").read_text(), \
        "the page says what a regrade with the same seed may move"
    labs = {"09": {k: v for k, v in RESULTS["extra_data"]["labs"]["09"].items() if k != "seed"}}
    (graded / "results.json").write_text(json.dumps(
        {**RESULTS, "output": "lab 09: mlmem: seed 7 (replay with MLMEM_SEED=7)",
         "extra_data": {**RESULTS["extra_data"], "labs": labs}}))
    html_report.main(["--dir", str(graded)])   # a later grade without a seed: none, not parsed
    assert "mlmem: seed" not in (graded / "report.html").read_text()


def test_notes_come_from_the_data_not_from_gradescopes_output():
    results = {**RESULTS, "output": "lab 09: words only Gradescope shows",
               "extra_data": {**RESULTS["extra_data"], "notes": [
                   {"lab": "", "text": "isolation: none"},
                   {"lab": "09", "text": "build failed\nsrc/kv.c:3: error: x"}]}}
    page = html_report.render(results, 0)
    assert "words only Gradescope shows" not in page
    assert "isolation: none\nlab 09: build failed\nsrc/kv.c:3: error: x" in page
    assert "<h3>Notes</h3>" not in html_report.render(
        {**RESULTS, "extra_data": {**RESULTS["extra_data"], "notes": []}}, 0)


def test_one_labs_page_takes_its_items_and_notes_by_their_lab_field():
    other = _t("03", "test", "t_elsewhere", name="lab09 / t_elsewhere", score=1, max_score=1,
               status="passed", output="passed")
    notes = [{"lab": "09", "text": "mine\nand its second line"}, {"lab": "03", "text": "theirs"},
             {"lab": "", "text": "the whole run"}]
    results = {**RESULTS, "tests": RESULTS["tests"] + [other],
               "extra_data": {**RESULTS["extra_data"], "notes": notes}}
    mine = html_report.only_lab(results, "09")
    assert "t_elsewhere" not in json.dumps(mine["tests"])
    assert len(mine["tests"]) == len(RESULTS["tests"])
    assert mine["extra_data"]["notes"] == notes[:1]
    assert mine["output"] == report.markdown("lab 09: mine\nand its second line")
    assert [t["name"] for t in html_report.only_lab(results, "03")["tests"]] == [other["name"]]
    with pytest.raises(KeyError):
        html_report.only_lab({**RESULTS, "tests": [{**t, "extra_data": {**t["extra_data"],
                                                                        "lab": "03"}}
                                                    for t in RESULTS["tests"]]}, "09")


def test_a_pages_items_and_seed_from_a_grading_run(tmp_path):
    """The page of results.json as the grader writes it: items by lab, notes and seed as data."""
    items = [Item("09", "test", "t", 2, 0, FAILED, "did not run: ended", cause=Cause.STOPPED),
             Item("03", "test", "u", 1, 1, PASSED, "passed")]
    results = report.results_json(items, 1, [Note("09", "a note")], True,
                                  seeds={"09": "mlmem: seed 3 (replay with MLMEM_SEED=3)"})
    assert list(html_report.entries_by_lab(results)) == ["09", "03"]
    text = re.sub(r"<[^>]+>", "", html_report.render(results, 0))
    assert "lab 09: mlmem: seed 3" in text and "lab 09: a note" in text


def test_plots_without_matplotlib_are_named_not_fatal(monkeypatch):
    monkeypatch.setattr(html_report.importlib.util, "find_spec", lambda name: None)
    figs, notes = html_report.draw_lab([{"series": "s", "x": "x", "y": "y"}],
                                       {"s": {"x": [1, 2], "y": [3, 4]}})
    assert figs == [] and "matplotlib" in notes[0]


def test_a_plot_from_the_graded_runs_series_is_inlined():
    pytest.importorskip("matplotlib")
    spec = {"series": "s", "x": "x", "y": "y", "title": "T"}
    figs, notes = html_report.draw_lab([spec, {**spec, "series": "gone"}],
                                       {"s": {"x": [1, 2, 4], "y": [3, 1, 2]}})
    assert len(figs) == 1 and "gone" in notes[0]
    page = html_report.render(RESULTS, 0, plots={"09": {"figures": figs, "notes": notes}})
    assert 'src="data:image/png;base64,iVBORw0KGgo' in page
    parsed(page)


# ---- a real browser ---------------------------------------------------------------------------

def chromium() -> str:
    """Debian's chromium, installed if missing (common/setup-deps.sh); skips with the reason
    when it cannot be."""
    found = shutil.which("chromium")
    if found:
        return found
    proc = subprocess.run(["bash", os.path.join(ROOT, "common", "setup-deps.sh"), "chromium"],
                          capture_output=True, text=True, timeout=900)
    found = shutil.which("chromium")
    if not found:
        pytest.skip("no chromium to render the page: setup-deps.sh said: "
                    + (proc.stderr.strip() or proc.stdout.strip() or f"status {proc.returncode}"))
    return found


@pytest.mark.slow
def test_chromium_renders_the_page_offline(graded, tmp_path):
    browser = chromium()
    long_line = _t("09", "test", "test_out_of_blocks_changes_nothing",
                   name="lab09 / test_out_of_blocks_changes_nothing", score=0, max_score=2,
                   output="x" * 3000 + "\n" + "y\n" * 400)
    (graded / "results.json").write_text(json.dumps({**RESULTS,
                                                     "tests": RESULTS["tests"] + [long_line]}))
    page = html_report.write(str(graded))
    shot = tmp_path / "shot.png"
    proc = subprocess.run([browser, "--headless", "--disable-gpu", "--no-sandbox",
                           f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}",
                           "--window-size=1200,1600", "file://" + os.path.abspath(page)],
                          capture_output=True, text=True, timeout=120)
    assert shot.is_file(), proc.stderr[-2000:]
    assert shot.stat().st_size > 10_000, "a blank page makes a tiny PNG"
