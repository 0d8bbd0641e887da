"""Variants of a reference solution, made by exact text patches: the naive versions that
calibration and `make test` measure (solutions/<lab>/variants.toml), and the fault-injection
submissions of the grader's own tests. A patch whose `old` text is not found exactly once is an
error, so a variant cannot silently stop testing what it claims to."""
from __future__ import annotations

import os
import shutil

from .labs import ROOT, LabError, tomllib

SOLUTIONS = os.path.join(ROOT, "solutions")


def reference_root() -> str:
    """Where the reference solutions the grader scores timed metrics against live: the folder
    MLMEM_REFERENCE names (the Gradescope zip ships them beside the student tree), else
    solutions/ of this repository (absent from a student's released tree)."""
    return os.environ.get("MLMEM_REFERENCE") or SOLUTIONS


def apply(path: str, old: str, new: str):
    with open(path) as f:
        text = f.read()
    if text.count(old) != 1:
        raise LabError(f"{path}: patch text found {text.count(old)} times, expected once:\n{old}")
    with open(path, "w") as f:
        f.write(text.replace(old, new))


def make(slug: str, dest_root: str, patches: list[dict], base: str = SOLUTIONS) -> str:
    """Copies base/<slug> to dest_root/<slug>, applies patches ({file, old, new} or {file,
    append} or {file, text}: replace whole file) and returns dest_root (a submission tree)."""
    dest = os.path.join(dest_root, slug)
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(os.path.join(base, slug), dest)
    for p in patches:
        path = os.path.join(dest, p["file"])
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if "text" in p:
            with open(path, "w") as f:
                f.write(p["text"])
        elif "append" in p:
            with open(path, "a") as f:
                f.write(p["append"])
        else:
            apply(path, p["old"], p["new"])
    return dest_root


def declared(slug: str) -> dict[str, dict]:
    """The variants solutions/<slug>/variants.toml declares: name -> {description, patch: [...]}."""
    path = os.path.join(SOLUTIONS, slug, "variants.toml")
    if not os.path.isfile(path):
        return {}
    with open(path, "rb") as f:
        return tomllib.load(f)
