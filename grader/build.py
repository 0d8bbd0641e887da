"""Builds a submission's lab out of tree: a stage folder holding the pristine lab (headers,
tests, benchmark, provided sources) with only the lab's editable files taken from the
submission, compiled by common/lab-build.mk."""
from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass

from . import sandbox
from .labs import ROOT, Lab

BUILD_DIR = os.path.join(ROOT, "build")


@dataclass
class Built:
    ok: bool
    out_dir: str
    log: str                 # compiler output (errors as file:line: ...)
    missing: list[str]       # editable files the submission lacks (the skeleton's were used)
    no_submission: bool = False


def submission_tag(submission: str) -> str:
    """A folder name for a submission path: 'labs', 'solutions', or a sanitized name."""
    path = os.path.abspath(submission)
    rel = os.path.relpath(path, ROOT)
    name = rel if not rel.startswith("..") else os.path.basename(path)
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "submission"


def stage(lab: Lab, submission: str, dest: str) -> tuple[list[str], bool]:
    """Copies the pristine lab to dest and overlays the submission's editable files.
    Returns (editable files missing from the submission, whether the submission lacks the lab)."""
    if os.path.exists(dest):
        shutil.rmtree(dest)
    shutil.copytree(lab.path, dest)
    for i, f in enumerate(lab.extra_test_files):
        shutil.copyfile(f, os.path.join(dest, "tests", f"hidden{i}_{os.path.basename(f)}"))
    sub_lab = os.path.join(submission, lab.slug)
    missing = []
    for rel in lab.editable:
        src = os.path.join(sub_lab, rel)
        if os.path.isfile(src):
            shutil.copyfile(src, os.path.join(dest, rel))
        else:
            missing.append(rel)
    return missing, not os.path.isdir(sub_lab)


def compiler_tag() -> str:
    """'' for the default C compiler, else '-<name>' (CC=clang: '-clang'): objects built by one
    compiler are never reused by another."""
    cc = os.path.basename(os.environ.get("CC", "").split(" ")[0])
    return "" if cc in ("", "cc", "gcc") else "-" + re.sub(r"[^A-Za-z0-9_.-]+", "_", cc)


def flags_tag(variant: str = "", werror: bool = False) -> str:
    """The build folder's suffix for a flag set, as common/flags.mk's FLAGS_TAG names the folders
    of `make labNN`: '-<sanitizer>', '-werror', then compiler_tag() ('-asan-clang'). Objects built
    with other flags (those of common/, which staging does not renew) are never reused."""
    return (f"-{variant}" if variant else "") + ("-werror" if werror else "") + compiler_tag()


def build(lab: Lab, submission: str, variant: str = "", werror: bool = False,
          tag: str | None = None, private: bool = False) -> Built:
    """Stages and builds with $CC (default cc); `variant` is '' or a sanitizer ('asan', 'ubsan',
    'tsan'). private: the staged sources are readable by this user only (the reference's: the
    programs the grader runs as another user must not read them)."""
    base = os.path.join(BUILD_DIR, "grade", tag or submission_tag(submission),
                        lab.slug + flags_tag(variant, werror))
    stage_dir, out_dir = os.path.join(base, "stage"), os.path.join(base, "out")
    missing, absent = stage(lab, submission, stage_dir)
    if private:
        os.chmod(stage_dir, 0o700)
    if absent:
        return Built(False, out_dir, f"the submission has no folder {lab.slug}/", missing, True)
    cmd = ["make", "-s", "-f", os.path.join(ROOT, "common", "lab-build.mk"),
           f"LABSRC={stage_dir}", f"OUT={out_dir}", f"-j{min(4, os.cpu_count() or 1)}"]
    if variant:
        cmd.append(f"SAN={variant}")
    if werror:
        cmd.append("WERROR=1")
    res = sandbox.run(cmd, sandbox.Limits(timeout_s=600, address_space_mb=None, nproc=4096,
                                          output_bytes=64 * 1024),
                      cwd=ROOT, sandbox_user=False)
    log = (res.stdout + res.stderr).replace(stage_dir + "/", f"{lab.slug}/")
    if res.timed_out:
        log += "\nthe build " + res.verdict()
    return Built(res.ok, out_dir, log, missing)


def first_errors(log: str, n: int = 8) -> str:
    """The compiler's error lines (file:line: error: ...), or the log's tail."""
    errs = [l for l in log.splitlines() if re.search(r":\d+(:\d+)?: (fatal )?error", l)
            or re.match(r"\S+\.c: error: ", l) or "undefined reference" in l]
    return "\n".join(errs[:n]) if errs else "\n".join(log.strip().splitlines()[-n:])
