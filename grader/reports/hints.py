"""`make hint LAB=NN [LEVEL=k]`: prints level k of the lab's hints, from a nudge (1) to near the
answer (3). The levels live in labs/<lab>/hints.md, one "### Level k ..." heading each, so that
reading the handout top to bottom never shows level 3."""
from __future__ import annotations

import os
import re

from ..rules.labs import Lab

HINTS_FILE = "hints.md"


def _blocks(text: str) -> list[str]:
    """The '### Level k' blocks of text, each up to the next '### Level' or a '#'/'##' heading."""
    parts = re.split(r"^(?=### Level \d)", text, flags=re.M)
    return [re.split(r"^#{1,2} ", b, maxsplit=1, flags=re.M)[0].strip()
            for b in parts if b.startswith("### Level")]


def file_levels(text: str) -> list[str]:
    """The hint levels of a hints.md, in order (every '### Level k' block of the file)."""
    return _blocks(text)


def source(lab: Lab) -> tuple[str, list[str]]:
    """(the hints file, relative to the repository, and its levels; [] if it is missing)."""
    path = os.path.join(lab.path, HINTS_FILE)
    try:
        with open(path) as f:
            return f"labs/{lab.slug}/{HINTS_FILE}", file_levels(f.read())
    except OSError:
        return f"labs/{lab.slug}/{HINTS_FILE}", []


def show(lab: Lab, level: int) -> str:
    where, found = source(lab)
    if not found:
        return f"lab {lab.id} has no hints yet (no '### Level k' headings in {where})."
    if not 1 <= level <= len(found):
        return f"lab {lab.id} has hint levels 1 to {len(found)} (in {where})."
    head = f"lab {lab.id}, hint level {level} of {len(found)} (from {where})"
    more = (f"\n\n(more: make hint LAB={lab.id} LEVEL={level + 1})" if level < len(found)
            else "")
    return head + "\n\n" + found[level - 1] + more
