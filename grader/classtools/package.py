"""`make gradescope [LAB=NN] [HIDDEN=dir] [SECRET_SEED=n]`: Gradescope's autograder zip:
setup.sh and run_autograder (grader/gradescope/) at the top, the student tree in mlmem/ (the
release: no solutions), the reference solutions' editable files in reference/ (outside the
student tree, readable by root only once unpacked: the grader scores timed metrics against
them), and optionally instructor-only tests and a secret seed. run_autograder writes
/autograder/results/results.json, with a leaderboard of the measured metrics."""
from __future__ import annotations

import os
import shutil
import tempfile
import zipfile

from ..rules import labs, variants
from . import release
from ..rules.labs import ROOT

HERE = os.path.join(ROOT, "grader", "gradescope")


def _run_autograder(lab: str | None, daily_cap: int | None = None) -> str:
    with open(os.path.join(HERE, "run_autograder")) as f:
        text = f.read()
    settings = ([f'MLMEM_LAB="${{MLMEM_LAB:-{lab}}}"'] if lab else []) + \
        ([f'MLMEM_DAILY_CAP="${{MLMEM_DAILY_CAP:-{daily_cap}}}"'] if daily_cap else [])
    if settings:
        text = text.replace('AG="${AUTOGRADER_ROOT:-/autograder}"',
                            '\n'.join(['AG="${AUTOGRADER_ROOT:-/autograder}"'] + settings))
    return text


def _reference(dest: str, chosen: list[labs.Lab]):
    """Copies each lab's editable files of the reference solution into dest/<slug>/."""
    for lab in chosen:
        for rel in lab.editable:
            src = os.path.join(variants.SOLUTIONS, lab.slug, rel)
            if os.path.isfile(src):
                os.makedirs(os.path.dirname(os.path.join(dest, lab.slug, rel)), exist_ok=True)
                shutil.copyfile(src, os.path.join(dest, lab.slug, rel))


def build(dest_zip: str, lab: str | None, hidden: str | None, secret_seed: str | None,
          daily_cap: int | None = None) -> str:
    """Writes the zip and returns its path. daily_cap: graded submissions per student in 24
    hours (grader/classtools/submission_cap.py), None for no cap."""
    chosen = labs.select(lab)
    if lab:
        lab = chosen[0].id
    with tempfile.TemporaryDirectory() as tmp:
        release.export(os.path.join(tmp, "mlmem"), git=False)
        _reference(os.path.join(tmp, "reference"), chosen)
        if hidden:
            shutil.copytree(hidden, os.path.join(tmp, "hidden"))
        if secret_seed:
            with open(os.path.join(tmp, "secret_seed"), "w") as f:
                f.write(secret_seed + "\n")
        shutil.copy(os.path.join(HERE, "setup.sh"), os.path.join(tmp, "setup.sh"))
        with open(os.path.join(tmp, "run_autograder"), "w") as f:
            f.write(_run_autograder(lab, daily_cap))
        os.makedirs(os.path.dirname(os.path.abspath(dest_zip)), exist_ok=True)
        with zipfile.ZipFile(dest_zip, "w", zipfile.ZIP_DEFLATED) as z:
            for d, _, files in os.walk(tmp):
                for f in sorted(files):
                    path = os.path.join(d, f)
                    info = zipfile.ZipInfo.from_file(path, os.path.relpath(path, tmp))
                    if f in ("setup.sh", "run_autograder") or os.access(path, os.X_OK):
                        info.external_attr = 0o755 << 16
                    with open(path, "rb") as fh:
                        z.writestr(info, fh.read(), zipfile.ZIP_DEFLATED)
    return dest_zip
