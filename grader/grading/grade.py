"""Grades a submission lab by lab: build, unit tests, benchmark; prints the score table as it
goes and rewrites results.json after every step, so an interrupted run still leaves a result."""
from __future__ import annotations

import functools
import json
import os
import time

from . import bench, build, checkrun, hw
from ..rules import hidden, variants
from ..reports import html_report, report
from ..confinement import isolation
from ..rules.labs import Lab
from ..rules.results import FAILED, SKIPPED, Cause, Item, Note

GRADE_DIR = build.GRADE_DIR


def table_path(results_dir: str, lab_id: str) -> str:
    """Where a grading run leaves a lab's score table as it printed it (`make handin` takes it)."""
    return os.path.join(results_dir, f"lab{lab_id}.txt")


class Grading:
    """One grading run. seed: the tests' seed (None: fresh); secret: pass it without printing it;
    hidden_dir: instructor-only tests (grader/rules/hidden.py); parts: "all", "tests" (no benchmark)
    or "metrics" (benchmark only), so batch grading can run tests in parallel and benchmarks
    one at a time; staff: also write staff.json (report.staff_json: hidden tests' own messages,
    for the course staff's pages; never where students grade)."""

    def __init__(self, submission: str, seed: str | None, out=print, results_dir: str = GRADE_DIR,
                 secret: bool = False, hidden_dir: str | None = None, parts: str = "all",
                 staff: bool = False):
        self.submission = submission
        self.results_dir = results_dir
        self.seed, self.secret = seed, secret
        self.hidden_dir, self.parts, self.staff = hidden_dir, parts, staff
        self.items: list[Item] = []
        self.notes: list[Note] = []
        self.info: dict[str, dict] = {}    # lab id -> its benchmark's info figures
        self.seeds: dict[str, str] = {}    # lab id -> the seed line its tests printed
        self.series: dict[str, dict] = {}  # lab id -> its benchmark's series (for report.html)
        self.no_hint: set[str] = set()     # labs that lost points to a compiler crash
        self.staged: dict[str, dict] = {}  # lab id -> {submission, stage} (report._labs)
        self.start = time.monotonic()
        self.out = out

    def save(self, done: bool):
        elapsed = time.monotonic() - self.start
        report.write_results(os.path.join(self.results_dir, "results.json"), self.items, elapsed,
                             self.notes, done, self.info, self.seeds, self.staged)
        if self.staff:
            report.write_text(os.path.join(self.results_dir, report.STAFF_FILE),
                              json.dumps(report.staff_json(self.items), indent=2) + "\n")
        if done:
            report.write_junit(os.path.join(self.results_dir, "junit.xml"), self.items)

    def record(self, lab: Lab, items: list[Item], notes: list[str] = (), show: bool = True):
        """The one place items enter the results, tests and metrics alike: each gets lab.toml's
        word on it (a metric's title and direction, a test's hidden flag), is printed (show),
        replaces an earlier item of the same name, and results.json is rewritten. notes: lines
        for the score table and results.json, each kept with the lab's id (a Note)."""
        hidden_tests = {t.name for t in lab.tests if t.hidden}
        visibility = {t.name: t.visibility for t in lab.tests}
        metrics = {m.name: m for m in lab.metrics}
        for i in items:
            i.hidden = i.kind == "test" and i.name in hidden_tests
            i.visibility = visibility.get(i.name, "") if i.kind == "test" else ""
            m = metrics.get(i.name) if i.kind == "metric" else None
            if m is not None:
                i.title = m.title if m.title != m.name else ""
                i.higher_is_better = m.higher_is_better
            if show:
                self.out(report.item_line(i))
        for note in notes:
            self.out(f"  note: {note}")
            self.notes.append(Note(lab.id, note))
        new = {(i.lab, i.kind, i.name) for i in items}
        self.items = [i for i in self.items if (i.lab, i.kind, i.name) not in new] + items
        self.save(False)

    def _kinds(self, lab: Lab) -> list[tuple[str, list]]:
        """The (kind, lab.toml entries) this run grades: a tests pass has only the tests, a
        metrics pass only the metrics, so that a batch's two passes of a lab that cannot be run
        add up to the lab's items once."""
        return [(k, xs) for k, xs, part in (("test", lab.tests, "tests"),
                                            ("metric", lab.metrics, "metrics"))
                if self.parts in ("all", part)]

    def _run_note(self, lab: Lab, text: str):
        """A note on the whole lab (its build): kept by one pass only, the tests pass where a
        batch splits the grading (the metrics pass says the same)."""
        if self.parts != "metrics" or not lab.tests:
            self.notes.append(Note(lab.id, text))

    def _not_built(self, lab: Lab, built: build.Built) -> list[Item]:
        why = ("no submission for this lab" if built.no_submission else
               "does not compile:\n" + build.first_errors(built.log))
        cause = Cause.NO_SUBMISSION if built.no_submission else Cause.NOT_BUILT
        return [Item(lab.id, kind, x.name, x.points, output=why, cause=cause)
                for kind, xs in self._kinds(lab) for x in xs]

    def _compiler_crashed(self, lab: Lab, built: build.Built) -> list[Item]:
        """The compiler itself crashed building the lab: a compiler bug, never the student's
        error. In the lab's own files its items are skipped (the course's problem, not measured);
        in the student's files they fail, as code that does not build does, with no hint."""
        self.no_hint.add(lab.id)
        where = "your files" if built.crash_in_student else "the lab's own files"
        why = (f"the compiler crashed compiling {where} (an internal compiler error: a bug in "
               f"the compiler, not an error in your code):\n{built.compiler_crash}")
        tell = ("Not your fault. Please report it to the course staff with the line above and "
                "the output of `cc --version` and `uname -m`.")
        if built.crash_in_student:
            tell += " Meanwhile, writing the construct on that line another way may avoid it."
        self.out("  BUILD FAILED: " + why.replace("\n", "\n    ") + "\n    " + tell)
        status = FAILED if built.crash_in_student else SKIPPED
        items = [Item(lab.id, kind, x.name, x.points, status=status, output=why + "\n" + tell,
                      cause=Cause.COMPILER_CRASH)
                 for kind, xs in self._kinds(lab) for x in xs]
        self._run_note(lab, f"{why}\n{tell}")
        self.record(lab, items, show=False)
        return items

    def grade_lab(self, lab: Lab) -> list[Item]:
        lab = hidden.extend(lab, self.hidden_dir)
        self.out(f"\nlab {lab.id}  {lab.title}  ({self.submission}/{lab.slug})")
        built = build.build(lab, self.submission)
        self.staged[lab.id] = {k: os.path.relpath(p, build.ROOT) for k, p in (
            ("submission", self.submission),
            ("stage", os.path.join(os.path.dirname(built.out_dir), "stage")))}
        if built.missing and not built.no_submission:
            self.out(f"  note: not in the submission, the skeleton's used: {', '.join(built.missing)}")
        if built.compiler_crash:
            return self._compiler_crashed(lab, built)
        if not built.ok:
            self.out("  BUILD FAILED " + ("" if built.no_submission else
                                          "\n    " + build.first_errors(built.log).replace("\n", "\n    ")))
            items = self._not_built(lab, built)
            self._run_note(lab, f"build failed\n{build.first_errors(built.log)}")
            self.record(lab, items, show=False)
            return items
        run_base = f"{build.submission_tag(self.submission)}-{lab.slug}"
        return self._tests(lab, built, run_base) + self._metrics(lab, built, run_base)

    def _tests(self, lab: Lab, built: build.Built, run_base: str) -> list[Item]:
        if self.parts == "metrics":
            return []
        tests, transcript, notes = checkrun.run_tests(lab, os.path.join(built.out_dir,
                                                                        "check_lab"),
                                                      run_base + "-tests", self.seed, self.secret)
        seed_line = next((l for l in transcript.splitlines() if l.startswith("mlmem: seed")), "")
        if seed_line:
            self.out("  " + seed_line)
            self.seeds[lab.id] = seed_line
        cuda = hw.cuda_note(lab)
        if cuda:
            self.out("  " + cuda)
        self.record(lab, tests, notes)
        return tests

    def _reference_bench(self, lab: Lab, built: build.Built, paired_only: bool = True
                         ) -> str | None:
        """The reference solution's benchmark, built from the same pristine lab, when the
        reference is at hand (variants.reference_root()) and the lab has timed metrics that
        this machine can measure (lab 12's GPU metrics need no reference where there is none);
        bench.run_bench calls it only when a pair is to run or a run reaches its time limit.
        paired_only=False: for any lab (to tell a busy machine from a hang, bench.run_bench)."""
        root = variants.reference_root()
        if (paired_only and not bench.paired_here(lab)) or \
                not os.path.isdir(os.path.join(root, lab.slug)):
            return None
        if os.path.realpath(self.submission) == os.path.realpath(root):
            return os.path.join(built.out_dir, "bench")
        ref = build.build(lab, root, tag="reference", private=True)
        if not ref.ok:
            self.notes.append(Note(lab.id, "the reference does not build; timed metrics "
                                   f"scored on thresholds\n{build.first_errors(ref.log)}"))
            return None
        return os.path.join(ref.out_dir, "bench")

    def _metrics(self, lab: Lab, built: build.Built, run_base: str) -> list[Item]:
        if self.parts == "tests":
            return []
        res = bench.run_bench(lab, os.path.join(built.out_dir, "bench"), run_base + "-bench",
                              functools.partial(self._reference_bench, lab, built),
                              lambda: self._reference_bench(lab, built, paired_only=False))
        if res.info:
            self.info[lab.id] = res.info
        self.series[lab.id] = (res.report or {}).get("series")
        self.record(lab, res.items, res.notes)
        return res.items

    def run(self, labs: list[Lab]) -> list[Item]:
        iso = isolation.current()
        hw.facts()  # the machine is probed (hwinfo built and run) here, before any lab, not mid-way
        if not iso.for_credit:
            self.out(f"mlmem: NOT FOR CREDIT: student code runs unconfined here ({iso.lacking}); "
                     "course staff grade as root or where bubblewrap works, on the CPU's own "
                     "architecture (docs/grading.md)")
            self.notes.append(Note("", f"not for credit: no isolation ({iso.lacking})"))
        elif not iso.namespaces:
            self.notes.append(Note("", f"isolation: {iso.describe()}"))
        for lab in labs:
            mine = self.grade_lab(lab)
            hint = lab.id not in self.no_hint
            self.out(report.lab_summary(lab.id, mine, self.info.get(lab.id), hint=hint))
            table = report.lab_table(lab.id, [i for i in self.items if i.lab == lab.id],
                                     self.info.get(lab.id), hint=hint)
            report.write_text(table_path(self.results_dir, lab.id), table + "\n")
        self.save(True)
        self.out("\nTOTAL " + report.total_phrase(
            *report.totals(self.items), ": hardware this machine lacks, or effects this run "
            "could not show; see the SKIP lines and grade again to measure them"))
        self.out(f"results: {os.path.relpath(os.path.join(self.results_dir, 'results.json'))}, "
                 f"{os.path.relpath(os.path.join(self.results_dir, 'junit.xml'))}")
        self.out(html_report.after_grading(self.results_dir, self.series))
        return self.items
