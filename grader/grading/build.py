"""Builds a submission's lab out of tree, in two steps (common/lab-build.mk):
1. untrusted: the student's editable files, with the lab's public headers and provided sources,
   are compiled into one object (student.o) by the sandbox (grader/confinement/sandbox.py: a run folder of
   its own, the sandbox uid, namespaces, and limits on memory, CPU time, file size and
   processes), which sees nothing private: no solutions, no hidden tests, no seeds;
2. trusted: the pristine lab (tests, hidden tests, benchmark, common/) is compiled by the grader
   and linked with that object, which it never recompiles.
A build folder is held by one grader process at a time (a lock beside it): graders side by side
never share one, whatever the submissions' folders are called."""
from __future__ import annotations

import fcntl
import functools
import hashlib
import os
import re
import shutil
import subprocess
from dataclasses import dataclass

from ..confinement import sandbox
from ..rules import submission as handed_in
from ..rules.labs import ROOT, Lab

BUILD_DIR = os.path.join(ROOT, "build")
REFERENCE_DIR = os.path.join(BUILD_DIR, "reference")   # the reference's builds: no tag reaches it
GRADE_DIR = os.path.join(BUILD_DIR, "grade")           # the grader's builds (<tag>/<slug><flags>/)
                                                       # and its results (grade.py)
LABS_BUILD_DIR = os.path.join(BUILD_DIR, "labs")       # `make labNN`: <slug><FLAGS_TAG>/ (Makefile)
STUDENT_OBJ = os.path.join("student-obj", "student.o")  # in a build's out folder: what step 1 made
# What the untrusted compile step may use: far more than the labs need, far less than the machine.
STUDENT_BUILD = sandbox.Limits(timeout_s=300, address_space_mb=None, data_mb=2048, cpu_s=120,
                               nproc=64, file_size_mb=64, output_bytes=64 * 1024)


@dataclass
class Built:
    ok: bool
    out_dir: str
    log: str                 # compiler output (errors as file:line: ...)
    missing: list[str]       # editable files the submission lacks (the skeleton's were used)
    no_submission: bool = False
    # The compiler itself crashed (compiler_crash()): its line saying so, else ''. A fault of the
    # toolchain, never of the code it compiled; crash_in_student: while compiling the student's
    # files (else the lab's pristine files).
    compiler_crash: str = ""
    crash_in_student: bool = False


def submission_tag(submission: str) -> str:
    """A readable folder name for a submission path: 'labs', 'solutions', or a sanitized name
    (a clone's 'labs' with its parent's name: 'alice_labs'). Not unique: hold_dir makes it so."""
    path = os.path.abspath(submission)
    rel = os.path.relpath(path, ROOT)
    parent, base = os.path.split(path)
    name = (rel if not rel.startswith("..") else
            f"{os.path.basename(parent)}_{base}" if base in ("labs", "tree") else base)
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_.") or "submission"


_held: dict[str, object] = {}   # build folders this process holds -> their open lock files


def hold_dir(parent: str, name: str) -> str:
    """parent/name, or parent/name~2, ~3, ...: the first folder no other grader process holds,
    held by this one until it exits (an flock on <folder>.lock)."""
    os.makedirs(parent, exist_ok=True)
    for k in range(1, 10000):
        path = os.path.join(parent, name if k == 1 else f"{name}~{k}")
        if path in _held:
            return path
        lock = open(path + ".lock", "w")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            continue
        _held[path] = lock
        return path
    raise RuntimeError(f"no free build folder for {name} in {parent}")


def stage(lab: Lab, submission: str, dest: str) -> tuple[list[str], bool, list[str]]:
    """Copies the pristine lab to dest and overlays the submission's editable files. Returns
    (editable files missing from the submission, whether the submission lacks the lab, why files
    were refused: links to files or folders, devices, files over handed_in.MAX_FILE_BYTES)."""
    fresh = dest + ".new"
    if os.path.exists(fresh):
        shutil.rmtree(fresh)
    shutil.copytree(lab.path, fresh)
    for i, f in enumerate(lab.extra_test_files):
        shutil.copyfile(f, os.path.join(fresh, "tests", f"hidden{i}_{os.path.basename(f)}"))
    sub_lab = os.path.join(submission, lab.slug)
    missing, refused = [], []
    for rel in lab.editable:
        src = os.path.join(sub_lab, rel)
        link = handed_in.link_on_the_way(submission, os.path.join(lab.slug, rel))
        why = (f"{link}: refused: a symbolic link to a folder; hand in the folder itself"
               if link else handed_in.refusal(src, rel))
        if why in refused:
            continue
        if why:
            refused.append(why)
        elif os.path.lexists(src):
            shutil.copyfile(src, os.path.join(fresh, rel))
        else:
            missing.append(rel)
    _settle(fresh, dest)
    return missing, not os.path.isdir(sub_lab), refused


