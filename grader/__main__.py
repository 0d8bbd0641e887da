"""Command line of the grader: `python3 -m grader grade|plots|calibrate|hint|make-vars ...`
(called by `make grade`, `make plots`, `make calibrate`, `make hint`, `make labNN`). A configuration error
(grader/rules/config.py: a course file, a folder or a setting it cannot use) exits with status 2 and
its message on stderr."""
from __future__ import annotations

import argparse
import os
import signal
import sys

from .grading import build
from .classtools import handin
from .rules import labs, settings, submission
from .reports import report
from .rules.config import ConfigError
from .grading.grade import GRADE_DIR, Grading


def _folder(path: str | None, what: str) -> str | None:
    """path, which must be a folder where given; raises ConfigError naming what it is for."""
    if path and not os.path.isdir(path):
        raise ConfigError(f"{what} folder '{path}' does not exist")
    return path


def grade_labs(lab_id: str | None, out=print) -> list[labs.Lab]:
    """The labs `grade --lab` names: a number, 'all' (or none: every lab), or 'last' (what a
    student's `make grade` without LAB passes): the lab built last with `make labNN`, said so;
    every lab, said so, when none is built yet."""
    if lab_id == "all":
        return labs.select(None)
    if lab_id != "last":
        return labs.select(lab_id)
    found = handin.last_touched(graded=False)
    if not found:
        out("mlmem: grading every lab: you have built none yet (`make labNN` builds one; "
            "`make grade` then grades that one, `make grade LAB=NN` any one)")
        return labs.select(None)
    lab, how = found
    out(f"mlmem: grading lab {lab.id}, the lab you built last ({how}); "
        "`make grade LAB=all` for every lab, `make grade LAB=NN` for another")
    return [lab]


def cmd_grade(a) -> int:
    _folder(a.submission, "submission")
    env = settings.current()
    a.hidden = _folder(a.hidden or env.hidden_tests, "hidden-tests")
    chosen = grade_labs(a.lab)
    a.submission = submission.resolve(a.submission, chosen, build.hold_dir(
        os.path.join(GRADE_DIR, "loose"), "files")) or a.submission
    secret = env.staff_seed
    g = Grading(a.submission, secret or a.seed or env.seed,
                results_dir=a.out or GRADE_DIR, secret=bool(secret),
                hidden_dir=a.hidden, parts=a.parts, staff=a.staff)
    items = g.run(chosen)
    score, most, unmeasured = report.totals(items)
    return 1 if a.strict and score < most - unmeasured else 0


def cmd_batch(a) -> int:
    from .classtools import batch, slurm
    from .confinement import isolation
    _folder(a.folder, "submissions")
    iso = isolation.current()
    if not iso.for_credit:
        raise ConfigError(f"batch grading refused: student code would run unconfined ({iso.lacking}); "
                          "run it as root, or install bubblewrap where user namespaces work")
    extra = ["--hidden", a.hidden] if a.hidden else []
    if a.engine == "local":
        batch.run(a.folder, labs.select(a.lab), a.out, a.jobs, a.timeout, extra, fresh=a.fresh,
                  seed=a.seed)
        return 0
    p = batch.plan(a.folder, labs.select(a.lab), a.out, a.timeout, extra, a.fresh, a.seed)
    slurm.run(p, a.slurm_args.split(), a.wait)
    return 0


def cmd_collect(a) -> int:
    """`make batch-collect`: a Slurm batch's missing passes submitted again, then merged."""
    from .classtools import batch, slurm
    slurm.collect(batch.load_plan(a.out), a.slurm_args.split())
    return 0


def cmd_gradebook(a) -> int:
    """`make gradebook`: the batch's summary as Canvas and Moodle CSVs and a JSON."""
    from .classtools import gradebook
    return gradebook.main(a.out, a.roster, a.late_penalty)


def cmd_regrade(a) -> int:
    """`make regrade`: one student's lab graded again and merged into the batch."""
    from .classtools import regrade
    regrade.regrade(a.out, a.student, a.lab, a.roster)
    return 0


