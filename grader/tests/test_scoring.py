"""Unit tests of the grader's pure parts: ramps, lab.toml checks, report formats."""
import json

import pytest

from grader.confinement import seal
from grader.grading import bench, checkrun, hw
from grader.rules import labs
from grader.reports import report
from grader.rules.results import FAILED, PASSED, SKIPPED, Item, Note


def metric(zero, full, points=10):
    return labs.Metric(name="m", title="m", points=points, zero=zero, full=full, unit="x")


@pytest.mark.parametrize("value,expect", [(1.0, 0), (1.5, 0), (2.0, 5), (2.5, 10), (9, 10), (-3, 0)])
def test_ramp_higher_is_better(value, expect):
    assert metric(1.5, 2.5).score(value) == pytest.approx(expect)


@pytest.mark.parametrize("value,expect", [(100, 0), (50, 10), (75, 5), (10, 10)])
def test_ramp_lower_is_better(value, expect):
    assert metric(100, 50).score(value) == pytest.approx(expect)


def fixture_lab(tmp_path, monkeypatch, toml: str) -> str:
    """A lab folder lab99-x with the given lab.toml, in a LABS_DIR of its own; its slug."""
    (tmp_path / "lab99-x").mkdir()
    (tmp_path / "lab99-x" / "lab.toml").write_text(toml)
    monkeypatch.setattr(labs, "LABS_DIR", str(tmp_path))
    return "lab99-x"


def test_metric_thresholds_must_differ(tmp_path, monkeypatch):
    slug = fixture_lab(tmp_path, monkeypatch, '[lab]\ntitle="x"\neditable=[]\n[[metrics]]\n'
                       'name="m"\npoints=1\nzero=1\nfull=1\n')
    with pytest.raises(labs.LabError, match="must differ"):
        labs.load(slug)


def test_missing_key_is_named(tmp_path, monkeypatch):
    slug = fixture_lab(tmp_path, monkeypatch, '[lab]\neditable=[]\n')
    with pytest.raises(labs.LabError, match="missing 'title'"):
        labs.load(slug)


def test_unknown_lab_lists_the_labs():
    with pytest.raises(labs.LabError) as e:
        labs.select("97")
    assert "lab01-cache-lines" in str(e.value)


def test_parse_report_takes_exactly_one_json_object():
    assert bench.parse_report('{"metrics": {"a": {"value": 2}}}\n')["metrics"]["a"]["value"] == 2
    two = '{"metrics": {"a": {"value": 1}}}\n{"metrics": {"a": {"value": 2}}}\n'
    assert bench.parse_report(two) is None
    assert bench.parse_report("no json here") is None
    assert bench.parse_report("[1, 2]") is None


def test_score_metric_outcomes():
    lab = labs.load("lab01-cache-lines")
    m = metric(1.5, 2.5)
    rep = {"metrics": {"m": {"value": 2.0, "detail": "d"}}}
    item = bench.score_metric(lab, m, rep, "")
    assert item.score == pytest.approx(5) and item.status == "partial" and "2x" in item.output
    item = bench.score_metric(lab, m, {"metrics": {"m": {"skipped": "no GPU"}}}, "")
    assert item.status == SKIPPED and item.output == "no GPU"
    item = bench.score_metric(lab, m, {"metrics": {"m": {"error": "boom"}}}, "")
    assert item.status == FAILED and "boom" in item.output and item.score == 0
    item = bench.score_metric(lab, m, None, "it crashed")
    assert item.status == FAILED and "it crashed" in item.output


def test_a_metric_worth_no_points_is_shown_not_scored():
    lab = labs.load("lab01-cache-lines")
    item = bench.score_metric(lab, metric(2.0, 1.1, points=0),
                              {"metrics": {"m": {"value": 2.0, "detail": "d"}}}, "")
    assert item.score == 0 and item.max_score == 0 and item.value == 2.0
    assert "2x (shown, worth no points; the goal is 1.1x or less); d" == item.output


