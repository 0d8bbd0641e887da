"""`make handin [LAB=NN] [DEST=dir] [NOGRADE=1]`: the archive a student hands in for one lab,
<slug>-handin.tar.gz in the repository's root (or DEST). It holds, under one folder named like
the lab (so `make grade SUBMISSION=<unpacked folder>` grades it as it is):

    <slug>/<each editable file of lab.toml>   the code, as in labs/<slug>/
    <slug>/answers.md                         the answers to the handout's questions (required)
    <slug>/timelog.md                         the student's time log, if they keep one
    <slug>/grade.txt, <slug>/grade.json       the latest `make grade` of exactly these files
    <slug>/HANDIN.md                          what is in it: files and checksums, the grade's
                                              total or why there is none, the time log or a note

The grade: if the latest `make grade` graded this lab from labs/ with the code as it is now, its
summary goes in; otherwise this runs `make grade LAB=NN` first, so the archive's score is that of
its own code (NOGRADE=1: no grading; HANDIN.md then says so). Without LAB: the lab built
(`make labNN`) or graded last, and it says so. Never build output: only the files above."""
from __future__ import annotations

import argparse
import datetime
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tarfile

from ..grading import build, grade
from ..rules import labs
from ..reports import report
from ..grading.build import GRADE_DIR
from ..rules.files import read_text
from ..rules.labs import ROOT, Lab, LabError
from ..rules.submission import ANSWERS, TIMELOG


class HandinError(Exception):
    """What the student must fix before an archive can be made."""


def answered(text: str) -> tuple[int, int]:
    """(questions answered, questions) in an answers.md: a '## Q...' section counts as answered
    when it holds text besides the '_Your answer:_' placeholder."""
    parts = re.split(r"^## +Q.*$", text, flags=re.M)[1:]
    done = sum(1 for p in parts
               if re.sub(r"_Your answer:_|\s", "", re.split(r"^#{1,2} ", p, flags=re.M)[0]))
    return done, len(parts)


# ---- which lab: the one built or graded last --------------------------------------------------

def _newest(paths: list[str]) -> float:
    return max((os.path.getmtime(p) for p in paths if os.path.exists(p)), default=0.0)


def _built(slug: str) -> tuple[float, str]:
    """When `make labNN` last ran for this lab, with any flags, and those flags ('SAN=asan'): the
    newest stamp (`made`, which the Makefile writes even when nothing needs rebuilding) or test
    program among its build folders (build.made_dirs)."""
    best = (0.0, "")
    for d in build.made_dirs(slug):
        stamp = os.path.join(d, "made")
        when = _newest([stamp, os.path.join(d, "check_lab")])
        if when > best[0]:
            best = (when, read_text(stamp).strip())
    return best


def last_touched(graded: bool = True) -> tuple[Lab, str] | None:
    """The lab built (`make labNN`) or, with graded, graded (`make grade`, from labs/) last, and
    how ("make lab03 at 2025-01-31 14:02"). `make handin` takes either; `make grade` without LAB
    only the lab built last (a grade of every lab must not make lab 08 the one)."""
    best = None
    for slug in labs.slugs():
        built, flags = _built(slug)
        found = [(built, f"make lab{slug[3:5]}" + (f" {flags}" if flags else ""))]
        if graded:
            done = _newest([os.path.join(d, "out", "check_lab")
                            for d in build.graded_dirs(slug, "labs")])
            found.append((done, f"make grade LAB={slug[3:5]}"))
        for when, how in found:
            if when and (best is None or when > best[0]):
                best = (when, slug, how)
    if not best:
        return None
    when = datetime.datetime.fromtimestamp(best[0]).strftime("%Y-%m-%d %H:%M")
    return labs.load(best[1]), f"{best[2]} at {when}"


def choose(lab_id: str | None) -> tuple[Lab, str]:
    """The lab to hand in and a line saying why it is that one."""
    if lab_id:
        lab = labs.select(lab_id)[0]
        return lab, f"lab {lab.id} ({lab.slug})"
    found = last_touched()
    if not found:
        raise HandinError("which lab? Nothing built or graded yet: make handin LAB=NN")
    lab, how = found
    return lab, (f"no LAB given: lab {lab.id} ({lab.slug}), the lab you built or graded last "
                 f"({how}); another one: make handin LAB=NN")


# ---- the grade of exactly these files ---------------------------------------------------------

