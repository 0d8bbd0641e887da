"""A batch's plan (plan.json): the labs, each student's tree, the files' hashes, the class seed
and each student's seed, the machine, and the passes' settings. It binds an output folder to
the batch it holds (plan() refuses another one, with the reason, unless fresh), so that any
engine (threads in batch.py, Slurm jobs in slurm.py, a hand-written job) runs the same passes
and `grader merge` finds them."""
from __future__ import annotations

import hashlib
import json
import os
import platform
import secrets
import shutil
from dataclasses import asdict, dataclass, field

from ..rules import labs, submission
from ..rules.config import ConfigError
from ..rules.labs import Lab


@dataclass
class Plan:
    """A batch: the labs, each student's tree (None: no lab files found) and the passes'
    settings; saved as <out>/plan.json, so that any engine (threads here, Slurm jobs, a
    hand-written job) runs the same passes and `grader merge` finds them. submissions and
    hashes (student -> tree_hash of their folder) bind the output folder to what it grades;
    class_seed and seeds (student -> student_seed) fix each student's randomized tests."""
    out_dir: str
    labs: list[str]
    trees: dict[str, str | None]
    timeout: float
    extra: list[str]
    submissions: str = ""
    hashes: dict[str, str] = field(default_factory=dict)
    class_seed: str = ""
    seeds: dict[str, str] = field(default_factory=dict)
    machine: str = ""

    def args(self, s: str) -> list[str]:
        """The grader's options for student s's passes: the batch's, and s's seed."""
        return self.extra + (["--seed", self.seeds[s]] if self.seeds.get(s) else [])

    @property
    def chosen(self) -> list[Lab]:
        return [labs.load(slug) for slug in self.labs]

    @property
    def todo(self) -> list[str]:
        return [s for s, t in sorted(self.trees.items()) if t]

    def save(self):
        os.makedirs(self.out_dir, exist_ok=True)
        with open(os.path.join(self.out_dir, PLAN), "w") as f:
            json.dump(asdict(self), f, indent=2)


PLAN = "plan.json"


def load_plan(out_dir: str) -> Plan:
    """The plan a batch saved in out_dir; raises ConfigError when there is none."""
    try:
        with open(os.path.join(out_dir, PLAN)) as f:
            return Plan(**{**json.load(f), "out_dir": out_dir})
    except (OSError, ValueError, TypeError) as e:
        raise ConfigError(f"{out_dir}: no batch plan ({PLAN}) to merge: {e}") from e


def tree_hash(path: str) -> str:
    """sha256 over the relative paths and bytes of every file under path (links as their
    target's text), in a fixed order: the same files give the same hash wherever they lie."""
    h = hashlib.sha256()
    for root, dirs, files in os.walk(path):
        dirs.sort()
        for name in sorted(files):
            full = os.path.join(root, name)
            h.update(os.path.relpath(full, path).encode() + b"\0")
            if os.path.islink(full):
                h.update(b"link:" + os.readlink(full).encode())
            else:
                with open(full, "rb") as f:
                    h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def machine() -> str:
    """The machine a batch is planned on, in words: host, CPU model, CPUs, architecture."""
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((ln.split(":", 1)[1].strip() for ln in f
                          if ln.lower().startswith(("model name", "cpu model"))), "")
    except OSError:
        pass
    return (f"{platform.node()}: {model or platform.processor() or 'CPU'}, "
            f"{os.cpu_count()} CPUs, {platform.machine()}")


def student_seed(class_seed: str, student: str) -> str:
    """The seed of a student's randomized tests: 63 bits of sha256("<class seed>/<student>"),
    in decimal (what MLMEM_SEED takes). The same class seed and student give the same seed, so
    regrading the same code gives the same correctness score."""
    digest = hashlib.sha256(f"{class_seed}/{student}".encode()).digest()
    return str(int.from_bytes(digest[:8], "big") >> 1)


def _mismatch(old: Plan, new: Plan) -> str:
    """Why a batch folder holding `old` cannot take `new` (another lab, another folder of
    submissions, other students, changed files); '' when it can."""
    if not old.hashes:
        return "it holds a batch whose files were not recorded (an older grader's)"
    if old.labs != new.labs:
        return f"it holds a batch of {', '.join(old.labs)}, not {', '.join(new.labs)}"
    if old.class_seed and new.class_seed != old.class_seed:
        return f"it was graded with class seed {old.class_seed}, not {new.class_seed}"
    if old.submissions != new.submissions:
        return f"it holds the submissions of {old.submissions or 'another folder'}"
    if sorted(old.hashes) != sorted(new.hashes):
        return f"it holds the students {', '.join(sorted(old.hashes)) or '(none)'}"
    changed = [s for s in sorted(new.hashes) if old.hashes[s] != new.hashes[s]]
    return f"the files of {', '.join(changed)} changed since it was graded" if changed else ""


def _start_over(out_dir: str, old: Plan | None):
    """Removes what a former batch left in out_dir: its plan, summary, students' folders and
    Slurm logs (nothing else: out_dir may hold other files)."""
    if old is None:
        return
    for name in [PLAN, "summary.csv", "summary.json", "slurm", *old.trees]:
        path = os.path.join(out_dir, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        elif os.path.lexists(path):
            os.remove(path)


def plan(folder: str, chosen: list[Lab], out_dir: str, timeout: float,
         extra: list[str], fresh: bool = False, seed: str | None = None) -> Plan:
    """Finds each student's work (one sub-folder per student) and saves the plan. An output
    folder is bound to the batch it holds: the same labs, submissions, files and class seed
    resume it (the passes already done stay done); anything else raises ConfigError with the
    reason, unless fresh, which removes the former batch's files and starts over. seed: the
    class seed (default: the one the folder's batch used, else a fresh one, recorded)."""
    students = sorted(d for d in os.listdir(folder)
                      if os.path.isdir(os.path.join(folder, d)) and not d.startswith("."))
    old = load_plan(out_dir) if os.path.isfile(os.path.join(out_dir, PLAN)) else None
    class_seed = seed or (old.class_seed if old and not fresh else "") or \
        str(secrets.randbits(63))
    p = Plan(os.path.abspath(out_dir), [lab.slug for lab in chosen], {}, timeout, extra,
             os.path.abspath(folder), {s: tree_hash(os.path.join(folder, s)) for s in students},
             class_seed, {s: student_seed(class_seed, s) for s in students}, machine())
    if old is not None and not fresh:
        why = _mismatch(old, p)
        if why:
            raise ConfigError(f"{out_dir}: {why}; grade into another folder (OUT=...) or start "
                              "over in this one with --fresh (make batch FRESH=1)")
    if fresh:
        _start_over(out_dir, old)
    p.trees = {s: submission.resolve(os.path.join(folder, s), chosen,
                                     os.path.join(out_dir, s, "tree")) for s in students}
    p.trees = {s: os.path.abspath(t) if t else None for s, t in p.trees.items()}
    p.save()
    return p