def test_a_test_worth_no_points_is_shown_not_scored():
    lab = labs.load("lab01-cache-lines")
    t = labs.Test("t", 0)
    done = {"t": seal.Mark()}
    ok = checkrun._item(lab, t, {"t": ("success", "")}, done, None)
    bad = checkrun._item(lab, t, {"t": ("failure", "p is not pinned (c.c:9)")}, done, None)
    assert (ok.status, ok.score, ok.max_score) == (PASSED, 0, 0)
    assert ok.output == "passed (shown, worth no points)"
    assert bad.status == FAILED and bad.output == "shown, worth no points: p is not pinned (c.c:9)"
    assert report.item_line(ok).endswith("0/0  passed (shown, worth no points)")
    assert report.item_line(bad).endswith("0/0  shown, worth no points: p is not pinned (c.c:9)")
    d = report.results_json([ok, bad], 1, [], True)
    assert d["score"] == 0 and d["extra_data"]["max_score"] == 0
    assert [(e["max_score"], e["status"]) for e in d["tests"]] == [(0, "passed"), (0, "failed")]


def test_hardware_needs():
    have = {"cores": 2, "numa_nodes": 1, "cuda_devices": 0, "cuda_status": "driver too old"}
    assert hw.unmet({"cores": 2}, have) is None
    assert "needs 4 cores" in hw.unmet({"cores": 4}, have)
    assert "NUMA" in hw.unmet({"numa_nodes": 2}, have)
    assert "driver too old" in hw.unmet({"cuda": True}, have)


# The keys Gradescope's autograder specification defines (results.json's top level, a test).
GRADESCOPE_TOP = {"score", "execution_time", "output", "output_format", "test_output_format",
                  "test_name_format", "visibility", "stdout_visibility", "extra_data", "tests",
                  "leaderboard"}
GRADESCOPE_TEST = {"score", "max_score", "status", "name", "name_format", "number", "output",
                   "output_format", "tags", "visibility", "extra_data"}
OURS_PER_TEST = {"name", "score", "max_score", "status", "output", "visibility", "extra_data"}


def test_results_json_schema_and_skips():
    items = [Item("01", "test", "t1", 2, 2, PASSED, "passed"),
             Item("01", "test", "t2", 3, 0, FAILED, "boom"),
             Item("01", "metric", "m", 5, 0, SKIPPED, "needs 2 cores")]
    d = report.results_json(items, 1.25, [Note("", "out")], True)
    json.dumps(d)
    assert d["score"] == 2 and d["extra_data"]["max_score"] == 10, "a skip: no gain, not hidden"
    assert d["extra_data"]["skipped_points"] == 5
    assert d["extra_data"]["not_measured"] == [{"name": "lab01 / performance: m", "points": 5,
                                                "why": "needs 2 cores", "again": True}]
    assert d["output"] == "out"
    assert set(d) <= GRADESCOPE_TOP, set(d) - GRADESCOPE_TOP
    for t in d["tests"]:   # Gradescope's keys only; ours in the entry's extra_data
        assert OURS_PER_TEST <= set(t) <= GRADESCOPE_TEST, set(t) - GRADESCOPE_TEST
        assert set(t["extra_data"]) - {"title", "skipped"} == {"lab", "cause", "kind", "item"}
        assert t["name"].endswith(t["extra_data"]["item"])
        assert t["extra_data"]["kind"] in ("test", "metric")
        assert t["status"] in ("passed", "failed"), "a status on every test"
    skipped = d["tests"][2]
    assert skipped["max_score"] == 5 and skipped["score"] == 0 and report.skipped(skipped)
    assert skipped["status"] == "failed" and not report.skipped(d["tests"][1])
    assert skipped["output"].startswith("SKIPPED (not yet measured): needs 2 cores")