def _same(a: str, b: str) -> bool:
    try:
        with open(a, "rb") as fa, open(b, "rb") as fb:
            return fa.read() == fb.read()
    except OSError:
        return False


def latest_grade(lab: Lab, grade_dir: str = GRADE_DIR) -> tuple[dict | None, str]:
    """(the lab's part of the latest results.json, '') if the latest `make grade` graded this lab
    from labs/ with the editable files exactly as they are now; else (None, why not)."""
    results = os.path.join(grade_dir, "results.json")
    try:
        with open(results) as f:
            res = json.load(f)
    except (OSError, ValueError):
        return None, "you have not run `make grade` yet"
    mine = [t for t in res.get("tests", []) if report.entry_lab(t) == lab.id]
    if not mine:
        return None, f"the latest `make grade` did not grade lab {lab.id}"
    staged = (report.labs_data(res).get(lab.id) or {}).get("staged")
    if not staged or (os.path.realpath(os.path.join(ROOT, staged["submission"])) !=
                      os.path.realpath(os.path.join(ROOT, "labs"))):
        return None, f"the latest grade of lab {lab.id} was not of your files in labs/"
    stage = os.path.join(ROOT, staged["stage"])
    changed = [rel for rel in lab.editable
               if not _same(os.path.join(stage, rel), os.path.join(lab.path, rel))]
    if changed:
        return None, f"you changed {', '.join(changed)} since the latest `make grade`"
    if not res.get("extra_data", {}).get("complete", True):
        return None, "the latest `make grade` was interrupted"
    return {**res, "tests": mine}, ""


def summary_text(lab: Lab, when: str, grade_dir: str = GRADE_DIR) -> str:
    """The grade as `make grade` printed it: the lab's score table, which the grading run left
    beside results.json (grade.table_path)."""
    table = read_text(grade.table_path(grade_dir, lab.id)).rstrip("\n")
    return f"lab {lab.id}  {lab.title}: make grade LAB={lab.id}, {when}\n\n{table}\n"


def total_line(lab: Lab, res: dict) -> str:
    """'TOTAL 60/90', as `make grade` says it, from the lab's figures in results.json
    (extra_data.labs)."""
    mine = report.labs_data(res).get(lab.id) or {}
    return "TOTAL " + report.total_phrase(mine.get("score", 0), mine.get("max_score", 0),
                                          mine.get("skipped_points", 0))


def run_grade(lab: Lab) -> int:
    """`make grade LAB=NN` of labs/, printing as it goes."""
    print(f"handin: grading lab {lab.id} first (make grade LAB={lab.id}), so the archive holds "
          "the score of its own code; NOGRADE=1 skips this", flush=True)
    return subprocess.run([sys.executable, "-m", "grader", "grade", "--lab", lab.id,
                           "--submission", "labs"], cwd=ROOT).returncode


# ---- the archive ------------------------------------------------------------------------------

def collect(lab: Lab) -> dict[str, bytes]:
    """The student's files: rel path in the lab -> content. Raises HandinError for what is
    missing."""
    files = {}
    for rel in lab.editable:
        path = os.path.join(lab.path, rel)
        if not os.path.isfile(path):
            raise HandinError(f"labs/{lab.slug}/{rel} is missing: it is the code you hand in "
                              f"(lab.toml lists it); `git checkout labs/{lab.slug}/{rel}` "
                              "brings the skeleton back")
        with open(path, "rb") as f:
            files[rel] = f.read()
    path = os.path.join(lab.path, ANSWERS)
    if not os.path.isfile(path):
        raise HandinError(f"labs/{lab.slug}/{ANSWERS} is missing: your answers to the handout's "
                          f"questions are part of the submission; `git checkout "
                          f"labs/{lab.slug}/{ANSWERS}` brings back the file with the questions")
    with open(path, "rb") as f:
        files[ANSWERS] = f.read()
    log = os.path.join(lab.path, TIMELOG)
    if os.path.isfile(log):
        with open(log, "rb") as f:
            files[TIMELOG] = f.read()
    return files


def _commit() -> str:
    """The checkout's commit (`git describe --always --dirty`). The checkout is named a safe
    directory for this one command: in a container, the student's clone mounted from the host
    belongs to their uid, not root's, and git would otherwise refuse it ("dubious ownership")."""
    try:
        proc = subprocess.run(["git", "-c", f"safe.directory={ROOT}", "describe", "--always",
                               "--dirty"], cwd=ROOT, capture_output=True, text=True)
    except OSError as e:
        return f"(no git: {e.strerror})"
    return proc.stdout.strip() if proc.returncode == 0 else "(not a git repository)"


