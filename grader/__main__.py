"""Command line of the grader: `python3 -m grader grade|plots|calibrate|hint ...` (called by
`make grade`, `make plots`, `make calibrate`, `make hint`)."""
from __future__ import annotations

import argparse
import os
import sys

from . import labs, report
from .grade import GRADE_DIR, Grading


def cmd_grade(a) -> int:
    if not os.path.isdir(a.submission):
        print(f"mlmem: submission folder '{a.submission}' does not exist", file=sys.stderr)
        return 2
    chosen = labs.select(a.lab)
    g = Grading(a.submission, a.seed or os.environ.get("MLMEM_SEED"),
                results_dir=a.out or GRADE_DIR)
    items = g.run(chosen)
    score, most, _ = report.totals(items)
    return 1 if a.strict and score < most else 0


def cmd_plots(a) -> int:
    from . import plots
    return plots.main(labs.select(a.lab), a.submission)


def cmd_calibrate(a) -> int:
    from . import calibrate
    for lab in labs.select(a.lab):
        calibrate.run(lab, a.runs)
    return 0


def cmd_hint(a) -> int:
    from . import hints
    print(hints.show(labs.select(a.lab)[0], a.level))
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="grader", description="mlmem autograder")
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("grade", help="grade a submission")
    g.add_argument("--lab", help="lab number (default: all)")
    g.add_argument("--submission", default="labs", help="tree laid out like labs/")
    g.add_argument("--seed", help="seed for the randomized tests (default: fresh)")
    g.add_argument("--strict", action="store_true", help="exit 1 unless the score is full")
    g.add_argument("--out", help="folder for results.json and junit.xml (default build/grade)")
    g.set_defaults(fn=cmd_grade)
    pl = sub.add_parser("plots", help="plot your benchmark's series")
    pl.add_argument("--lab")
    pl.add_argument("--submission", default="labs")
    pl.set_defaults(fn=cmd_plots)
    c = sub.add_parser("calibrate", help="measure reference and naive variants N times")
    c.add_argument("--lab")
    c.add_argument("--runs", type=int, default=20)
    c.set_defaults(fn=cmd_calibrate)
    h = sub.add_parser("hint", help="progressive hints for a lab")
    h.add_argument("--lab", required=True)
    h.add_argument("--level", type=int, default=1)
    h.set_defaults(fn=cmd_hint)
    a = p.parse_args(argv)
    try:
        return a.fn(a)
    except labs.LabError as e:
        print(f"mlmem: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