def test_junit_marks_failures_and_skips(tmp_path):
    items = [Item("01", "test", "t1", 2, 2, PASSED), Item("01", "test", "t2", 3, 0, FAILED, "x"),
             Item("01", "metric", "m", 5, 0, SKIPPED, "why")]
    path = tmp_path / "j.xml"
    report.write_junit(str(path), items)
    text = path.read_text()
    assert 'failures="1"' in text and 'skipped="1"' in text and "<skipped" in text


def test_bench_not_run_when_nothing_is_measurable(monkeypatch):
    monkeypatch.setattr(hw, "facts", lambda: {"cores": 1, "numa_nodes": 1, "cuda_devices": 0})
    lab = labs.load("lab01-cache-lines")
    res = bench.run_bench(lab, "/nonexistent/bench", "unused", reference="/nonexistent/ref")
    items = res.items
    assert res.report is None and len(items) == len(lab.metrics)
    assert all(i.status == SKIPPED and "needs 2 cores" in i.output for i in items)


def test_cpu_quota_caps_cores(tmp_path):
    (tmp_path / "cpu.max").write_text("50000 100000\n")
    assert hw.cpu_quota(str(tmp_path)) == 0.5
    have = hw._limit_to_quota({"cores": 2}, 0.5)
    why = hw.unmet({"cores": 2}, have)
    assert have["cores"] == 0 and "quota of 0.5 CPUs" in why
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert hw.cpu_quota(str(tmp_path)) is None


def timed(zero=1.5, full=2.5, ref_zero=0.3, ref_full=0.8):
    m = metric(zero, full)
    m.vs_reference = {"zero": ref_zero, "full": ref_full}
    return m


def runs(*values):
    """bench.Run objects whose report gives metric 'm' each value (a dict: the entry itself)."""
    return [bench.Run({"metrics": {"m": v if isinstance(v, dict) else {"value": v}}}, "none")
            for v in values]


def test_vs_reference_scores_the_median_fraction():
    lab = labs.load("lab01-cache-lines")
    m = timed()
    # Absolute figures far below lab.toml's ramp: the machine is slow, the ratio to the
    # reference run beside them is what counts.
    item = bench.score_vs_reference(lab, m, runs(0.9, 1.1), runs(1.0, 1.0))
    assert item.status == PASSED and item.score == 10
    assert "1.00 of the reference" in item.output and "scored against the reference" in item.output
    item = bench.score_vs_reference(lab, m, runs(0.3, 0.25), runs(1.0, 1.0))
    assert item.score == 0 and item.status == FAILED
    item = bench.score_vs_reference(lab, m, runs(0.55, 0.55), runs(1.0, 1.0))
    assert item.score == pytest.approx(5) and item.status == "partial"


def test_vs_reference_floor_scores_nothing_below_it():
    """A floor (lab 06's mmap reader no faster than pread): zero at or below it, whatever the
    fraction of a reference slowed beside it; above it, the fraction's ramp as before."""
    lab = labs.load("lab01-cache-lines")
    m = timed(zero=1.1, full=1.4, ref_zero=0.6, ref_full=0.78)
    item = bench.score_vs_reference(lab, m, runs(1.0, 1.05), runs(1.3, 1.4))
    assert item.score > 8                  # 0.76 of the reference: most of the ramp
    m.vs_reference["floor"] = 1.1
    item = bench.score_vs_reference(lab, m, runs(1.0, 1.05), runs(1.3, 1.4))
    assert item.score == 0 and item.status == FAILED
    assert "no better than 1.1x" in item.output and "of the reference" in item.output
    item = bench.score_vs_reference(lab, m, runs(1.9, 2.0), runs(2.0, 2.0))
    assert item.score == pytest.approx(10)
    low = timed(zero=100, full=50)
    low.vs_reference["floor"] = 100
    assert low.below_floor(120) and low.below_floor(100) and not low.below_floor(99)


