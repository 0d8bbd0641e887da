"""A test program stopped at its limit keeps what it reported: Check's XML log is then cut off
mid-way (unclosed), and the tests it finished, with their sealed completion records, count as
they were; only the rest are "did not run", saying the limit stopped them. (Lab 08's exhaustive
tests under emulation once lost every passed test this way.)"""
import dataclasses
import os

import pytest

from grader.grading import build, checkrun
from grader.rules import labs
from grader.rules.results import PASSED

NS = "http://check.sourceforge.net/ns"
CUT_LOG = (f'<?xml version="1.0"?>\n<testsuites xmlns="{NS}">\n  <suite>\n    <title>x</title>\n'
           '    <test result="success"><fn>check_a.c:3</fn><id>test_one</id>'
           '<message>Passed</message></test>\n'
           '    <test result="failure"><fn>check_a.c:9</fn><id>test_two</id>'
           '<message>x == 3</message></test>\n'
           '    <test result="succ')


def test_a_cut_log_keeps_the_tests_it_holds_whole(tmp_path):
    path = tmp_path / "check.xml"
    path.write_text(CUT_LOG)
    assert checkrun._parse_xml(str(path)) == {"test_one": ("success", "Passed (check_a.c:3)"),
                                              "test_two": ("failure", "x == 3 (check_a.c:9)")}
    path.write_text("<?xml")
    assert checkrun._parse_xml(str(path)) == {}


@pytest.mark.slow
@pytest.mark.lab("03")
def test_a_program_stopped_at_its_time_limit_keeps_its_passed_tests(make_variant, monkeypatch):
    """Lab 03's reference with tv_unravel hanging (called by one of the last suite's tests
    only): the whole run is cut to a few seconds (each test's own timeout is long), so the
    program is killed inside that test, after the suites before it reported."""
    slug = "lab03-tensor-strides"
    hang = "int tv_unravel(const tv_t *v, int64_t linear, int64_t *index)\n{\n"
    sub = make_variant(slug, [{"file": "src/view.c", "old": "#include <string.h>\n",
                               "new": "#include <string.h>\n#include <unistd.h>\n"},
                              {"file": "src/view.c", "old": hang,
                               "new": hang + "    for (;;) pause();\n"}])
    lab = dataclasses.replace(labs.load(slug), test_timeout_s=120)
    built = build.build(lab, sub, tag="killed-log")
    assert built.ok, build.first_errors(built.log)
    real_run = checkrun.sandbox.run

    def short_run(cmd, limits, *a, **k):
        return real_run(cmd, dataclasses.replace(limits, timeout_s=8), *a, **k)
    monkeypatch.setattr(checkrun.sandbox, "run", short_run)
    items, _, notes = checkrun.run_tests(lab, os.path.join(built.out_dir, "check_lab"),
                                         "killed-log", None)
    passed = [i for i in items if i.status == PASSED]
    stopped = [i for i in items if "time limit for the whole run (8 s)" in i.output]
    assert passed and stopped and len(passed) + len(stopped) == len(items), \
        [(i.name, i.status, i.output) for i in items]
    assert "test_unravel_row_major" in {i.name for i in stopped}
    assert any("timed out after 8 s" in n for n in notes), notes