def cmd_merge(a) -> int:
    """`grader merge OUT`: the summary of a batch's passes, whichever engine ran them."""
    from .classtools import batch
    batch.merge(a.out)
    return 0


def cmd_release(a) -> int:
    from .classtools import release
    return release.run(os.path.abspath(a.dest))


def cmd_gradescope(a) -> int:
    from .classtools import package
    _folder(a.hidden, "hidden-tests")
    name = f"autograder-lab{labs.select(a.lab)[0].id}.zip" if a.lab else "autograder.zip"
    path = package.build(a.dest or os.path.join("build", "gradescope", name), a.lab, a.hidden,
                         a.secret_seed, a.daily_cap)
    print(f"Gradescope autograder: {os.path.relpath(path)} (upload it as a zip-file autograder; "
          "give it 2 or more CPUs for the performance metrics: docs/instructor-guide.md)")
    return 0


def cmd_plots(a) -> int:
    from .reports import plots
    return plots.main(labs.select(a.lab), a.submission)


def cmd_calibrate(a) -> int:
    from .grading import calibrate
    from .rules import thresholds
    dest = None if a.dry_run else (a.write or thresholds.path())
    for lab in labs.select(a.lab):
        calibrate.run(lab, a.runs, a.margin, dest)
    if dest:
        print(f"\nthe grader now uses {os.path.relpath(dest)} in place of lab.toml's thresholds "
              "(delete it to go back)")
    return 0


def cmd_hint(a) -> int:
    from .reports import hints
    print(hints.show(labs.select(a.lab)[0], a.level))
    return 0


def cmd_make_vars(a) -> int:
    """What `make labNN` passes to common/lab-build.mk from the lab's lab.toml: one VAR=value a
    line (Lab.make_vars), for the Makefile to pass on as they are."""
    print("\n".join(labs.select(a.lab)[0].make_vars()))
    return 0


def _stop(signum, _frame):
    """SIGTERM (batch grading's time limit, Gradescope, Ctrl-C's cousins): unwind, so that the
    sandbox kills what the student's program started, and the partial results stay."""
    raise SystemExit(128 + signum)


