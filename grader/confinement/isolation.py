"""How student programs are kept apart from the grader, from private files and from each other:
bubblewrap's namespaces (a private mount view holding only the system's folders and the run
folder, its own pid, network and IPC namespaces, killed as a whole) wherever the kernel allows
them, and as root a sandbox uid besides (grader/confinement/sandbox.py). Where namespaces are refused (a
container's default seccomp profile, a kernel without user namespaces) the grader falls back and
says why: as root the uid alone still keeps private files and other users' processes out of
reach; as an ordinary user nothing does, and such a grade is not for credit. Inside each student
program the harness adds seccomp and Landlock (common/mm_confine.h); under a CPU emulator
(qemu-user: an arm64 root on an x86-64 kernel) neither can be installed, so the grader does not
ask for them there and the grade is not for credit either.
MLMEM_NO_NAMESPACES=1 forces the fallback (the grader's own tests of it)."""
from __future__ import annotations

import functools
import glob
import os
import shutil
import subprocess
from dataclasses import dataclass

from ..rules import hostenv, settings

# System folders a student program may read (those that exist), mounted read-only at their own
# paths; on merged-/usr systems /bin, /lib, ... are symbolic links and are made links again.
SYSTEM_DIRS = ("/usr", "/etc", "/opt", "/sys", "/bin", "/sbin", "/lib", "/lib32", "/lib64",
               "/libx32")
# Device files a CUDA program needs where a GPU is present (bound as they are).
GPU_DEVICES = ("/dev/nvidia*", "/dev/nvidia-caps", "/dev/dri")


@dataclass(frozen=True)
class Isolation:
    """What this machine lets the grader do: namespaces (bubblewrap works), uid (the grader is
    root and drops student programs to a sandbox uid), and why anything is missing."""
    namespaces: bool
    uid: bool
    why: str = ""
    confine: bool = True        # seccomp and Landlock inside the program (mm_confine.h)
    confine_why: str = ""

    @property
    def for_credit(self) -> bool:
        """Whether a grade made here can be trusted: namespaces or the uid keep student code away
        from the grader's files and processes, and the confinement inside it can be installed."""
        return (self.namespaces or self.uid) and self.confine

    @property
    def lacking(self) -> str:
        """Why a grade made here is not for credit ('' when it is)."""
        return "; ".join(w for w, missing in ((self.why, not (self.namespaces or self.uid)),
                                               (self.confine_why, not self.confine)) if missing)

    def describe(self) -> str:
        if not self.for_credit:
            return f"not for credit ({self.lacking})"
        if self.namespaces:
            return "namespaces (bubblewrap)" + (" and a sandbox uid" if self.uid else "")
        return f"a sandbox uid only ({self.why})"


def bwrap_path() -> str | None:
    return shutil.which("bwrap")


def _system_binds() -> list[str]:
    args = []
    for d in SYSTEM_DIRS:
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
    return args


def _library_binds(env: dict[str, str]) -> list[str]:
    """LD_LIBRARY_PATH folders outside the system ones (a CUDA driver's compat libraries)."""
    args = []
    for d in filter(None, env.get("LD_LIBRARY_PATH", "").split(":")):
        if os.path.isabs(d) and not d.startswith(("/usr/", "/opt/", "/lib")):
            args += ["--ro-bind-try", d, d]
    return args


def bwrap_args(run_dir: str, cwd: str, env: dict[str, str],
               read_only: tuple[str, ...] = ()) -> list[str]:
    """The bubblewrap command line (up to its `--`) for a program that may write `run_dir` only
    and read the system's folders and `read_only`; no network; dies with the grader."""
    args = [bwrap_path() or "bwrap", "--unshare-all", "--die-with-parent", "--new-session",
            *_system_binds(), "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    for pattern in GPU_DEVICES:
        for dev in glob.glob(pattern):
            args += ["--dev-bind", dev, dev]
    args += _library_binds(env)
    for d in read_only:
        args += ["--ro-bind", d, d]
    return args + ["--bind", run_dir, run_dir, "--chdir", cwd, "--"]


def _namespaces_refused() -> str | None:
    """None when bubblewrap can start a program here, else why not."""
    if settings.current().no_namespaces:
        return "MLMEM_NO_NAMESPACES=1"
    if not bwrap_path():
        return "bubblewrap (bwrap) is not installed"
    cmd = [bwrap_path(), "--unshare-all", "--die-with-parent", *_system_binds(),
           "--proc", "/proc", "--dev", "/dev", "--", "/bin/true"]
    drop = _probe_user() if os.geteuid() == 0 else None
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=30,
                           preexec_fn=drop)
    except (OSError, subprocess.SubprocessError) as e:
        return f"bubblewrap could not run: {e}"
    if r.returncode != 0:
        return ("bubblewrap cannot create namespaces here (" +
                (r.stderr.strip().splitlines() or ["?"])[-1] + ")")
    return None


def _probe_user():
    """As root: the probe runs as nobody, as student programs run as a sandbox uid."""
    def drop():
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)
    return drop


def program_env() -> dict[str, str]:
    """What a student program's environment says to its harness: confine yourself before the
    code under test runs (common/mm_confine.h), wherever that can be done."""
    return {"MLMEM_CONFINE": "1"} if current().confine else {}


@functools.cache
def current() -> Isolation:
    """This machine's isolation, probed once per grader process."""
    refused = _namespaces_refused()
    root = os.geteuid() == 0
    emulated = hostenv.emulator()
    return Isolation(namespaces=refused is None, uid=root, why=refused or "",
                     confine=emulated is None,
                     confine_why=f"seccomp and Landlock cannot be installed under a CPU emulator "
                                 f"({emulated})" if emulated else "")