def test_vs_reference_lower_is_better_inverts_the_fraction():
    lab = labs.load("lab01-cache-lines")
    m = timed(zero=100, full=50)
    item = bench.score_vs_reference(lab, m, runs(20, 20), runs(10, 10))
    assert item.score == pytest.approx(4)          # 10/20 = 0.5 of the reference


def test_vs_reference_skips_and_failures():
    lab = labs.load("lab01-cache-lines")
    m = timed()
    gate = {"skipped": "this run could not show false sharing"}
    item = bench.score_vs_reference(lab, m, runs(2.0, 2.0), runs(gate, gate))
    assert item.status == SKIPPED and item.output.startswith("the reference's run: this run")
    item = bench.score_vs_reference(lab, m, runs(2.0, 0.1, 0.1), runs(gate, 2.0, 2.0))
    assert item.score == 0, "the pairs the gate let through are the ones that count"
    assert "median of 2 paired runs" in item.output
    item = bench.score_vs_reference(lab, m, runs(2.0, {"error": "slot NULL"}), runs(2.0, 2.0))
    assert item.status == FAILED and "slot NULL" in item.output
    item = bench.score_vs_reference(lab, m, runs(2.5, 2.5), [bench.Run(None, "it crashed")] * 2)
    assert item.score == 10 and "provisional" in item.output and "it crashed" in item.output


def test_one_surviving_pair_is_not_scored(monkeypatch):
    """A metric measured in one pair only (the other's reference run skipped it) asks for more
    pairs; still one after MAX_ROUNDS, it is skipped with the reasons, never scored from it."""
    import dataclasses
    lab = dataclasses.replace(labs.load("lab01-cache-lines"), metrics=[timed()], requires={})
    gate = {"skipped": "a neighbour's burst"}
    assert bench._pairs_short(lab, runs(2.0, 2.0), runs(gate, 2.0))
    assert not bench._pairs_short(lab, runs(2.0, 2.0), runs(gate, gate))
    assert not bench._pairs_short(lab, runs(2.0, 2.0), runs(2.0, 2.0))
    item = bench.score_vs_reference(lab, lab.metrics[0], runs(2.0, 2.0), runs(gate, 2.0))
    assert item.status == SKIPPED and "1 of 2 paired runs, needs 2" in item.output
    assert "a neighbour's burst" in item.output
    refs = iter([gate, 2.0] + [gate] * bench.MAX_ROUNDS)
    calls = []

    def fake_run(lab, binary, run_name, series=True):
        calls.append(binary)
        return runs(next(refs) if binary == "ref" else 2.0)[0]
    monkeypatch.setattr(bench, "run_once", fake_run)
    monkeypatch.setattr(hw, "skip", lambda lab, m=None: None)
    res = bench.run_bench(lab, "mine", "r", reference="ref")
    assert len(calls) == 2 * bench.MAX_ROUNDS, "re-measured up to MAX_ROUNDS pairs"
    assert res.items[0].status == SKIPPED and "1 of 5 paired runs" in res.items[0].output