def _settle(fresh: str, dest: str) -> None:
    """Makes dest hold what fresh holds, then removes fresh. A file whose bytes are unchanged
    keeps its time, so that the trusted build (make) redoes only what a change reaches."""
    if not os.path.isdir(dest) or os.path.islink(dest):
        shutil.rmtree(dest, ignore_errors=True)
        os.replace(fresh, dest)
        return
    for top, dirs, files in os.walk(dest, topdown=False):
        for name in files + dirs:
            path = os.path.join(top, name)
            twin = os.path.join(fresh, os.path.relpath(path, dest))
            if not os.path.lexists(twin) or _is_dir(twin) != _is_dir(path):
                shutil.rmtree(path) if _is_dir(path) else os.remove(path)
    for top, dirs, files in os.walk(fresh):
        there = os.path.join(dest, os.path.relpath(top, fresh))
        os.makedirs(there, exist_ok=True)
        for name in files:
            new, old = os.path.join(top, name), os.path.join(there, name)
            if not _same_bytes(new, old):
                os.replace(new, old)
    shutil.rmtree(fresh)


def _is_dir(path: str) -> bool:
    return os.path.isdir(path) and not os.path.islink(path)


def _same_bytes(a: str, b: str) -> bool:
    """Whether b is a plain file with a's bytes."""
    if os.path.islink(b) or not os.path.isfile(b) or os.path.getsize(a) != os.path.getsize(b):
        return False
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def _public_stage(lab: Lab, stage_dir: str, run_dir: str) -> str:
    """What the untrusted step compiles: the lab's headers, provided sources and lab.mk with the
    student's editable files (from the trusted stage), in the sandbox's run folder. lab.toml stays
    out: what the build needs of it comes as make variables (Lab.make_vars)."""
    dest = os.path.join(run_dir, lab.slug)
    os.makedirs(dest)
    for entry in ("include", "src", "lab.mk"):
        src = os.path.join(stage_dir, entry)
        if os.path.isdir(src):
            shutil.copytree(src, os.path.join(dest, entry))
        elif os.path.isfile(src):
            shutil.copyfile(src, os.path.join(dest, entry))
    return dest


def _flag_vars(variant: str, werror: bool) -> list[str]:
    """A flag set as make's command-line assignments: SAN=<variant>, WERROR=1 (common/flags.mk)."""
    return ([f"SAN={variant}"] if variant else []) + (["WERROR=1"] if werror else [])


def flags_tag(variant: str = "", werror: bool = False) -> str:
    """The build folder's suffix for a flag set and this $CC: common/flags.mk's FLAGS_TAG, which
    names the folders of `make labNN` too ('-asan', '-tsan-werror', '-ubsan-clang'; '' for the
    default flags), asked of make so that the rule lives in one place. Objects built with other
    flags (those of common/, which staging does not renew) are never reused. Raises
    subprocess.CalledProcessError if make cannot say (no make, a SAN it does not know)."""
    return _flags_tag(variant, werror, os.environ.get("CC", ""))


@functools.cache
def _flags_tag(variant: str, werror: bool, cc: str) -> str:
    """flags_tag, asked of make once per flag set and $CC (cc: the cache's key; make reads CC
    from the environment): parsing flags.mk probes the compiler and pkg-config, which every build
    of a grading run would otherwise repeat."""
    cmd = ["make", "-s", "--no-print-directory", "-f", os.path.join(ROOT, "common", "flags.mk"),
           "--eval", "mm-flags-tag: ; @echo '$(FLAGS_TAG)'", "mm-flags-tag",
           *_flag_vars(variant, werror)]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()


def _make(lab: Lab, labsrc: str, out: str, variant: str, werror: bool, *goals: str,
          rules: str = os.path.join(ROOT, "common", "lab-build.mk")) -> list[str]:
    """The make command that builds `goals` (default: all) of lab, staged in labsrc, into out."""
    return (["make", "-s", "-f", rules, f"LABSRC={labsrc}", f"OUT={out}",
             f"-j{min(4, os.cpu_count() or 1)}", *goals] + lab.make_vars() +
            _flag_vars(variant, werror))


def _limits_hit(res: sandbox.RunResult, log: str) -> str:
    """Why the untrusted build was stopped, or '' if it ended by itself."""
    if res.timed_out:
        return f"mlmem: the build took longer than {res.limits.timeout_s:g} s and was stopped"
    if re.search(r"virtual memory exhausted|out of memory|cannot allocate memory|Killed signal|"
                 r"CPU time limit|File size limit", log, re.I) or res.signal is not None:
        return (f"mlmem: the build was stopped at its limits ({STUDENT_BUILD.data_mb} MiB of "
                f"memory, {STUDENT_BUILD.cpu_s} s of CPU, {STUDENT_BUILD.file_size_mb} MiB per "
                "file)")
    return ""


