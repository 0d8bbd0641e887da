"""Finds the labs in a submission as students hand them in, and returns a tree laid out like
labs/ (what the grader grades): a clone of the repository (labs/ inside), the lab folders
themselves, one wrapping folder around either (an unpacked zip), or loose files named like a
lab's editable files (an upload of just `src/*.c`). A lab's answers.md (and timelog.md) belong to
the submission as well: found in the lab's folder, or loose beside the code; they are never
compiled (only the editable files reach a build)."""
from __future__ import annotations

import os
import re
import shutil
import stat

from .labs import Lab

MAX_FILE_BYTES = 1024 * 1024   # a source file or answers.md; larger ones are refused


def refusal(path: str, rel: str) -> str | None:
    """Why a handed-in file is not taken (a link, a device or other special file, a file over
    MAX_FILE_BYTES), or None: a regular file of a sane size, or nothing there at all."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if stat.S_ISLNK(st.st_mode):
        return f"{rel}: refused: a symbolic link; hand in the file itself"
    if not stat.S_ISREG(st.st_mode):
        return f"{rel}: refused: not a regular file (a device, pipe or folder)"
    if st.st_size > MAX_FILE_BYTES:
        return (f"{rel}: refused: {st.st_size} bytes, over the {MAX_FILE_BYTES // 1024} KiB a "
                "handed-in file may have")
    return None

def link_on_the_way(root: str, rel: str) -> str | None:
    """The first folder of `rel` (a path under root, file excluded) that is a symbolic link, as a
    path relative to root, or None: a link to a folder would hand in what it points to."""
    parts = rel.split(os.sep)[:-1]
    for k in range(1, len(parts) + 1):
        if os.path.islink(os.path.join(root, *parts[:k])):
            return os.path.join(*parts[:k])
    return None


ANSWERS = "answers.md"      # labs/<lab>/answers.md: the answers to the handout's questions
TIMELOG = "timelog.md"      # labs/<lab>/timelog.md: the student's time log, if kept


def _has_labs(path: str, chosen: list[Lab]) -> bool:
    return any(os.path.isdir(os.path.join(path, lab.slug)) for lab in chosen)


def _loose(path: str, chosen: list[Lab], scratch: str) -> str | None:
    """Copies loose files (found anywhere under path, by base name) into scratch/<slug>/<rel>,
    emptied first so that no file of an earlier submission remains."""
    shutil.rmtree(scratch, ignore_errors=True)
    found: dict[str, list[str]] = {}
    for d, _, files in os.walk(path):
        for f in files:
            if refusal(os.path.join(d, f), f) is None:   # links, devices, huge files: not taken
                found.setdefault(f, []).append(os.path.join(d, f))
    copied = False
    for lab in chosen:
        for rel in lab.editable:
            hits = found.get(os.path.basename(rel), [])
            if len(hits) == 1:
                dest = os.path.join(scratch, lab.slug, rel)
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                shutil.copyfile(hits[0], dest)
                copied = True
    if copied:
        for name in (ANSWERS, TIMELOG):
            _loose_text(found.get(name, []), name, chosen, scratch)
    return scratch if copied else None


def _loose_text(hits: list[str], name: str, chosen: list[Lab], scratch: str):
    """A loose answers.md or timelog.md goes to the lab it is for: the only lab graded, or the
    one its first heading names ('# Lab 03 ...')."""
    for path in hits:
        lab = chosen[0] if len(chosen) == 1 and len(hits) == 1 else None
        if lab is None:
            with open(path, errors="replace") as f:
                m = re.match(r"\s*#\s*Lab\s*(\d+)", f.read(200), re.I)
            lab = next((c for c in chosen if m and c.id == m.group(1).zfill(2)), None)
        if lab and os.path.isdir(os.path.join(scratch, lab.slug)):
            shutil.copyfile(path, os.path.join(scratch, lab.slug, name))


def answers(tree: str, lab: Lab) -> str | None:
    """The path of the lab's answers.md in a resolved submission tree, or None."""
    path = os.path.join(tree, lab.slug, ANSWERS)
    return path if os.path.isfile(path) else None


def resolve(path: str, chosen: list[Lab], scratch: str) -> str | None:
    """A folder laid out like labs/ holding the submission's work for the chosen labs, or None
    if none of it is there. `scratch` (created if needed) receives loose files."""
    for cand in (path, os.path.join(path, "labs")):
        if cand != path and os.path.islink(cand):
            continue   # a link to a folder (the reference's?) is not the student's work
        if _has_labs(cand, chosen):
            return cand
    entries = [e for e in os.listdir(path) if not e.startswith(".")] if os.path.isdir(path) else []
    one = os.path.join(path, entries[0]) if len(entries) == 1 else ""
    if one and os.path.isdir(one) and not os.path.islink(one):
        inner = resolve(one, chosen, scratch)
        if inner:
            return inner
    return _loose(path, chosen, scratch) if os.path.isdir(path) else None