def test_a_time_limit_the_reference_reaches_too_is_the_machines(monkeypatch):
    """Your benchmark stopped at its time limit fails the metrics, unless the reference's, run
    once beside it, is stopped too or takes most of the limit: then the machine is too busy, and
    they are skipped."""
    import dataclasses
    lab = dataclasses.replace(labs.load("lab01-cache-lines"), metrics=[timed()], requires={})
    stopped = bench.Run(None, "the benchmark did not finish within its time limit (9 s) and was "
                        "stopped", timed_out=True)
    limit = bench.timeout_s(lab)
    slow = dataclasses.replace(runs(2.0)[0], wall_s=0.9 * limit)
    for ref_run, want in ((stopped, SKIPPED), (slow, SKIPPED), (runs(2.0)[0], FAILED)):
        calls = []
        ref_stops = want == SKIPPED

        def fake_run(lab, binary, run_name, series=True):
            calls.append(binary)
            return stopped if binary == "mine" else ref_run
        monkeypatch.setattr(bench, "run_once", fake_run)
        monkeypatch.setattr(hw, "skip", lambda lab, m=None: None)
        for m in (timed(), metric(1.5, 2.5)):  # paired with the reference's runs, or not
            calls.clear()
            one = dataclasses.replace(lab, metrics=[m])
            item = bench.run_bench(one, "mine", "r", reference="ref").items[0]
            assert calls == ["mine", "ref"], "one run of each: a hang is not repeated"
            assert item.status == want and "time limit" in item.output, item
            assert ("too busy" in item.output) == ref_stops
        calls.clear()  # no timed metric to pair: the reference is found only after the limit
        one = dataclasses.replace(lab, metrics=[metric(1.5, 2.5)])
        item = bench.run_bench(one, "mine", "r", None, lambda: "ref").items[0]
        assert calls == ["mine", "ref"] and item.status == want


def test_vs_reference_is_checked(tmp_path, monkeypatch):
    slug = fixture_lab(tmp_path, monkeypatch, '[lab]\ntitle="x"\neditable=[]\n[[metrics]]\n'
                       'name="m"\npoints=1\nzero=1\nfull=2\nvs_reference={zero=0.9, full=0.5}\n')
    with pytest.raises(labs.LabError, match="vs_reference needs 0 <= zero < full"):
        labs.load(slug)


def test_leaderboard_lists_measured_metrics_with_their_direction():
    lab = labs.load("lab02-effective-latency")
    items = [Item("02", "metric", "prediction_error", 18, 18, PASSED, "", 0.1),
             Item("02", "metric", "knees_found", 12, 0, SKIPPED, "no caches")]
    for i in items:
        i.higher_is_better = next(m for m in lab.metrics if m.name == i.name).higher_is_better
    board = report.leaderboard(items)
    assert board == [{"name": "lab02 prediction_error", "value": 0.1, "order": "asc"}]


def test_pairs_that_disagree_ask_for_more_rounds(monkeypatch):
    """Two pairs a neighbour's job split apart (fractions 1.0 and 0.7) ask for more pairs; the
    median of five, with one disturbed, gives the reference full marks against itself."""
    import dataclasses
    lab = labs.load("lab01-cache-lines")
    m = timed()
    one = dataclasses.replace(lab, metrics=[m])
    assert not bench._pairs_disagree(one, runs(1.0, 0.95), runs(1.0, 1.0))
    assert bench._pairs_disagree(one, runs(1.0, 0.7), runs(1.0, 1.0))
    # far apart, but every pair scores the same (zero below 0.3, full above 0.8): no more rounds
    assert not bench._pairs_disagree(one, runs(0.1, 0.25), runs(1.0, 1.0))
    assert not bench._pairs_disagree(one, runs(0.9, 1.3), runs(1.0, 1.0))
    assert bench._pairs_disagree(one, runs(0.1, 0.5), runs(1.0, 1.0))
    # close together but on both sides of full marks (0.8): one more pair decides
    assert bench._pairs_disagree(one, runs(0.74, 0.83), runs(1.0, 1.0))
    assert not bench._pairs_disagree(one, runs(0.70, 0.76), runs(1.0, 1.0))
    item = bench.score_vs_reference(lab, m, runs(1.0, 0.7, 1.0, 0.98, 1.01), runs(*[1.0] * 5))
    assert item.score == 10 and "median of 5 paired runs" in item.output


