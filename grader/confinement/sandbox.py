"""Runs student programs under limits: wall-clock timeout, address space (or data size), CPU
time, process count, file size, and a cap on captured output; optionally a watch on a file the
program must keep growing (Watch), so a stuck program is stopped early. Each run gets a folder of
its own (rundir) and, where the kernel allows, namespaces of its own (grader/confinement/isolation.py). As
root the program runs as a sandbox uid that this run holds alone on the whole kernel (_claim).
Everything the program starts is killed when it ends, whatever it did (new process groups, a fork
bomb, a flood of output, a daemon)."""
from __future__ import annotations

import contextlib
import ctypes
import fcntl
import glob
import os
import random
import resource
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field

from . import isolation
from ..rules import settings

# Uids used for nothing else, so that killing "all its processes" kills only the student's. A
# run takes one of UID_SLOTS uids from the first (MLMEM_SANDBOX_UID, grader/rules/settings.py) on for as
# long as it has processes, and only one that no process on this kernel has (_claim): graders side
# by side, in other containers or chroots or with other temporary folders, never share a uid nor
# kill each other's runs.
UID_SLOTS = 64
_last_uid: int | None = None
_libc = ctypes.CDLL(None, use_errno=True)


class UidsBusy(RuntimeError):
    """Every sandbox uid has processes on this kernel."""


def _reachable(path: str) -> bool:
    """Whether every folder on the way to `path` lets other users through."""
    path = os.path.abspath(path)
    while True:
        try:
            if not os.stat(path).st_mode & 0o001:
                return False
        except OSError:
            return False
        if path == os.path.dirname(path):
            return True
        path = os.path.dirname(path)


def _base_dir() -> str:
    """<tmp>/mlmem-sandbox-<euid>: the run folders, reachable by the sandbox uids (as root, /tmp
    when the temporary folder sits where other users cannot pass)."""
    tmp = tempfile.gettempdir()
    if _dropping() and not _reachable(tmp):
        tmp = "/tmp"
    base = os.path.join(tmp, f"mlmem-sandbox-{os.geteuid()}")
    os.makedirs(base, exist_ok=True)
    os.chmod(base, 0o711)
    return base


def sandbox_uid() -> int:
    """The uid the last run of this process used (the first sandbox uid before any run)."""
    return _last_uid if _last_uid is not None else settings.current().sandbox_uid


def _candidates() -> list[int]:
    start = random.randrange(UID_SLOTS)
    first = settings.current().sandbox_uid
    return [first + (start + k) % UID_SLOTS for k in range(UID_SLOTS)]


def _claim(nproc: int):
    """In the child, just after setuid: a fork allowed only while this process is the uid's one
    process on the kernel (RLIMIT_NPROC 2 counts every process and thread of the uid, in every
    pid namespace and container on this kernel). Two runs claiming at once both fail and move
    on; one that finds the uid busy raises. Then the run's own process limit is restored."""
    pid = _libc.fork()
    if pid == 0:
        _libc._exit(0)
    if pid < 0:
        raise OSError(ctypes.get_errno(), "sandbox uid busy")
    os.waitpid(pid, 0)
    resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))


@dataclass
class Limits:
    timeout_s: float = 60.0
    address_space_mb: int | None = 4096   # None: unlimited (sanitizers, CUDA need huge mappings)
    data_mb: int | None = None            # RLIMIT_DATA: heap and private writable mappings; what
                                          # bounds memory where the address space is unlimited for
                                          # CUDA (whose reservations are not writable); None: none
    cpu_s: int | None = None
    nproc: int = 256                      # processes/threads the program may add
    file_size_mb: int = 256
    output_bytes: int = 256 * 1024        # kept per stream; the rest is counted and dropped


@dataclass
class Watch:
    """Progress a run must make: the file at `path` (e.g. a log the program appends a record to
    after each step) must change size at least once every `stall_s` seconds, counted from the
    start; otherwise the program is stopped and the run counts as stalled."""
    path: str
    stall_s: float


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return -1


