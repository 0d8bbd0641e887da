"""The grader's presentation of results: score-table lines, lab totals, results.json and JUnit
(report.py), and the one place a grading run records its items (grade.Grading.record)."""
import dataclasses
import json

import pytest

from grader.grading import bench, build, checkrun, grade, hw
from grader.rules import hidden, labs
from grader.reports import report
from grader.confinement import sandbox, seal
from grader.rules.results import FAILED, PARTIAL, PASSED, SKIPPED, Cause, Item, Note

LAB01 = "lab01-cache-lines"


def test_a_metric_line_names_it_says_what_it_measures_and_how_it_scored():
    i = Item("03", "metric", "transpose_speedup", 10, 10, PASSED, "2.31x (0 points at 1.5x)",
             2.31, title="tv_transpose2d_f32 vs the naive strided loop")
    first, second = report.item_line(i).split("\n")
    assert first.split()[:3] == ["PASS", "transpose_speedup", "10/10"]
    assert first.endswith("tv_transpose2d_f32 vs the naive strided loop")
    assert "perf:" not in first and second.strip() == "2.31x (0 points at 1.5x)"
    t = report.item_line(Item("03", "test", "test_view", 2, 2, PASSED, "passed"))
    assert "\n" not in t and t.split() == ["PASS", "test_view", "2/2"]


def test_a_skipped_tests_reason_is_shown_whole():
    """Lab 04's skip reasons end with the fix (a docker run command): the line keeps all of it,
    wrapped, where a failure's message is cut to one line."""
    fix = "(docker run --cap-add SYS_NICE --security-opt seccomp=unconfined; the dev container)"
    why = "SKIPPED: this machine refuses move_pages (Operation not permitted): in a container " \
          "the default seccomp profile allows the memory-policy calls only with CAP_SYS_NICE, " \
          f"and move_pages not at all {fix}"
    line = report.item_line(Item("04", "test", "test_pages_follow_the_writer", 3, 0, SKIPPED,
                                 why))
    assert len(why) > 200 and " ".join(line.split()).endswith(fix)
    assert line.split()[:3] == ["SKIP", "test_pages_follow_the_writer", "-"]


def test_a_hidden_tests_message_is_withheld_everywhere(tmp_path):
    secret = Item("01", "test", "t_hidden", 2, 0, FAILED, "expected 42 at check_x.c:9",
                  hidden=True)
    crashed = Item("01", "test", "t_hidden2", 2, 0, FAILED,
                   "did not run: the test program ended (crashed: SIGSEGV)", cause=Cause.STOPPED,
                   hidden=True)
    line = report.item_line(secret)
    assert "42" not in line and hidden.WITHHELD in line
    assert "SIGSEGV" in report.item_line(crashed), "how a hidden test ended is shown"
    d = report.results_json([secret, crashed], 1, [], True)
    assert "42" not in json.dumps(d) and "SIGSEGV" in json.dumps(d)
    report.write_junit(str(tmp_path / "j.xml"), [secret])
    assert "42" not in (tmp_path / "j.xml").read_text()


def test_a_hidden_tests_own_words_are_withheld_whatever_they_say():
    """Only the cause decides: a hidden test whose own message reads like the grader's is still
    withheld."""
    mimic = Item("01", "test", "t_hidden", 2, 0, FAILED, "did not run: expected 42 (check_x.c:9)",
                 hidden=True)
    assert report.shown_output(mimic) == hidden.WITHHELD
    assert "42" not in json.dumps(report.results_json([mimic], 1, [], True))


@pytest.mark.parametrize("cause", [Cause.NO_SUBMISSION, Cause.NOT_BUILT, Cause.COMPILER_CRASH,
                                   Cause.STOPPED, Cause.EXITED_EARLY])
def test_the_graders_own_words_are_shown_for_a_hidden_test(cause):
    i = Item("01", "test", "t_hidden", 2, 0, FAILED, "the grader's words", cause=cause,
             hidden=True)
    assert report.shown_output(i) == "the grader's words"
    entry = report.results_json([i], 1, [], True)["tests"][0]
    data = entry["extra_data"]
    assert (entry["output"], data["cause"], data["lab"]) == ("the grader's words", cause, "01")