def test_pairs_under_the_floor_agree():
    """Pairs whose figures are all no better than the floor score zero whatever their fractions:
    they agree, and ask for no more rounds (the floor read where the ramp is)."""
    import dataclasses
    m = timed(zero=1.1, full=1.4, ref_zero=0.6, ref_full=0.78)
    one = dataclasses.replace(labs.load("lab01-cache-lines"), metrics=[m])
    mine, refs = runs(1.0, 1.05), runs(1.3, 2.0)    # 0.77 and 0.53 of the reference
    assert bench._pairs_disagree(one, mine, refs)
    m.vs_reference["floor"] = 1.1
    assert not bench._pairs_disagree(one, mine, refs)
    assert m.score_vs_reference(0.77, 1.0) == 0 and m.score_vs_reference(0.77, 1.2) > 8


def test_only_the_drawn_run_measures_its_series(monkeypatch):
    """Paired rounds: the series is drawn from the submission's first run, so that run alone is
    asked for it; the reference's and later rounds' runs get MLMEM_BENCH_SERIES=0."""
    import dataclasses
    lab = dataclasses.replace(labs.load("lab01-cache-lines"), metrics=[timed()], requires={})
    ref_values = iter([1.0, 2.0] + [1.0] * bench.MAX_ROUNDS)  # pairs disagree: every round runs
    calls = []

    def fake_run(lab, binary, run_name, series=True):
        calls.append((binary, series))
        return runs(next(ref_values) if binary == "ref" else 1.0)[0]
    monkeypatch.setattr(bench, "run_once", fake_run)
    monkeypatch.setattr(hw, "skip", lambda lab, m=None: None)
    res = bench.run_bench(lab, "mine", "r", reference="ref")
    assert [b for b, s in calls if s] == ["mine"] and calls[0] == ("mine", True)
    assert len(calls) == 2 * bench.MAX_ROUNDS and res.report is not None


@pytest.mark.parametrize("first", [{"error": "slot NULL"}, None])
def test_a_first_run_that_fails_every_timed_metric_is_scored_alone(monkeypatch, first):
    """A submission whose first run fails every timed metric (an entry with an error, or no
    report: the skeleton's) scores the same whatever the reference measures: the reference is
    neither made nor run, and the submission runs once. One that measures runs the pairs."""
    import dataclasses
    lab = dataclasses.replace(labs.load("lab01-cache-lines"), metrics=[timed()], requires={})
    monkeypatch.setattr(hw, "skip", lambda lab, m=None: None)
    for mine, want in ((1.0, ["mine", "ref", "ref", "mine"]), (first, ["mine"])):
        calls, made = [], []
        fail = bench.Run(None, "it crashed")

        def fake_run(lab, binary, run_name, series=True):
            calls.append(binary)
            return fail if binary == "mine" and mine is None else \
                runs(mine if binary == "mine" else 1.0)[0]
        monkeypatch.setattr(bench, "run_once", fake_run)
        res = bench.run_bench(lab, "mine", "r", reference=lambda: made.append(1) or "ref")
        assert calls == want and len(made) == (len(want) > 1)
    paired = bench.score_vs_reference(lab, lab.metrics[0], [fake_run(lab, "mine", "r")] * 2,
                                      runs(1.0, 1.0))   # what the pairs would have scored
    assert res.items[0].status == paired.status == FAILED
    assert res.items[0].output == paired.output


def test_a_reference_that_cannot_be_made_leaves_the_first_run_alone(monkeypatch):
    """A reference that is not at hand or does not build (the function gives None): the
    submission's first run is scored on the ramps, and nothing else runs."""
    import dataclasses
    lab = dataclasses.replace(labs.load("lab01-cache-lines"), metrics=[timed()], requires={})
    monkeypatch.setattr(hw, "skip", lambda lab, m=None: None)
    calls = []
    monkeypatch.setattr(bench, "run_once", lambda lab, binary, run_name, series=True:
                        calls.append((binary, series)) or runs(2.5)[0])
    res = bench.run_bench(lab, "mine", "r", reference=lambda: None)
    assert calls == [("mine", True)] and len(res.runs) == 1
    assert res.items[0].score == 10 and "provisional" in res.items[0].output