@dataclass
class RunResult:
    returncode: int | None                # None when killed by a signal
    signal: int | None
    timed_out: bool
    stdout: str
    stderr: str
    dropped_bytes: int                    # output beyond Limits.output_bytes
    wall_s: float
    limits: Limits = field(repr=False, default_factory=Limits)
    stalled: bool = False                 # stopped: its Watch saw no progress for stall_s
    watch: Watch | None = field(repr=False, default=None)
    # SysV IPC objects the sandbox uid left behind, removed after the run (sweep_ipc).
    removed_ipc: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and not self.stalled

    def verdict(self) -> str:
        """One line saying how the program ended, for people."""
        if self.stalled:
            return (f"stopped after {self.wall_s:.0f} s: no progress for {self.watch.stall_s:g} s "
                    "(killed)")
        if self.timed_out:
            return f"timed out after {self.limits.timeout_s:g} s (killed)"
        if self.signal is not None:
            return f"crashed: {signal_name(self.signal)}"
        return f"exit status {self.returncode}"


def signal_name(sig: int) -> str:
    try:
        name = signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"
    desc = signal.strsignal(sig) or ""
    return f"{name} ({desc.lower()})" if desc else name


_PR_SET_CHILD_SUBREAPER = 36


def _become_subreaper():
    """Orphans of the student's processes are re-parented to us, not to init (which in a
    container may never reap them: zombies would keep counting against the process limit)."""
    import ctypes
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _reap_orphans(main_pid: int, running: threading.Event):
    """While the program runs, reaps every exited child but the program itself."""
    while running.is_set():
        try:
            info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            info = None
        if info and info.si_pid != main_pid:
            try:
                os.waitpid(info.si_pid, 0)
            except ChildProcessError:
                pass
            continue
        time.sleep(0.02)


def _reap_all():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _dropping() -> bool:
    return os.geteuid() == 0


def workdir(name: str, binary: str | None = None) -> str:
    """A new folder of its own for one run of a student program, reachable by the sandbox uid
    (a clone under /root is not): <tmp>/mlmem-sandbox-<euid>/<name>-XXXXXX, never shared with
    another run whatever `name` is. Copies `binary` into it when given. discard() removes it."""
    path = tempfile.mkdtemp(prefix=_safe(name) + "-", dir=_base_dir())
    os.chmod(path, 0o755)
    if binary:
        shutil.copy2(binary, path)
    return path


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name)[:80] or "run"


def discard(path: str):
    """Removes a folder made by workdir (what the student's program left in it too)."""
    shutil.rmtree(path, ignore_errors=True)


@contextlib.contextmanager
def rundir(name: str, binary: str | None = None):
    """workdir() for the length of a with-block."""
    path = workdir(name, binary)
    try:
        yield path
    finally:
        discard(path)


