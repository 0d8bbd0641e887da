"""`make hint LAB=NN [LEVEL=k]`: prints level k of the lab's hints, from a nudge (1) to near the
answer (3). The levels live in labs/<lab>/hints.md, one "### Level k ..." heading each. A lab whose
hints have not moved out of its handout yet is read from README.md's "Hints" section instead
(the fallback goes once every lab has a hints.md)."""
from __future__ import annotations

import os
import re

from .labs import Lab

HINTS_FILE = "hints.md"


def _blocks(text: str) -> list[str]:
    """The '### Level k' blocks of text, each up to the next '### Level' or a '#'/'##' heading."""
    parts = re.split(r"^(?=### Level \d)", text, flags=re.M)
    return [re.split(r"^#{1,2} ", b, maxsplit=1, flags=re.M)[0].strip()
            for b in parts if b.startswith("### Level")]


def levels(readme: str) -> list[str]:
    """The hint levels of a handout, in order ('### Level k' blocks under '## ... Hints')."""
    hints = re.split(r"^## .*Hints.*$", readme, maxsplit=1, flags=re.M)
    if len(hints) < 2:
        return []
    return _blocks(re.split(r"^## ", hints[1], maxsplit=1, flags=re.M)[0])


def file_levels(text: str) -> list[str]:
    """The hint levels of a hints.md, in order (every '### Level k' block of the file)."""
    return _blocks(text)


def source(lab: Lab) -> tuple[str, list[str]]:
    """(the file the hints come from, relative to the repository, and its levels): hints.md if
    the lab has one, else the handout's Hints section."""
    rel = f"labs/{lab.slug}/"
    path = os.path.join(lab.path, HINTS_FILE)
    if os.path.isfile(path):
        with open(path) as f:
            return rel + HINTS_FILE, file_levels(f.read())
    try:
        with open(os.path.join(lab.path, "README.md")) as f:
            return rel + "README.md", levels(f.read())
    except OSError:
        return rel + HINTS_FILE, []


def show(lab: Lab, level: int) -> str:
    where, found = source(lab)
    if not found:
        return f"lab {lab.id} has no hints yet (no '### Level k' headings in {where})."
    if not 1 <= level <= len(found):
        return f"lab {lab.id} has hint levels 1 to {len(found)} (in {where})."
    head = f"lab {lab.id}, hint level {level} of {len(found)} (from {where})"
    if not where.endswith(HINTS_FILE):
        head += f"; this lab's hints have not moved to labs/{lab.slug}/{HINTS_FILE} yet"
    more = (f"\n\n(more: make hint LAB={lab.id} LEVEL={level + 1})" if level < len(found)
            else "")
    return head + "\n\n" + found[level - 1] + more