def _whole(**kw) -> sandbox.RunResult:
    return sandbox.RunResult(None, 11, False, "", "", 0, 1.0, **kw)


def test_a_test_without_a_result_or_a_completion_record_has_the_graders_cause():
    lab = labs.load(LAB01)
    t = labs.Test("t", 2, hidden=True)
    watch = sandbox.Watch("check.xml", 12)
    for whole in (_whole(), _whole(stalled=True, watch=watch),
                  dataclasses.replace(_whole(), timed_out=True)):
        item = checkrun._item(lab, t, {}, {}, whole)
        assert item.cause == Cause.STOPPED and item.output.startswith("did not run")
    item = checkrun._item(lab, t, {"t": ("success", "")}, {}, _whole())
    assert (item.cause, item.output) == (Cause.EXITED_EARLY, checkrun.EXITED_EARLY)
    item = checkrun._item(lab, t, {"t": ("failure", "x == 3")}, {}, _whole())
    item.hidden = True     # as the grading run records it
    assert (item.cause, report.shown_output(item)) == (Cause.OWN, hidden.WITHHELD)
    assert report.staff_json([item]) == {"withheld": {"lab01 / t": "x == 3"}}, "staff see why"
    item = checkrun._item(lab, t, {"t": ("success", "")}, {"t": seal.Mark()}, _whole())
    assert (item.status, item.cause) == (PASSED, Cause.OWN)


@pytest.mark.parametrize("built, cause", [
    (build.Built(False, "", "", [], no_submission=True), Cause.NO_SUBMISSION),
    (build.Built(False, "", "src/x.c:3:1: error: expected ';'", []), Cause.NOT_BUILT)])
def test_a_lab_that_did_not_build_says_so_as_its_cause(tmp_path, built, cause):
    g = grade.Grading("labs", None, out=lambda _: None, results_dir=str(tmp_path))
    items = g._not_built(labs.load(LAB01), built)
    assert items and {i.cause for i in items} == {cause}
    assert {i.kind for i in items} == {"test", "metric"}


def test_a_skip_keeps_its_points_in_the_maximum_and_is_named():
    items = [Item("06", "test", "t", 84, 84, PASSED),
             Item("06", "metric", "m", 6, 0, SKIPPED, "needs a CUDA GPU")]
    line = report.lab_summary("06", items).splitlines()[-1]
    assert "84/90 (6 points not yet measured" in line, line
    assert report.total_phrase(84, 84, 0) == "84/84"


def test_the_hint_follows_a_failed_metric_too():
    passed = Item("02", "test", "t", 2, 2, PASSED)
    metric = Item("02", "metric", "m", 5, 2, PARTIAL, "0.5x")
    assert "make hint LAB=02" in report.lab_summary("02", [passed, metric])
    assert "make hint" not in report.lab_summary("02", [passed])
    skipped = dataclasses.replace(metric, status=SKIPPED, score=0)
    assert "make hint" not in report.lab_summary("02", [passed, skipped])


def test_the_benchmarks_info_is_printed_compactly_and_kept_in_results_json():
    info = {"epoch_mib": 64, "mmap_vs_memory": 0.980311, "hit_rates": [0.752392, 0.0385],
            "baseline": "memcpy of the input", "workers": {"n": 4, "pss_mib": 65.0195}}
    lines = report.info_lines(info)
    text = "\n".join(lines)
    assert lines[0].startswith("  info: epoch_mib 64; mmap_vs_memory 0.98; hit_rates [0.752, "
                               "0.0385]; baseline memcpy of the input")
    assert "workers: n 4; pss_mib 65" in text and all(len(x) <= 104 for x in lines)
    items = [Item("06", "metric", "m", 5, 5, PASSED, "ok", 1.0)]
    assert "  info: epoch_mib 64" in report.lab_summary("06", items, info)
    d = report.results_json(items, 1, [], True, {"06": info})
    assert d["extra_data"]["labs"]["06"]["info"] == info
    assert d["extra_data"]["labs"]["06"]["max_score"] == 5