def manifest(lab: Lab, files: dict[str, bytes], grade_line: str, now: str) -> str:
    done, total = answered(files[ANSWERS].decode(errors="replace"))
    lines = [f"# Lab {lab.id} — hand-in", "",
             f"- lab: {lab.slug} ({lab.title})",
             f"- made: {now} by `make handin LAB={lab.id}`, repository at {_commit()}",
             f"- answers: {done} of {total} questions answered in {ANSWERS}",
             "- time log: " + (f"{TIMELOG}" if TIMELOG in files else
                               f"none (no labs/{lab.slug}/{TIMELOG}: you kept no time log)"),
             f"- grade: {grade_line}", "", "| file | bytes | sha256 |", "|---|---|---|"]
    lines += [f"| {rel} | {len(data)} | {hashlib.sha256(data).hexdigest()[:16]} |"
              for rel, data in sorted(files.items())]
    return "\n".join(lines) + "\n"


def write(dest: str, slug: str, files: dict[str, bytes]):
    """A .tar.gz of files (rel -> bytes) under the folder slug/, owned by nobody in particular."""
    os.makedirs(os.path.dirname(os.path.abspath(dest)), exist_ok=True)
    tmp = dest + ".tmp"
    with tarfile.open(tmp, "w:gz") as tar:
        for rel, data in sorted(files.items()):
            info = tarfile.TarInfo(f"{slug}/{rel}")
            info.size, info.mode, info.mtime = len(data), 0o644, int(datetime.datetime.now()
                                                                     .timestamp())
            tar.addfile(info, io.BytesIO(data))
    os.replace(tmp, dest)


def make(lab_id: str | None, dest_dir: str | None, grade: bool = True, out=print) -> str:
    """Makes the archive; returns its path. Raises HandinError or LabError."""
    lab, why = choose(lab_id)
    out(f"handin: {why}")
    files = collect(lab)
    res, not_graded = latest_grade(lab)
    if res is None and grade:
        out(f"handin: no grade of your current code ({not_graded})")
        if run_grade(lab) != 0:
            out("handin: the grader stopped with an error; the archive says so")
        res, not_graded = latest_grade(lab)
    elif res is None:
        not_graded += "; NOGRADE=1: not graded"
    now = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z").strip()
    if res is not None:
        when = datetime.datetime.fromtimestamp(os.path.getmtime(
            os.path.join(GRADE_DIR, "results.json"))).strftime("%Y-%m-%d %H:%M")
        files["grade.txt"] = summary_text(lab, when).encode()
        files["grade.json"] = (json.dumps(res, indent=2) + "\n").encode()
        grade_line = f"{total_line(lab, res)} (grade.txt, grade.json: {when})"
    else:
        grade_line = (f"none: {not_graded}; run `make grade LAB={lab.id}` and then "
                      f"`make handin LAB={lab.id}` again")
    files["HANDIN.md"] = manifest(lab, files, grade_line, now).encode()
    dest = os.path.join(os.path.abspath(dest_dir or ROOT), f"{lab.slug}-handin.tar.gz")
    write(dest, lab.slug, files)
    done, total = answered(files[ANSWERS].decode(errors="replace"))
    out(f"handin: {os.path.relpath(dest)}: {len(files)} files in {lab.slug}/ "
        f"({', '.join(sorted(files))})")
    out(f"  answers: {done} of {total} questions answered" +
        ("" if done == total else f" (labs/{lab.slug}/{ANSWERS})"))
    if TIMELOG not in files:
        out(f"  no time log: keep one in labs/{lab.slug}/{TIMELOG} if your course asks for it")
    out(f"  grade: {grade_line}")
    return dest


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="grader.classtools.handin", description="the archive to hand in")
    p.add_argument("--lab", help="lab number (default: the lab built or graded last)")
    p.add_argument("--dest", help="folder for <lab>-handin.tar.gz (default: the repository)")
    p.add_argument("--no-grade", action="store_true",
                   help="do not run `make grade` when there is no grade of the current code")
    a = p.parse_args(argv)
    try:
        make(a.lab, a.dest, grade=not a.no_grade)
    except (HandinError, LabError) as e:
        print(f"mlmem: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
