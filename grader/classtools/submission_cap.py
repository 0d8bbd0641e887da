"""Gradescope's optional daily submission cap (`make gradescope DAILY_CAP=n`): run_autograder
calls `python3 -m grader.classtools.submission_cap AUTOGRADER_ROOT N` before grading. When the student has
already made N submissions in the last 24 hours (Gradescope's submission_metadata.json lists
them), it writes the latest earlier submission's results again, with a note saying when the next
submission will be graded, and exits 0: nothing is graded. Otherwise it exits 1 and grading goes
on. Grading takes minutes of a shared machine; a cap keeps a class from queueing behind one
student's loop of resubmissions."""
from __future__ import annotations

import datetime as dt
import json
import os
import sys

WINDOW = dt.timedelta(hours=24)


def _when(text: str) -> dt.datetime | None:
    try:
        t = dt.datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return None
    return t if t.tzinfo else t.replace(tzinfo=dt.timezone.utc)


def over_cap(meta: dict, cap: int, now: dt.datetime) -> dict | None:
    """The results.json to write when this submission is over the cap, else None. `meta`:
    Gradescope's submission metadata (previous_submissions: submission_time, score, results)."""
    prev = [(t, p) for p in meta.get("previous_submissions") or []
            if (t := _when(p.get("submission_time"))) is not None]
    recent = sorted((t, p) for t, p in prev if now - t < WINDOW)
    if cap <= 0 or len(recent) < cap:
        return None
    latest = max(prev, key=lambda tp: tp[0])[1]
    results = dict(latest.get("results") or {"score": latest.get("score", 0), "tests": []})
    again = (recent[-cap][0] + WINDOW).astimezone(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    note = (f"Not graded: this is over the course's limit of {cap} graded submissions in 24 "
            f"hours. Your latest graded result stands; the next submission is graded from "
            f"{again}.")
    results["output"] = note + ("\n\n" + results["output"] if results.get("output") else "")
    return results


def main(argv: list[str]) -> int:
    root, cap = argv[0], int(argv[1])
    try:
        with open(os.path.join(root, "submission_metadata.json")) as f:
            meta = json.load(f)
    except (OSError, ValueError):
        return 1
    res = over_cap(meta, cap, dt.datetime.now(dt.timezone.utc))
    if res is None:
        return 1
    os.makedirs(os.path.join(root, "results"), exist_ok=True)
    with open(os.path.join(root, "results", "results.json"), "w") as f:
        json.dump(res, f, indent=2)
    print(res["output"].splitlines()[0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