def main(argv=None) -> int:
    signal.signal(signal.SIGTERM, _stop)
    p = argparse.ArgumentParser(prog="grader", description="mlmem autograder")
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("grade", help="grade a submission")
    g.add_argument("--lab", help="lab number, 'all' (the default) or 'last': the lab built last "
                   "with `make labNN` (every lab if none is)")
    g.add_argument("--submission", default="labs", help="tree laid out like labs/")
    g.add_argument("--seed", help="seed for the randomized tests (default: fresh)")
    g.add_argument("--strict", action="store_true", help="exit 1 unless every measured item has full marks")
    g.add_argument("--out", help="folder for results.json and junit.xml (default build/grade)")
    g.add_argument("--hidden", help="folder of instructor-only tests (see grader/rules/hidden.py)")
    g.add_argument("--parts", choices=["all", "tests", "metrics"], default="all",
                   help="grade only the unit tests or only the benchmark (batch grading)")
    g.add_argument("--staff", action="store_true",
                   help="also write staff.json: hidden tests' own messages (course staff only)")
    g.set_defaults(fn=cmd_grade)
    b = sub.add_parser("batch", help="grade a folder of submissions into one summary")
    b.add_argument("folder", help="one sub-folder per student")
    b.add_argument("--lab", help="lab number, several (03,09) or all (the default)")
    b.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) // 2),
                   help="submissions whose unit tests run at once (benchmarks: one at a time)")
    b.add_argument("--timeout", type=float, default=1800, help="seconds per pass per submission")
    b.add_argument("--hidden", help="folder of instructor-only tests")
    b.add_argument("--out", default=os.path.join("build", "batch"), help="output folder")
    b.add_argument("--fresh", action="store_true",
                   help="start over in an output folder that holds another batch")
    b.add_argument("--seed", help="the class seed: each student's tests get a seed derived from "
                                  "it and their folder's name (default: the folder's batch's, "
                                  "else fresh; recorded in plan.json and summary.csv)")
    b.add_argument("--engine", choices=["local", "slurm"], default="local",
                   help="local: this machine; slurm: an array job and an exclusive job")
    b.add_argument("--no-wait", dest="wait", action="store_false",
                   help="slurm: return once the jobs are queued (then: batch-collect)")
    b.add_argument("--slurm-args", default="", help="more sbatch options, e.g. '-p cpu'")
    b.set_defaults(fn=cmd_batch)
    co = sub.add_parser("collect", help="a Slurm batch: submit what is missing again, merge")
    co.add_argument("--out", default=os.path.join("build", "batch"))
    co.add_argument("--slurm-args", default="")
    co.set_defaults(fn=cmd_collect)
    gb = sub.add_parser("gradebook", help="a batch's grades for Canvas and Moodle (CSV, JSON)")
    gb.add_argument("--out", default=os.path.join("build", "batch"), help="the batch's folder")
    gb.add_argument("--roster", required=True, help="CSV: id, name, folder, late_days")
    gb.add_argument("--late-penalty", type=float, default=10.0,
                    help="percent of a lab's points each late day costs (default 10)")
    gb.set_defaults(fn=cmd_gradebook)
    rg = sub.add_parser("regrade", help="one student's lab again, merged into the batch")
    rg.add_argument("--out", default=os.path.join("build", "batch"), help="the batch's folder")
    rg.add_argument("--student", required=True, help="the roster's id (or the folder's name)")
    rg.add_argument("--lab", required=True)
    rg.add_argument("--roster", help="CSV: id, name, folder, late_days (the gradebook again)")
    rg.set_defaults(fn=cmd_regrade)
    mg = sub.add_parser("merge", help="summary.csv/json and results.json of a batch's passes")
    mg.add_argument("out", help="the batch's output folder (with plan.json)")
    mg.set_defaults(fn=cmd_merge)
    r = sub.add_parser("release", help="export and verify the student tree (no solutions)")
    r.add_argument("--dest", default=os.path.join("build", "release", "mlmem"))
    r.set_defaults(fn=cmd_release)
    gs = sub.add_parser("gradescope", help="Gradescope autograder zip")
    gs.add_argument("--lab", help="grade only this lab (default: all)")
    gs.add_argument("--hidden", help="folder of instructor-only tests to include")
    gs.add_argument("--secret-seed", help="seed for the randomized tests, never shown")
    gs.add_argument("--daily-cap", type=int, help="graded submissions per student in 24 hours "
                    "(over it, the latest result stands; default: no cap)")
    gs.add_argument("--dest", help="zip to write (default build/gradescope/autograder*.zip)")
    gs.set_defaults(fn=cmd_gradescope)
    pl = sub.add_parser("plots", help="plot your benchmark's series")
    pl.add_argument("--lab")
    pl.add_argument("--submission", default="labs")
    pl.set_defaults(fn=cmd_plots)
    c = sub.add_parser("calibrate", help="measure reference and naive variants N times")
    c.add_argument("--lab")
    c.add_argument("--runs", type=int, default=20)
    c.add_argument("--margin", type=float, default=0.15,
                   help="how far inside the measured ranges the thresholds sit (default 0.15)")
    c.add_argument("--write", help="thresholds file to write (default: thresholds.toml)")
    c.add_argument("--dry-run", action="store_true", help="measure and print; write nothing")
    c.set_defaults(fn=cmd_calibrate)
    h = sub.add_parser("hint", help="progressive hints for a lab")
    h.add_argument("--lab", required=True)
    h.add_argument("--level", type=int, default=1)
    h.set_defaults(fn=cmd_hint)
    mv = sub.add_parser("make-vars", help="what a lab's build needs from lab.toml, as make "
                        "variables (make labNN)")
    mv.add_argument("--lab", required=True)
    mv.set_defaults(fn=cmd_make_vars)
    a = p.parse_args(argv)
    try:
        settings.current(warn=lambda line: print(line, file=sys.stderr))  # a bad value: stop now
        return a.fn(a)
    except ConfigError as e:
        print(f"mlmem: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