# A compiler that crashes says so in one of these ways: gcc's "internal compiler error" (also
# "internal compiler error: Segmentation fault signal terminated program cc1"), clang's
# "clang frontend command failed" (with "due to signal", or an exit code) and "unable to execute
# command: Segmentation fault". A build stopped at its limits (cc1 "Killed") is told apart first.
COMPILER_CRASH = re.compile(r"internal compiler error|clang frontend command failed|"
                            r"unable to execute command: (Segmentation fault|Aborted|Bus error|"
                            r"Illegal instruction)|(Segmentation fault|Aborted|Bus error|"
                            r"Illegal instruction) signal terminated program", re.I)


def compiler_crash(log: str) -> str:
    """The first line of a build log saying the compiler itself crashed, or '' (no crash: the
    build succeeded, or the code had errors)."""
    return next((l.strip() for l in log.splitlines() if COMPILER_CRASH.search(l)), "")


def compile_student(lab: Lab, stage_dir: str, parts: str, variant: str,
                    werror: bool) -> tuple[bool, str, str]:
    """Step 1: compiles the student's files in the sandbox; their objects and the joined
    student.o land in `parts` (emptied first). Returns (ok, log, the compiler's crash line or ''
    (compiler_crash(); never for a build stopped at its limits)). The same inputs as the last
    compile that succeeded here (_compile_inputs) reuse its objects and log."""
    key = _compile_inputs(lab, stage_dir, variant, werror)
    kept = _kept_compile(parts, key)
    if kept is not None:
        return True, kept, ""
    shutil.rmtree(parts, ignore_errors=True)
    with sandbox.rundir(f"build-{lab.slug}") as run_dir:
        labsrc = _public_stage(lab, stage_dir, run_dir)
        common = os.path.join(run_dir, "common")   # the build rules and headers: public
        shutil.copytree(os.path.join(ROOT, "common"), common,
                        ignore=shutil.ignore_patterns("selftest"))
        out = os.path.join(run_dir, "out")
        res = sandbox.run(_make(lab, labsrc, out, variant, werror, "student-object",
                                rules=os.path.join(common, "lab-build.mk")), STUDENT_BUILD,
                          cwd=run_dir, env=sandbox.base_env(run_dir, **_tool_env()))
        log = (res.stdout + res.stderr).replace(labsrc + "/", f"{lab.slug}/")
        stopped = _limits_hit(res, log)
        made = os.path.join(out, "obj", "student.o")
        ok = res.ok and not stopped and os.path.isfile(made) and not os.path.islink(made)
        if ok:   # plain files only: what the sandbox made is data to the grader
            shutil.copytree(os.path.join(out, "obj"), parts, symlinks=True,
                            ignore=shutil.ignore_patterns("*.d", "*.i"))
    crash = "" if ok or stopped else compiler_crash(log)
    if ok:
        _keep_compile(parts, key, log)
    return ok, log + ("\n" + stopped if stopped else ""), crash


KEY_FILE, LOG_FILE = ".inputs", ".log"   # in the objects' folder: what made them, and its log


