"""Runs a lab's Check test program in fork mode under limits and turns its XML log plus the
completion records of common/harness/mm_ck_main.c into one graded Item per test in lab.toml.

A stuck program is stopped by watching its progress, not by a limit for the whole run. In fork
mode Check's parent process forks one child per test, kills a child that outlives the test
timeout, and writes the test's result to the XML log as soon as the test ends (Check flushes its
logs after each event). So while the program is healthy the log grows at least once per test
timeout; when it has not grown for one test timeout plus STALL_MARGIN_S, the parent itself is
stuck (student code in a constructor, which runs before any test; code that stops or blocks the
parent) and the program is stopped: the tests without a result "did not run". Watching a file is
simpler and sturdier than running the tests one at a time (one program per test, each paying the
start-up) and needs nothing from Check beyond its log. The whole-run limit (every test using its
full timeout) stays as a backstop, e.g. for a program that keeps writing to the log itself. What
watching cannot shorten: tests that each run into their own timeout still cost one timeout apiece
(that is progress, and the next test may well pass)."""
from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import replace

from ..confinement import boundary, isolation, sandbox, seal
from ..rules import hostenv
from . import fatal_lines, hw
from ..rules.labs import Lab
from ..rules.results import PASSED, SKIPPED, Cause, Item

NS = "{http://check.sourceforge.net/ns}"
# Check's parent needs well under a second to kill a timed-out child and log it, and the program
# starts in milliseconds; the margin covers a machine loaded by batch grading many times over.
STALL_MARGIN_S = 10.0
STALLED = "did not run: the test program stopped making progress"
EXITED_EARLY = ("the test stopped before its end without failing (something called exit() or "
                "_exit()); Check counts that as a pass, the grader does not")
# A test worth no points (lab.toml's points = 0) is run and shown, as a metric worth none is: a
# check whose evidence the harness cannot verify itself (the student's process's own word).
NO_POINTS = "shown, worth no points"


def timeout_multiplier() -> float:
    """CK_TIMEOUT_MULTIPLIER (e.g. for sanitizer builds; at least 1), times hostenv.time_scale()
    (under a CPU emulator): what Check's per-test limit and the grader's limits are scaled by."""
    try:
        given = max(1.0, float(os.environ.get("CK_TIMEOUT_MULTIPLIER") or 1))
    except ValueError:
        given = 1.0
    return given * hostenv.time_scale()


def stall_limit_s(lab: Lab) -> float:
    """How long the test program may go without logging a test result."""
    return lab.test_timeout_s * timeout_multiplier() + STALL_MARGIN_S


def _env(run_dir: str, lab: Lab, seed: str | None, secret: bool,
         split: bool = False) -> dict[str, str]:
    """The test program's environment; split: it is the trusted harness of a split lab
    (grader/confinement/boundary.py), which does not confine itself: the student's program does."""
    env = sandbox.base_env(run_dir, CK_FORK="yes", CK_DEFAULT_TIMEOUT=f"{lab.test_timeout_s:g}",
                           CK_XML_LOG_FILE_NAME=os.path.join(run_dir, "check.xml"), **seal.ENV,
                           **({} if split else isolation.program_env()))
    for key in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "TSAN_OPTIONS", "MLMEM_SAMPLE"):
        if key in os.environ:
            env[key] = os.environ[key]
    multiplier = timeout_multiplier()
    if multiplier != 1:
        env["CK_TIMEOUT_MULTIPLIER"] = f"{multiplier:g}"
    if seed:
        env["MLMEM_SEED"] = seed
    if secret:
        env["MLMEM_HIDE_SEED"] = "1"
    return env


