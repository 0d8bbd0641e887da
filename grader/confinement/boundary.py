"""Runs a trusted program of a split lab (one with calls.toml: its check_lab or bench holds no
student code) beside the student's program (student_lab, common/student/), which runs the
student's code in processes of its own: the trusted side as this grader's user, in a folder only
it can read, with no confinement but its limits; the student's side confined as any student
program (sandbox.run's sandbox uid, namespaces, Landlock and a seccomp allowlist), in a folder of
its own. They talk over one socket pair (the zygote's: common/mm_call_abi.h)."""
from __future__ import annotations

import contextlib
import os
import socket
from dataclasses import dataclass, replace

from . import isolation, sandbox

STUDENT_PROGRAM = "student_lab"
# The memory both sides map (common/mm_call_abi.h's MM_ARENA_SIZE), on top of each one's limit;
# the trusted side's memfd grows up to it (its file-size limit).
ARENA_MB = 2048
# The zygote's socket in the trusted program (MLMEM_ZYGOTE_FD); 3 and 4 are the sealed channel's.
ZYGOTE_FD = 5


def split(out_dir: str) -> bool:
    """Whether the build in out_dir is a split lab's (it made the student's program)."""
    return os.path.isfile(os.path.join(out_dir, STUDENT_PROGRAM))


@dataclass
class PairResult:
    trusted: sandbox.RunResult
    student: sandbox.RunResult   # the zygote's: the student's own output is here

    @property
    def output(self) -> str:
        """The trusted program's output, then what the student's processes printed."""
        own = self.student.stdout + self.student.stderr
        return (self.trusted.stdout + self.trusted.stderr +
                (f"\n--- your code's output ---\n{own}" if own.strip() else ""))


def _more(mb: int | None, extra: int) -> int | None:
    return None if mb is None else mb + extra


@contextlib.contextmanager
def folders(run_name: str, program: str):
    """(the program's copy, code_dir) for one run of `program` (a split lab's trusted program):
    a folder of its own, which only this user can read, with the program in it; and the student
    program's, with student_lab in it. Both removed afterwards."""
    student = os.path.join(os.path.dirname(program), STUDENT_PROGRAM)
    with sandbox.rundir(run_name + "-code", student) as code_dir, \
            sandbox.rundir(run_name, program) as run_dir:
        os.chmod(run_dir, 0o700)   # the trusted side's files: the student's uid cannot reach them
        yield os.path.join(run_dir, os.path.basename(program)), code_dir


def run_pair(program: str, code_dir: str, limits: sandbox.Limits, env: dict[str, str],
             fds: dict[int, int], watch: sandbox.Watch | None = None) -> PairResult:
    """Runs the trusted program (its copy in the run folder folders() made) under `limits`, with
    `env` (its whole environment) and `fds`, beside the student's program in code_dir, confined."""
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    zygote = sandbox.start(
        [os.path.join(code_dir, STUDENT_PROGRAM), "--zygote", "3"],
        replace(limits, timeout_s=limits.timeout_s + 30,
                address_space_mb=_more(limits.address_space_mb, ARENA_MB)),
        cwd=code_dir, env=sandbox.base_env(code_dir, **_confine_env()), fds={3: theirs.fileno()})
    theirs.close()
    try:
        trusted = sandbox.run(
            [program],
            replace(limits, address_space_mb=_more(limits.address_space_mb, ARENA_MB),
                    file_size_mb=limits.file_size_mb + ARENA_MB),
            cwd=os.path.dirname(program), env={**env, "MLMEM_ZYGOTE_FD": str(ZYGOTE_FD)},
            sandbox_user=False, watch=watch, fds={**fds, ZYGOTE_FD: mine.fileno()})
    finally:
        mine.close()
        code = sandbox.finish(zygote, wait=False)
    return PairResult(trusted, code)


def _confine_env() -> dict[str, str]:
    """MLMEM_CONFINE for the student's program: 1 where confinement is possible (it must then
    confine itself or stop), 0 where it is not (under a CPU emulator)."""
    return {"MLMEM_CONFINE": "1" if isolation.current().confine else "0"}