def _compile_inputs(lab: Lab, stage_dir: str, variant: str, werror: bool) -> str:
    """A digest of everything the untrusted compile reads: the files _public_stage copies,
    common/, the make command, the build's settings and the compilers' files."""
    h = hashlib.sha256()
    h.update(repr(_make(lab, "LABSRC", "OUT", variant, werror, "student-object",
                        rules="RULES")).encode())
    h.update(repr(sorted(_tool_env().items())).encode())
    for tool in (os.environ.get("CC") or "cc", "nvcc",
                 os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")):
        found = shutil.which(tool)
        if found:
            st = os.stat(os.path.realpath(found))
            h.update(f"{tool} {os.path.realpath(found)} {st.st_size} {st.st_mtime_ns}".encode())
    for top in [os.path.join(stage_dir, e) for e in ("include", "src", "lab.mk")] + \
            [os.path.join(ROOT, "common")]:
        for path in _files_under(top):
            if "selftest" in os.path.relpath(path, top).split(os.sep):
                continue
            h.update(f"\0{os.path.relpath(path, os.path.dirname(top))}\0".encode())
            with open(path, "rb") as f:
                h.update(f.read())
    return h.hexdigest()


def _files_under(top: str) -> list[str]:
    """top itself if a file, else the files below it, in a fixed order."""
    if os.path.isfile(top):
        return [top]
    return sorted(os.path.join(d, f) for d, _, fs in os.walk(top) for f in fs)


def _kept_compile(parts: str, key: str) -> str | None:
    """The log of the compile kept in parts if it was made from `key`, else None."""
    try:
        with open(os.path.join(parts, KEY_FILE)) as f:
            if f.read() != key or not os.path.isfile(os.path.join(parts, "student.o")):
                return None
        with open(os.path.join(parts, LOG_FILE)) as f:
            return f.read()
    except OSError:
        return None


def _keep_compile(parts: str, key: str, log: str) -> None:
    """Marks the objects in parts as made from `key` (the log first, the key last)."""
    with open(os.path.join(parts, LOG_FILE), "w") as f:
        f.write(log)
    with open(os.path.join(parts, KEY_FILE), "w") as f:
        f.write(key)


def _tool_env() -> dict[str, str]:
    """The build's own settings that reach the untrusted step: the compiler and CUDA's place."""
    return {k: os.environ[k] for k in ("CC", "CUDA_HOME") if k in os.environ}


def build(lab: Lab, submission: str, variant: str = "", werror: bool = False,
          tag: str | None = None, private: bool = False) -> Built:
    """Stages and builds with $CC (default cc); `variant` is '' or a sanitizer ('asan', 'ubsan',
    'tsan'). private: the reference's build (kept in REFERENCE_DIR, readable by this user only:
    the programs the grader runs as another user must not read it)."""
    parent = REFERENCE_DIR if private else GRADE_DIR
    base = hold_dir(parent if private else os.path.join(parent, tag or submission_tag(submission)),
                    lab.slug + flags_tag(variant, werror))
    stage_dir, out_dir = os.path.join(base, "stage"), os.path.join(base, "out")
    missing, absent, refused = stage(lab, submission, stage_dir)
    if private:
        os.chmod(base, 0o700)
    if absent:
        return Built(False, out_dir, f"the submission has no folder {lab.slug}/", missing, True)
    if refused:
        return Built(False, out_dir, "\n".join(refused), missing)
    os.makedirs(out_dir, exist_ok=True)
    obj = os.path.join(out_dir, STUDENT_OBJ)
    student_c = any(f.endswith((".c", ".cu")) for f in lab.editable)
    if student_c:
        ok, log, crash = compile_student(lab, stage_dir, os.path.dirname(obj), variant, werror)
        if not ok:
            return Built(False, out_dir, log, missing, compiler_crash=crash,
                         crash_in_student=bool(crash))
    res = sandbox.run(_make(lab, stage_dir, out_dir, variant, werror) +
                      ([f"STUDENT_PREBUILT={obj}"] if student_c else []),
                      sandbox.Limits(timeout_s=600, address_space_mb=None, nproc=4096,
                                     output_bytes=64 * 1024),
                      cwd=ROOT, sandbox_user=False)
    log = (res.stdout + res.stderr).replace(stage_dir + "/", f"{lab.slug}/")
    if res.timed_out:
        log += "\nthe build " + res.verdict()
    return Built(res.ok, out_dir, log, missing,
                 compiler_crash="" if res.ok else compiler_crash(log))


def first_errors(log: str, n: int = 8) -> str:
    """The compiler's error lines (file:line: error: ...), or the log's tail."""
    errs = [l for l in log.splitlines() if re.search(r":\d+(:\d+)?: (fatal )?error", l)
            or l.startswith(("mlmem: the build", "src/"))
            or re.match(r"\S+\.c: error: ", l) or "undefined reference" in l]
    return "\n".join(errs[:n]) if errs else "\n".join(log.strip().splitlines()[-n:])


# ---- the build folders of one lab, for `make handin` and `make grade` without LAB --------------

def _listdir(path: str) -> list[str]:
    try:
        return sorted(os.listdir(path))
    except OSError:
        return []


def _of_lab(parent: str, slug: str) -> list[str]:
    """parent/<slug> and parent/<slug>-<flags>, <slug>~2 ... (hold_dir), that exist."""
    return [os.path.join(parent, d) for d in _listdir(parent)
            if d == slug or d.startswith((slug + "-", slug + "~"))]


def made_dirs(slug: str) -> list[str]:
    """The folders `make labNN` built this lab into, with any flags: build/labs/<slug>/,
    build/labs/<slug>-asan/, ... Each holds `made` (the flags; the Makefile writes it on every
    `make labNN`) and check_lab."""
    return _of_lab(LABS_BUILD_DIR, slug)


def graded_dirs(slug: str, tag: str | None = None) -> list[str]:
    """The grader's build folders of this lab that hold a staged submission
    (build/grade/<tag>/<slug><flags>/stage): of submission `tag` (submission_tag's name), or
    without it of every submission a student graded (not calibration's)."""
    tags = [tag] if tag else [t for t in _listdir(GRADE_DIR) if not t.startswith("calibrate")]
    return [d for t in tags for d in _of_lab(os.path.join(GRADE_DIR, t), slug)
            if os.path.isdir(os.path.join(d, "stage"))]