def _parse_xml(path: str) -> dict[str, tuple[str, str]]:
    """test id -> (Check result 'success'/'failure'/'error', message with file:line), for every
    test whose element the log holds whole. The log of a program that was stopped (its time
    limit, no progress) ends mid-way, unclosed: the tests it finished are still there."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return {}
    parser = ET.XMLPullParser(events=("end",))
    try:
        parser.feed(data)
        parser.close()
    except ET.ParseError:
        pass   # cut short: the elements before the cut were reported already
    out = {}
    for _, t in parser.read_events():
        if t.tag != f"{NS}test":
            continue
        name = t.findtext(f"{NS}id", "")
        where = t.findtext(f"{NS}fn", "")
        msg = t.findtext(f"{NS}message", "")
        out[name] = (t.get("result", "error"), f"{msg} ({where})" if where else msg)
    return out


def _item(lab: Lab, t, xml: dict, done: dict[str, seal.Mark], whole: sandbox.RunResult) -> Item:
    """Test t's item: skipped on its MM_SKIP record, passed on its sealed completion record and
    Check's success, else failed with Check's message (report.shown_output withholds a hidden
    test's from students; staff.json keeps it for the course staff) or, with a Cause, the
    grader's words on how it ended (no result, or no completion record). A test worth no points
    says so (NO_POINTS) in its output, as a metric worth none does."""
    item = Item(lab.id, "test", t.name, t.points)
    mark = done.get(t.name)
    if mark is not None and mark.skipped:
        item.status, item.output, item.lasting = SKIPPED, mark.why, True   # MM_SKIP: hardware
    elif t.name not in xml:
        item.output, item.cause = _not_reported(whole), Cause.STOPPED
    else:
        result, msg = xml[t.name]
        if result == "success" and mark is not None:
            item.status, item.score, item.output = PASSED, t.points, "passed"
        elif result == "success":
            item.output, item.cause = EXITED_EARLY, Cause.EXITED_EARLY
        else:
            item.output = msg
    if not t.points and item.status != SKIPPED:
        item.output = (f"passed ({NO_POINTS})" if item.status == PASSED
                       else f"{NO_POINTS}: {item.output}")
    return item


def _not_reported(whole: sandbox.RunResult) -> str:
    """Why a test has no result in the log: how the test program ended."""
    if whole.stalled:
        return f"{STALLED} (no test result for {whole.watch.stall_s:g} s; stopped)"
    if whole.timed_out:
        return (f"did not run: the test program reached its time limit for the whole run "
                f"({whole.limits.timeout_s:g} s) and was stopped before this test "
                "reported; the tests reported before count")
    return f"did not run: the test program ended ({whole.verdict()}) before reporting it"


def run_tests(lab: Lab, binary: str, run_name: str, seed: str | None,
              secret: bool = False) -> tuple[list[Item], str, list[str]]:
    """Runs the test program in a run folder of its own (sandbox.workdir); returns the items, a
    transcript for people (stdout+stderr, capped) and notes for results.json (tests not in
    lab.toml, a program stopped for making no progress, output dropped, forged records). A test
    passes only on its sealed completion record (grader/confinement/seal.py) and Check's success. A secret
    seed is passed but never printed."""
    limits = sandbox.Limits(timeout_s=lab.test_timeout_s * timeout_multiplier() *
                            max(1, len(lab.tests)) + 30,
                            address_space_mb=hw.address_space_mb(lab), data_mb=hw.data_mb(lab))
    channel = seal.Channel()
    student_output = ""
    if boundary.split(os.path.dirname(binary)):
        whole, transcript, xml, got, student_output = _run_split(lab, binary, run_name, seed,
                                                                 secret, limits, channel)
    else:
        with sandbox.rundir(run_name, binary) as run_dir:
            try:
                whole = sandbox.run([os.path.join(run_dir, os.path.basename(binary))], limits,
                                    cwd=run_dir, env=_env(run_dir, lab, seed, secret),
                                    watch=sandbox.Watch(os.path.join(run_dir, "check.xml"),
                                                        stall_limit_s(lab)),
                                    fds=channel.fds)
            finally:
                got = channel.received()
            xml = _parse_xml(os.path.join(run_dir, "check.xml"))
        transcript = whole.stdout + whole.stderr
    recs = seal.records(channel.key, got)
    items = [_item(lab, t, xml, recs.marks, whole) for t in lab.tests]
    fatal_lines.attach(items, {name: msg for name, (_, msg) in xml.items()}, student_output)
    notes = []
    extra = sorted(set(xml) - {t.name for t in lab.tests})
    if extra:
        notes.append("not in lab.toml (0 points): " + ", ".join(extra))
    if whole.stalled or whole.timed_out:
        notes.append(f"the test program {whole.verdict()}; {len(xml)} test(s) had reported")
    if whole.dropped_bytes:
        notes.append(f"[{whole.dropped_bytes} more bytes of output dropped]")
    if whole.removed_ipc:
        notes.append(sandbox.ipc_note(whole.removed_ipc))
    if recs.forged:
        notes.append(f"flagged for staff review: {len(recs.forged)} line(s) on the result "
                     f"channel without the grader's seal (first: {recs.forged[0]!r})")
    return items, transcript, notes


def _run_split(lab: Lab, binary: str, run_name: str, seed: str | None, secret: bool,
               limits: sandbox.Limits, channel: seal.Channel):
    """run_tests for a split lab: the trusted test program beside the student's program
    (grader/confinement/boundary.py). Returns (the test program's result, the transcript, the XML log's
    results, what came on the sealed channel, what the student's processes printed)."""
    with boundary.folders(run_name, binary) as (program, code_dir):
        run_dir = os.path.dirname(program)
        try:
            pair = boundary.run_pair(program, code_dir, limits,
                                     _env(run_dir, lab, seed, secret, split=True), channel.fds,
                                     sandbox.Watch(os.path.join(run_dir, "check.xml"),
                                                   stall_limit_s(lab)))
        finally:
            got = channel.received()
        xml = _parse_xml(os.path.join(run_dir, "check.xml"))
    return (replace(pair.trusted, removed_ipc=pair.student.removed_ipc), pair.output, xml, got,
            pair.student.stdout + pair.student.stderr)
