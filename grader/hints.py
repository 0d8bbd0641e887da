"""`make hint LAB=NN [LEVEL=k]`: prints level k of the "Hints" section of the lab's handout
(its README.md, headings "### Level k ..."), from a nudge (1) to near the answer (3)."""
from __future__ import annotations

import os
import re

from .labs import Lab


def levels(readme: str) -> list[str]:
    """The hint levels of a handout, in order ('### Level k' blocks under '## ... Hints')."""
    hints = re.split(r"^## .*Hints.*$", readme, maxsplit=1, flags=re.M)
    if len(hints) < 2:
        return []
    section = re.split(r"^## ", hints[1], maxsplit=1, flags=re.M)[0]
    return [b.strip() for b in re.split(r"^(?=### Level \d)", section, flags=re.M)
            if b.startswith("### Level")]


def show(lab: Lab, level: int) -> str:
    with open(os.path.join(lab.path, "README.md")) as f:
        found = levels(f.read())
    if not found:
        return f"lab {lab.id} has no hints yet."
    if not 1 <= level <= len(found):
        return f"lab {lab.id} has hint levels 1 to {len(found)}."
    more = (f"\n\n(more: make hint LAB={lab.id} LEVEL={level + 1})" if level < len(found)
            else "")
    return found[level - 1] + more
