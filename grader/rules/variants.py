"""Variants of a reference solution, made by exact text patches: the naive versions that
calibration and `make test` measure (solutions/<lab>/variants.toml), and the fault-injection
submissions of the grader's own tests. A patch whose `old` text is not found exactly once is an
error, so a variant cannot silently stop testing what it claims to."""
from __future__ import annotations

import os
import shutil

from . import config, labs, settings
from .labs import ROOT, LabError

SOLUTIONS = os.path.join(ROOT, "solutions")


def reference_root() -> str:
    """Where the reference solutions the grader scores timed metrics against live: the folder
    MLMEM_REFERENCE names (the Gradescope zip ships them beside the student tree), else
    solutions/ of this repository (absent from a student's released tree)."""
    return settings.current().reference or SOLUTIONS


VARIANT_KEYS = ("description", "metrics_zero", "patch")
PATCH_KEYS = ("file", "old", "new", "append", "text")


def apply(path: str, old: str, new: str):
    """Replaces the one occurrence of old in the file at path by new. Raises LabError
    (ConfigError) when old occurs there any other number of times."""
    with open(path) as f:
        text = f.read()
    if text.count(old) != 1:
        raise LabError(f"{path}: patch text found {text.count(old)} times, expected once:\n{old}")
    with open(path, "w") as f:
        f.write(text.replace(old, new))


def make(slug: str, dest_root: str, patches: list[dict], base: str = SOLUTIONS) -> str:
    """Copies base/<slug> to dest_root/<slug>, applies patches ({file, old, new} or {file,
    append} or {file, text}: replace whole file) and returns dest_root (a submission tree)."""
    for i, p in enumerate(patches):
        check_patch(p, f"patch number {i + 1}")
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


def check_patch(p: dict, where: str):
    """A patch is {file, old, new}, {file, append} or {file, text}, strings all. Raises LabError
    (ConfigError) naming where otherwise."""
    config.check_keys(p, PATCH_KEYS, where)
    config.get(p, "file", str, where)
    forms = [k for k in (("old", "new"), ("append",), ("text",)) if any(x in p for x in k)]
    if len(forms) != 1:
        raise LabError(f"{where}: needs old and new, or append, or text (one of the three)")
    for key in forms[0]:
        config.get(p, key, str, where)


def check(table: dict, path: str, metric_points: dict[str, float]) -> dict[str, dict]:
    """The variants of a variants.toml (already parsed) with description and metrics_zero filled
    in; raises LabError (ConfigError) naming the file, the variant and the key on an unknown key,
    a wrong type, a malformed patch, or a metric lab.toml does not declare (metric_points: its
    metrics' points) or that is worth no points (a zero no variant could miss)."""
    for name, spec in table.items():
        where = f"{path}: [{name}]"
        if not isinstance(spec, dict):
            raise LabError(f"{where}: a variant is a table (description, metrics_zero, patch)")
        config.check_keys(spec, VARIANT_KEYS, where)
        spec.setdefault("description", "")
        spec.setdefault("metrics_zero", [])
        config.get(spec, "description", str, where)
        for m in config.get(spec, "metrics_zero", list, where):
            if m not in metric_points:
                raise LabError(f"{where}: metrics_zero names '{m}', which lab.toml does not "
                               f"declare{config.suggestion(m, metric_points)}")
            if not metric_points[m]:
                raise LabError(f"{where}: metrics_zero names '{m}', which is worth no points: "
                               "every submission scores zero there")
        patches = config.tables(spec, "patch", where)
        if not patches:
            raise LabError(f"{where}: missing '[[{name}.patch]]'")
        for i, p in enumerate(patches):
            check_patch(p, f"{where}: [[{name}.patch]] number {i + 1}")
    return table


def declared(slug: str) -> dict[str, dict]:
    """The variants solutions/<slug>/variants.toml declares, checked: name -> {description,
    metrics_zero: [...], patch: [...]}; {} without the file."""
    path = os.path.join(SOLUTIONS, slug, "variants.toml")
    if not os.path.isfile(path):
        return {}
    return check(config.read(path), config.shown(path), {m.name: m.points for m in labs.load(slug).metrics})