# Passed through to student programs where the grader has them: which GPUs to use, in which
# order, and where the CUDA driver's libraries are (a cuda-compat package, a container's).
PASS_THROUGH = ("CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "LD_LIBRARY_PATH")


def base_env(run_dir: str, **extra: str) -> dict[str, str]:
    """The environment a student program gets: PATH, HOME/TMPDIR inside its run folder, and the
    grader's PASS_THROUGH variables that are set."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": run_dir, "TMPDIR": run_dir,
           "LANG": "C.UTF-8"}
    env.update({k: os.environ[k] for k in PASS_THROUGH if k in os.environ})
    return {**env, **extra}


# The GPU device files: where they are group-accessible only (e.g. root:video 0660), the sandbox
# uid keeps their groups, or it could not open the GPU that the grader itself sees.
GPU_DEVICES = ("/dev/nvidia*", "/dev/nvidia-caps/*")


def device_groups(patterns: tuple[str, ...] | None = None) -> list[int]:
    """The groups (never root's) that own device files matching `patterns` (default GPU_DEVICES)
    with group read or write permission, sorted."""
    gids = set()
    for path in (p for pat in patterns or GPU_DEVICES for p in glob.glob(pat)):
        try:
            st = os.stat(path)
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode) and st.st_gid != 0 and st.st_mode & 0o060:
            gids.add(st.st_gid)
    return sorted(gids)


def _count_user_tasks(uid: int) -> int:
    n = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.stat(f"/proc/{pid}").st_uid == uid:
                n += len(os.listdir(f"/proc/{pid}/task"))
        except OSError:
            pass
    return n


def _preexec(limits: Limits, drop_to: int | None, nproc_base: int, groups: list[int],
             fds: dict[int, int]):
    def setup():
        os.setsid()
        high = {t: fcntl.fcntl(s, fcntl.F_DUPFD, 100) for t, s in fds.items()}  # out of the way
        for target, source in high.items():
            os.dup2(source, target)
        cap = lambda mb: mb * 1024 * 1024
        if limits.address_space_mb is not None:
            resource.setrlimit(resource.RLIMIT_AS, (cap(limits.address_space_mb),) * 2)
        if limits.data_mb is not None:
            resource.setrlimit(resource.RLIMIT_DATA, (cap(limits.data_mb),) * 2)
        if limits.cpu_s is not None:
            resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 1))
        resource.setrlimit(resource.RLIMIT_FSIZE, (cap(limits.file_size_mb),) * 2)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if drop_to is None:
            resource.setrlimit(resource.RLIMIT_NPROC, (nproc_base + limits.nproc,) * 2)
            return
        nproc = max(limits.nproc, 8)
        resource.setrlimit(resource.RLIMIT_NPROC, (2, nproc))
        os.setgroups(groups)
        os.setgid(drop_to)
        os.setuid(drop_to)
        _claim(nproc)
    return setup


def _reader(stream, keep: int, out: list, dropped: list):
    buf = bytearray()
    while chunk := stream.read(65536):
        room = keep - len(buf)
        if room > 0:
            buf += chunk[:room]
        dropped[0] += max(0, len(chunk) - max(room, 0))
    out.append(bytes(buf))


def _processes():
    """(pid, uid, state, session id) of every process, read from /proc/<pid>/stat."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            uid = os.stat(f"/proc/{pid}").st_uid
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            yield int(pid), uid, fields[0], int(fields[3])   # stat fields 3 and 6
        except (OSError, IndexError, ValueError):
            pass


def _session_members(sid: int) -> list[int]:
    """The session's live processes: a zombie (its parent has not reaped it yet, as the program
    finish() stops without waiting for) is dead already, and no signal would ever remove it."""
    return [pid for pid, _, state, s in _processes() if s == sid and state != "Z"]


def live_processes(uid: int) -> list[int]:
    """Processes of `uid` that are still running (zombies awaiting their reaper excluded)."""
    return [pid for pid, u, state, _ in _processes() if u == uid and state != "Z"]


def _kill_everything(sid: int, uid: int | None):
    """Kills what the run left behind: its session, and as root every process of the sandbox
    uid (which catches processes that started a session of their own)."""
    for _ in range(50):
        members = _session_members(sid)
        if not members:
            break
        for pid in members:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.02)
    if uid is not None:
        _kill_uid(uid)


IPC_RMID = 0
_IPC_KINDS = (("shm", "shared memory segment", "shmctl"), ("sem", "semaphore set", "semctl"),
              ("msg", "message queue", "msgctl"))


def _ipc_of(uid: int) -> list[tuple[str, int, str]]:
    """(kind, id, description) of every SysV IPC object `uid` owns or created, from
    /proc/sysvipc (this IPC namespace's)."""
    found = []
    for kind, name, _ in _IPC_KINDS:
        try:
            with open(f"/proc/sysvipc/{kind}") as f:
                head, *rows = f.read().splitlines()
        except OSError:
            continue
        cols = head.split()
        for row in rows:
            v = dict(zip(cols, row.split()))
            if uid in (int(v.get("uid", -1)), int(v.get("cuid", -1))):
                ident = int(v.get("shmid", v.get("semid", v.get("msqid", -1))))
                size = f" ({int(v['size']) >> 20} MiB)" if "size" in v else ""
                found.append((kind, ident, f"{name} {ident}{size}"))
    return found


def sweep_ipc(uid: int) -> list[str]:
    """Removes the SysV IPC objects of `uid` (where the run had no IPC namespace of its own,
    they would outlive it): what was removed, and a line for anything still there after."""
    removed = []
    for kind, ident, what in _ipc_of(uid):
        ctl = getattr(_libc, dict((k, c) for k, _, c in _IPC_KINDS)[kind])
        rc = ctl(ident, 0, IPC_RMID, None) if kind == "sem" else ctl(ident, IPC_RMID, None)
        removed.append(what if rc == 0 else f"{what}: could not be removed")
    left = _ipc_of(uid)
    return removed + [f"{what}: still there after the sweep" for _, _, what in left]


def ipc_note(removed: list[str]) -> str:
    """The note results.json keeps of what sweep_ipc removed after a run."""
    return "removed after the run (SysV IPC objects your code left): " + "; ".join(removed)


def _kill_uid(uid: int):
    """Kills every process of `uid` (as root): a child takes the uid and signals -1."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setuid(uid)
            os.kill(-1, signal.SIGKILL)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


def _wait(proc: subprocess.Popen, limits: Limits, watch: Watch | None, start: float) -> str:
    """Waits for `proc` to end: returns "exited", "timed out" (limits.timeout_s) or "stalled"
    (watch.path unchanged in size for watch.stall_s)."""
    deadline = start + limits.timeout_s
    seen, since = _size(watch.path) if watch else -1, start
    while True:
        now = time.monotonic()
        try:
            proc.wait(timeout=max(0.0, min(deadline - now, 0.25 if watch else deadline - now)))
            return "exited"
        except subprocess.TimeoutExpired:
            pass
        now = time.monotonic()
        if now >= deadline:
            return "timed out"
        if watch:
            size = _size(watch.path)
            if size != seen:
                seen, since = size, now
            elif now - since >= watch.stall_s:
                return "stalled"


def _start(cmd: list[str], limits: Limits, cwd: str, env: dict[str, str] | None, drop: bool,
           fds: dict[int, int]) -> tuple[subprocess.Popen, int | None]:
    """Starts `cmd`; as root (drop) as the first sandbox uid it can claim: (process, uid)."""
    if not drop:
        base = _count_user_tasks(os.getuid())
        return subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                pass_fds=tuple(fds), preexec_fn=_preexec(limits, None, base, [],
                                                                         fds)), None
    groups = device_groups()
    for attempt in range(3):   # two runs claiming one uid at once both let go: try again
        for uid in _candidates():
            os.chown(cwd, uid, uid)
            try:
                return subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        pass_fds=tuple(fds),
                                        preexec_fn=_preexec(limits, uid, 0, groups, fds)), uid
            except subprocess.SubprocessError:
                continue   # the uid has processes somewhere on this kernel
        time.sleep(random.uniform(0.05, 0.3))
    raise UidsBusy(f"all {UID_SLOTS} sandbox uids from {settings.current().sandbox_uid} have "
                   "processes on this kernel")


def confine(cmd: list[str], cwd: str, env: dict[str, str] | None,
            read_only: tuple[str, ...] = ()) -> list[str]:
    """`cmd` inside bubblewrap's namespaces where this machine allows them (grader/confinement/isolation.py):
    it sees the system's folders, `read_only` and its own folder `cwd`, which it alone may write."""
    if not isolation.current().namespaces:
        return cmd
    return isolation.bwrap_args(cwd, cwd, env or {}, read_only) + cmd


@dataclass
class Running:
    """A program started by start(), not yet finished."""
    proc: subprocess.Popen
    drop_to: int | None
    limits: Limits
    watch: Watch | None
    sandbox_user: bool
    started: float
    outs: list
    dropped: list
    threads: list
    running: threading.Event


def start(cmd: list[str], limits: Limits, cwd: str, env: dict[str, str] | None = None,
          sandbox_user: bool = True, watch: Watch | None = None,
          fds: dict[int, int] | None = None, read_only: tuple[str, ...] = ()) -> Running:
    """Starts `cmd` as run() does and returns at once; finish() waits for it and cleans up."""
    global _last_uid
    _become_subreaper()
    _reap_all()
    drop = _dropping() and sandbox_user
    started = time.monotonic()
    proc, drop_to = _start(confine(cmd, cwd, env, read_only) if sandbox_user else cmd, limits,
                           cwd, env, drop, fds or {})
    _last_uid = drop_to if drop_to is not None else _last_uid
    outs: list[list[bytes]] = [[], []]
    dropped = [0]
    threads = [threading.Thread(target=_reader, args=(s, limits.output_bytes, o, dropped))
               for s, o in ((proc.stdout, outs[0]), (proc.stderr, outs[1]))]
    running = threading.Event()
    running.set()
    threads.append(threading.Thread(target=_reap_orphans, args=(proc.pid, running), daemon=True))
    for t in threads:
        t.start()
    return Running(proc, drop_to, limits, watch, sandbox_user, started, outs, dropped, threads,
                   running)


def finish(r: Running, wait: bool = True) -> RunResult:
    """Waits for a started program (wait=False: stops it now), kills everything it left and
    returns how it went."""
    ended = "exited"
    try:
        if wait:
            ended = _wait(r.proc, r.limits, r.watch, r.started)
    finally:  # also when the grader itself is stopped (SIGTERM: see grader/__main__.py)
        r.running.clear()
        _kill_everything(r.proc.pid, r.drop_to)
        removed = sweep_ipc(r.drop_to) if r.drop_to is not None else []
    r.proc.wait()
    _reap_all()
    for t in r.threads:
        t.join(timeout=5)
    rc = r.proc.returncode
    if r.sandbox_user and isolation.current().namespaces and 128 < rc <= 128 + 64:
        rc = 128 - rc   # bubblewrap exits 128 + N when its program dies of signal N
    text = lambda o: (o[0] if o else b"").decode("utf-8", "replace")
    return RunResult(returncode=rc if rc >= 0 else None, signal=-rc if rc < 0 else None,
                     timed_out=ended == "timed out", stdout=text(r.outs[0]),
                     stderr=text(r.outs[1]), dropped_bytes=r.dropped[0],
                     wall_s=time.monotonic() - r.started, limits=r.limits,
                     stalled=ended == "stalled", watch=r.watch, removed_ipc=removed)


def run(cmd: list[str], limits: Limits, cwd: str, env: dict[str, str] | None = None,
        sandbox_user: bool = True, watch: Watch | None = None,
        fds: dict[int, int] | None = None, read_only: tuple[str, ...] = ()) -> RunResult:
    """Runs `cmd` in `cwd` (a folder from workdir()) under `limits`, confined (confine()). As
    root (with sandbox_user) the program runs as a sandbox uid that no other process on this
    kernel has, with no groups but those of the GPU device files (device_groups()); `cwd` is
    handed to that uid. fds: {fd number in the program: open fd of the grader} (result channels).
    With `watch`, the program is also stopped when it makes no progress (see Watch). Never raises
    for anything the program does; raises UidsBusy when every sandbox uid is taken."""
    return finish(start(cmd, limits, cwd, env, sandbox_user, watch, fds, read_only))