def test_results_json_metric_output_carries_the_title_and_the_leaderboard_its_order():
    items = [Item("07", "metric", "calls", 10, 10, PASSED, "2 calls", 2.0, title="raw calls",
                  higher_is_better=False),
             Item("07", "metric", "speedup", 8, 8, PASSED, "9x", 9.0, higher_is_better=True)]
    d = report.results_json(items, 1, [], True)
    assert d["tests"][0]["name"] == "lab07 / performance: calls"
    assert d["tests"][0]["output"] == "2 calls\n\nmeasures: raw calls"
    assert d["leaderboard"] == [{"name": "lab07 calls", "value": 2.0, "order": "asc"},
                                {"name": "lab07 speedup", "value": 9.0, "order": "desc"}]


def test_record_annotates_items_and_its_notes_reach_results_json(tmp_path):
    lab = labs.load(LAB01)
    secret = labs.Test("test_secret", 1, hidden=True)
    lab = dataclasses.replace(lab, tests=lab.tests + [secret])
    out = []
    g = grade.Grading("solutions", None, out=out.append, results_dir=str(tmp_path))
    m = lab.metrics[0]
    g.record(lab, [Item("01", "test", "test_secret", 1, 0, FAILED, "x == 3 (check_s.c:4)")],
             ["not in lab.toml (0 points): test_extra"])
    g.record(lab, [Item("01", "metric", m.name, m.points, 0, FAILED, "failed: crashed")],
             ["the benchmark's output was cut: 10 more bytes dropped"])
    g.record(lab, [Item("01", "metric", m.name, m.points, m.points, PASSED, "3x", 3.0)])
    d = json.loads((tmp_path / "results.json").read_text())
    assert "lab 01: not in lab.toml (0 points): test_extra" in d["output"]
    assert "lab 01: the benchmark's output was cut" in d["output"]
    assert d["extra_data"]["notes"] == [
        {"lab": "01", "text": "not in lab.toml (0 points): test_extra"},
        {"lab": "01", "text": "the benchmark's output was cut: 10 more bytes dropped"}]
    assert [report.entry_lab(t) for t in d["tests"]] == ["01", "01"]
    assert [t["name"] for t in d["tests"]] == ["lab01 / test_secret",
                                              f"lab01 / performance: {m.name}"]
    assert d["tests"][0]["output"] == hidden.WITHHELD and "x == 3" not in "\n".join(out)
    assert d["tests"][1]["output"].endswith(f"measures: {m.title}")
    assert d["leaderboard"][0]["order"] == "desc"
    assert any(m.title in line for line in out)


def test_notes_and_seeds_are_data_and_output_keeps_gradescopes_lines():
    notes = [Note("", "isolation: none"), Note("07", "build failed\nsrc/a.c:1: error: x")]
    items = [Item("07", "test", "t", 1, 1, PASSED, "passed")]
    d = report.results_json(items, 1, notes, True, seeds={"07": "mlmem: seed 5 (replay)"})
    assert d["output"] == report.markdown("isolation: none\nlab 07: build failed\n"
                                          "src/a.c:1: error: x")
    assert d["extra_data"]["notes"] == [{"lab": "", "text": "isolation: none"},
                                        {"lab": "07", "text": "build failed\nsrc/a.c:1: error: x"}]
    assert d["extra_data"]["labs"]["07"]["seed"] == "mlmem: seed 5 (replay)"
    assert "seed" not in report.results_json(items, 1, [], True)["extra_data"]["labs"]["07"]


def test_a_benchmark_that_ran_and_failed_says_failed():
    lab = labs.load(LAB01)
    m = lab.metrics[0]
    item = bench.score_metric(lab, m, None, "the benchmark ended (crashed: SIGSEGV) without "
                              "reporting it")
    if item.status != SKIPPED:   # a 1-core machine skips it
        assert item.output.startswith("failed: the benchmark ended (crashed")
    item = bench.score_metric(lab, m, {"metrics": {m.name: {"value": "x"}}}, "")
    assert "not measured" not in item.output


