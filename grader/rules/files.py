"""Reading a file that may not be there: the grader's probes of /proc, /sys and cgroups, build
stamps, solution and skeleton sources. One place, so every reader treats a missing or unreadable
file, and bytes that are not UTF-8, the same way."""
from __future__ import annotations


def read_text(path: str) -> str:
    """The text of path (undecodable bytes replaced), or '' when it cannot be read: missing, a
    folder, no permission."""
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""