def test_a_zero_to_one_metric_speaks_through_its_detail(monkeypatch):
    monkeypatch.setattr(hw, "facts", lambda: {"cores": 2, "numa_nodes": 1, "cuda_devices": 0})
    lab = labs.load(LAB01)
    m = next(m for m in lab.metrics if m.name == "line_size_found")
    rep = {"metrics": {m.name: {"value": 1, "detail": "your sweep says 64 B; hwloc says 64 B"}}}
    item = bench.score_metric(lab, m, rep, "")
    assert item.output == "your sweep says 64 B; hwloc says 64 B" and item.score == m.points
    rep["metrics"][m.name] = {"value": 0}
    assert "0 points at 0" in bench.score_metric(lab, m, rep, "").output, "no detail: the ramp"


def test_dropped_benchmark_output_is_a_note():
    runs = [bench.Run({"info": {"a": 1}}, "", dropped_bytes=0),
            bench.Run(None, "", dropped_bytes=77)]
    res = bench.BenchResult([], runs)
    assert res.info == {"a": 1} and res.notes == [
        "the benchmark's output was cut: 77 more bytes dropped"]
    assert bench.BenchResult([]).report is None and bench.BenchResult([]).info == {}


def test_one_function_decides_a_hardware_skip():
    have = {"cores": 2, "numa_nodes": 1, "cuda_devices": 0}
    lab = dataclasses.replace(labs.load(LAB01), requires={"numa_nodes": 2})
    m = labs.Metric("m", "m", 1, 0, 1, requires={"cores": 4})
    assert "NUMA" in hw.skip(lab, m, have), "the lab's needs come first"
    lab.requires = {}
    assert "needs 4 cores" in hw.skip(lab, m, have)
    assert hw.skip(lab, None, have) is None


def test_gradescope_sees_visibility_and_markdown():
    """Published tests are visible, hidden ones after the grades are published unless their
    toml says otherwise; multi-line output is fenced for Gradescope's Markdown."""
    shown = Item("01", "test", "t", 1, 0, FAILED, "boom\nline `a` ```x```")
    secret = Item("01", "test", "s", 1, 1, PASSED, "passed", hidden=True)
    later = Item("01", "test", "u", 1, 1, PASSED, "passed", visibility="after_due_date")
    d = report.results_json([shown, secret, later], 1, [Note("", "note")], True)
    assert (d["output_format"], d["test_output_format"]) == ("md", "md")
    assert [t["visibility"] for t in d["tests"]] == ["visible", "after_published",
                                                     "after_due_date"]
    assert d["tests"][0]["output"] == "boom\n\n````\nline `a` ```x```\n````"
    assert report.markdown("one line") == "one line"


def test_daily_cap_keeps_the_latest_result():
    import datetime as dt
    from grader.classtools import submission_cap
    now = dt.datetime(2026, 3, 2, 12, tzinfo=dt.timezone.utc)
    sub = lambda h, score: {"submission_time": (now - dt.timedelta(hours=h)).isoformat(),
                            "score": score, "results": {"score": score, "tests": []}}
    meta = {"previous_submissions": [sub(30, 1), sub(5, 2), sub(1, 3)]}
    assert submission_cap.over_cap(meta, 3, now) is None, "two in the last 24 hours"
    res = submission_cap.over_cap(meta, 2, now)
    assert res["score"] == 3 and "limit of 2" in res["output"]
    assert "2026-03-03 07:00 UTC" in res["output"], "when the older of the two leaves the window"
    assert submission_cap.over_cap({}, 2, now) is None


def test_a_tests_visibility_is_read_strictly():
    t = labs.read_test({"name": "t", "points": 1, "visibility": "after_due_date"}, "x")
    assert t.visibility == "after_due_date"
    with pytest.raises(labs.LabError) as e:
        labs.read_test({"name": "t", "points": 1, "visibility": "later"}, "[[tests]] 1")
    assert "'visibility' must be one of visible, hidden, after_due_date" in str(e.value)
