"""A two-NUMA-node QEMU guest for machines with one node, x86-64 (QEMU's pc) or arm64 (QEMU's
virt board): Debian's kernel of this architecture boots over this machine's own files (its root
shared read-only by 9p, under a tmpfs overlay: every path, /tmp included, reads as here and writes
stay in the guest), runs one job script as root and powers off. It runs on KVM when /dev/kvm
works and on QEMU's TCG emulator otherwise (slower, same kernel behaviour). Used by `make
numa-guest` (lab 04 graded there) and by grader/tests/test_numa_guest.py.

What the guest can show: two real kernel NUMA nodes with their own memory and CPU, so binding,
mbind, move_pages, first touch and placement on node 1 run for real. What it cannot: a remote
latency or bandwidth penalty (both nodes are the same host memory), so the timed two-node
metrics skip there through the benchmark's own gate."""
from __future__ import annotations

import dataclasses
import glob
import gzip
import lzma
import os
import shutil
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CACHE = os.path.join(ROOT, "build", "numa-guest")
UP = "mlmem-guest: up"
KVM_HUNG = os.path.join(CACHE, "kvm-hung.txt")  # a KVM boot here never came up


@dataclasses.dataclass(frozen=True)
class Arch:
    """What differs between the guests of two CPU architectures."""
    qemu: str            # the emulator, and the Debian package that has it
    qemu_pkg: str
    kernel_meta: str     # Debian's package that depends on the current kernel of this architecture
    console: str
    machine: tuple[str, ...]
    tcg_cpu: tuple[str, ...]
    kvm_cpu: tuple[str, ...]
    modules: tuple[str, ...]  # to load (their dependencies first, from modules.dep); built-in: none


ARCHES = {
    # The host's CPU under KVM, less what nested KVM here may refuse to emulate.
    "x86_64": Arch("qemu-system-x86_64", "qemu-system-x86", "linux-image-amd64", "ttyS0", (),
                   (), ("-cpu", "host,-arch-capabilities"),
                   ("virtio_pci", "9pnet_virtio", "9p", "overlay")),
    # QEMU's virt board: its device tree carries the two nodes; -virtfs devices sit on its PCIe.
    "aarch64": Arch("qemu-system-aarch64", "qemu-system-arm", "linux-image-arm64", "ttyAMA0",
                    ("-M", "virt,gic-version=max"), ("-cpu", "max"), ("-cpu", "host"),
                    ("virtio_mmio", "virtio_pci", "9pnet_virtio", "9p", "overlay")),
}

INIT = """#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
echo "%(up)s"
for m in %(mods)s; do insmod /mod/$m.ko || echo "mlmem-guest: insmod $m failed"; done
o=trans=virtio,version=9p2000.L,msize=524288
mount -t 9p -o $o,ro hostroot /host && mount -t tmpfs rw /rw && mkdir -p /rw/up /rw/wk &&
mount -t overlay overlay -o lowerdir=/host,upperdir=/rw/up,workdir=/rw/wk /new &&
mkdir -p /new/run/mlmem-job && mount -t 9p -o $o job /new/run/mlmem-job &&
for d in proc sys dev; do mount --move /$d /new/$d; done &&
chroot /new /bin/sh -c 'cd /run/mlmem-job && /bin/bash job.sh > job.log 2>&1; echo $? > job.rc' ||
echo "mlmem-guest: setup failed"
sync
poweroff -f
"""


class Unavailable(Exception):
    """The guest cannot run here; the message says why (a skip reason, not a failure)."""


def _sh(cmd: list[str], cwd: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)


def _download(pkg: str, dest: str) -> str:
    """Debian's .deb of `pkg` in dest (apt-get download), extracted under dest/root."""
    got = glob.glob(os.path.join(dest, f"{pkg}_*.deb"))
    if not got:
        r = _sh(["apt-get", "download", pkg], cwd=dest)
        got = glob.glob(os.path.join(dest, f"{pkg}_*.deb"))
        if r.returncode != 0 or not got:
            raise Unavailable(f"apt-get download {pkg} failed: {r.stderr.strip()[-200:]}")
    r = _sh(["dpkg-deb", "-x", got[0], os.path.join(dest, "root")])
    if r.returncode != 0:
        raise Unavailable(f"dpkg-deb -x {os.path.basename(got[0])}: {r.stderr.strip()}")
    return got[0]


def _kernel_package(arch: Arch) -> str:
    """The versioned kernel package Debian's linux-image-<arch> depends on (it has 9p modules;
    the cloud kernel does not)."""
    r = _sh(["apt-cache", "depends", arch.kernel_meta])
    for line in r.stdout.splitlines():
        dep = line.strip().removeprefix("Depends: ")
        if dep.startswith("linux-image-") and dep != line.strip():
            return dep
    raise Unavailable(f"apt-cache knows no {arch.kernel_meta} (not a Debian machine of this "
                      "architecture, or `apt-get update` never ran?)")


def _modinfo(data: bytes, key: str) -> str:
    """The value of key in a module's .modinfo strings ("" when absent)."""
    at = data.find(b"\0" + key.encode() + b"=")
    if at < 0:
        return ""
    start = at + len(key) + 2
    return data[start:data.index(b"\0", start)].decode()


def _modules(kdir: str, wanted: tuple[str, ...]) -> list[tuple[str, bytes]]:
    """(name, contents decompressed) of the modules to load for `wanted`, each after the modules
    it depends on (its .modinfo `depends=`: a kernel package ships no modules.dep, depmod makes
    it); a module that modules.builtin names is in the kernel already and left out. Raises
    Unavailable for a module this kernel lacks."""
    def name(path: str) -> str:
        return os.path.basename(path).split(".ko")[0].replace("-", "_")
    files = {name(f): os.path.join(d, f) for d, _, fs in os.walk(os.path.join(kdir, "kernel"))
             for f in fs if ".ko" in f}
    builtin: set[str] = set()
    if os.path.exists(os.path.join(kdir, "modules.builtin")):
        with open(os.path.join(kdir, "modules.builtin")) as f:
            builtin = {name(line.strip()) for line in f if line.strip()}
    order: list[tuple[str, bytes]] = []
    seen: set[str] = set()

    def visit(m: str) -> None:
        if m in builtin or m in seen:
            return
        if m not in files:
            raise Unavailable(f"kernel {os.path.basename(kdir)} has no module {m} (nor built in)")
        seen.add(m)
        data = _module_bytes(files[m])
        for d in filter(None, _modinfo(data, "depends").split(",")):
            visit(d.replace("-", "_"))
        order.append((os.path.basename(files[m]).split(".ko")[0], data))
    for m in wanted:
        visit(m.replace("-", "_"))
    return order


def _module_bytes(path: str) -> bytes:
    """The module at path as insmod needs it: Debian 13 ships them xz-compressed (.ko.xz), other
    kernels .ko.zst or .ko.gz, older ones plain .ko."""
    if path.endswith(".xz"):
        with lzma.open(path) as f:
            return f.read()
    if path.endswith(".gz"):
        with gzip.open(path) as f:
            return f.read()
    if path.endswith(".zst"):
        if not shutil.which("zstd"):
            raise Unavailable(f"{os.path.basename(path)} is zstd-compressed: install zstd")
        return subprocess.run(["zstd", "-dcq", path], capture_output=True, check=True).stdout
    with open(path, "rb") as f:
        return f.read()


def _cpio_newc(files: list[tuple[str, int, bytes]]) -> bytes:
    """A newc cpio archive (the initramfs format) of (name, mode, contents); directories have
    contents b"" and a directory mode."""
    out = bytearray()

    def entry(ino: int, name: str, mode: int, data: bytes) -> None:
        nb = name.encode() + b"\0"
        fields = (ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(nb), 0)
        out.extend(b"070701" + b"".join(b"%08X" % v for v in fields) + nb)
        out.extend(b"\0" * (-len(out) % 4) + data)
        out.extend(b"\0" * (-len(out) % 4))
    for ino, (name, mode, data) in enumerate(files, 1):
        entry(ino, name, mode, data)
    entry(0, "TRAILER!!!", 0, b"")
    return bytes(out)


def _initramfs(kdir: str, arch: Arch, busybox: str, dest: str) -> None:
    """Busybox, the modules (decompressed) and INIT as a gzipped newc cpio archive at dest."""
    mods = _modules(kdir, arch.modules)
    files = [(d, 0o40755, b"") for d in ("bin", "mod", "proc", "sys", "dev", "host", "new", "rw")]
    with open(busybox, "rb") as f:
        files.append(("bin/busybox", 0o100755, f.read()))
    files += [(f"mod/{n}.ko", 0o100644, data) for n, data in mods]
    names = " ".join(n for n, _ in mods)
    files.append(("init", 0o100755, (INIT % {"up": UP, "mods": names}).encode()))
    with open(dest + ".tmp", "wb") as out:
        out.write(gzip.compress(_cpio_newc(files), compresslevel=1))
    os.replace(dest + ".tmp", dest)


def host_arch() -> Arch:
    """The guest's architecture: this machine's. Raises Unavailable on one no guest is made for."""
    m = os.uname().machine
    if m not in ARCHES:
        raise Unavailable(f"no guest is made for {m} machines (only for {', '.join(ARCHES)})")
    return ARCHES[m]


def prepare(arch: Arch, root: str = "/") -> tuple[str, str]:
    """(kernel, initramfs) of the guest, fetched and built once into build/numa-guest, with the
    busybox of root (the tree the guest will share). Raises Unavailable with the reason."""
    if subprocess.call(["bash", os.path.join(ROOT, "common", "setup-deps.sh"), arch.qemu_pkg,
                        "busybox-static", "file"]) != 0 or not shutil.which(arch.qemu):
        raise Unavailable(f"{arch.qemu} could not be installed")
    os.makedirs(CACHE, exist_ok=True)
    kpkg = _kernel_package(arch)
    kver = kpkg.removeprefix("linux-image-")
    kernel = os.path.join(CACHE, f"vmlinuz-{kver}")
    initrd = os.path.join(CACHE, f"initramfs-{kver}.gz")
    if not (os.path.exists(kernel) and os.path.exists(initrd)):
        busybox = os.path.join(root, "bin", "busybox")
        if "statically linked" not in _sh(["file", "-L", busybox]).stdout:
            raise Unavailable(f"{busybox} is not the static one (package busybox-static)")
        _download(kpkg, CACHE)
        kroot = os.path.join(CACHE, "root")
        # /lib/modules, or /usr/lib/modules where the package is merged-/usr (Debian 13)
        kdirs = [d for d in (os.path.join(kroot, u, "lib", "modules", kver) for u in ("", "usr"))
                 if os.path.isdir(d)]
        if not kdirs:
            raise Unavailable(f"{kpkg} has no /lib/modules/{kver} nor /usr/lib/modules/{kver}")
        _initramfs(kdirs[0], arch, busybox, initrd)
        shutil.copy(os.path.join(kroot, "boot", f"vmlinuz-{kver}"), kernel)
        shutil.rmtree(kroot)  # 300 MB of modules; the kernel and initramfs are all a boot needs
        for deb in glob.glob(os.path.join(CACHE, "*.deb")):
            os.remove(deb)
    return kernel, initrd


def kvm_usable() -> str | None:
    """None if /dev/kvm can be opened for reading and writing, else why not."""
    try:
        os.close(os.open("/dev/kvm", os.O_RDWR))
        return None
    except OSError as e:
        return f"/dev/kvm: {e.strerror}"


def _qemu_cmd(arch: Arch, kernel: str, initrd: str, job_dir: str, accel: str, mem_gib: int,
              root: str = "/") -> list[str]:
    half = mem_gib // 2
    cmd = [arch.qemu, *arch.machine, "-accel", accel, "-smp", "2", "-m", f"{mem_gib}G",
           "-nographic", "-no-reboot", "-kernel", kernel, "-initrd", initrd,
           "-append", f"console={arch.console} panic=-1 quiet",
           "-virtfs", f"local,path={root},mount_tag=hostroot,security_model=none,readonly=on,"
                      "multidevs=remap",
           "-virtfs", f"local,path={job_dir},mount_tag=job,security_model=none"]
    for n in range(2):
        cmd += ["-object", f"memory-backend-ram,id=m{n},size={half}G",
                "-numa", f"node,nodeid={n},cpus={n},memdev=m{n}"]
    return cmd + list(arch.kvm_cpu if accel == "kvm" else arch.tcg_cpu)


def _boot(cmd: list[str], timeout_s: float, up_within_s: float | None) -> tuple[str, bool]:
    """Runs QEMU; returns (serial console text, whether the guest came up). Kills it after
    timeout_s, or after up_within_s if the guest has not said UP by then."""
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, errors="replace")
    out: list[str] = []
    up = threading.Event()

    def read():
        for line in p.stdout:
            out.append(line)
            if UP in line:
                up.set()
    t = threading.Thread(target=read, daemon=True)
    t.start()
    start = time.monotonic()
    while p.poll() is None:
        waited = time.monotonic() - start
        if waited > timeout_s or (up_within_s and waited > up_within_s and not up.is_set()):
            p.kill()
            break
        time.sleep(0.2)
    p.wait()
    t.join(5)
    return "".join(out), up.is_set()


def run(job: str, job_dir: str, timeout_s: float = 1200, mem_gib: int = 6,
        arch: Arch | None = None, root: str = "/") -> dict:
    """Runs the bash script `job` as root in the guest, in job_dir (shared read-write, the
    guest's /run/mlmem-job and the script's working folder). Returns {"rc": exit status or None,
    "log": what the script printed, "console": the guest's console, "accel": "kvm"|"tcg"}.
    The guest is of this machine's architecture and shares its root, unless arch and root (a
    tree of that architecture: a guest of another architecture always runs emulated) say other.
    Raises Unavailable with the reason when the guest cannot be made or booted here."""
    native = arch is None
    arch = arch or host_arch()
    kernel, initrd = prepare(arch, root)
    os.makedirs(job_dir, exist_ok=True)
    for f in ("job.log", "job.rc"):
        if os.path.exists(os.path.join(job_dir, f)):
            os.remove(os.path.join(job_dir, f))
    with open(os.path.join(job_dir, "job.sh"), "w") as f:
        f.write(job)
    console, up, accel = "", False, "kvm"
    if native and kvm_usable() is None and not os.path.exists(KVM_HUNG):
        # Nested KVM can hang before the kernel prints a line: 20 s, then the emulator (and no
        # KVM on this machine's later boots).
        cmd = _qemu_cmd(arch, kernel, initrd, job_dir, "kvm", mem_gib, root)
        console, up = _boot(cmd, timeout_s, 20)
        if not up:
            open(KVM_HUNG, "w").write(console[-2000:])
    if not up:
        accel = "tcg"
        cmd = _qemu_cmd(arch, kernel, initrd, job_dir, "tcg", mem_gib, root)
        console, up = _boot(cmd, timeout_s, 120)
    if not up:
        raise Unavailable("the guest did not boot: " + console.strip()[-300:])
    rc_path, log_path = os.path.join(job_dir, "job.rc"), os.path.join(job_dir, "job.log")
    rc = int(open(rc_path).read().strip() or -1) if os.path.exists(rc_path) else None
    log = open(log_path, errors="replace").read() if os.path.exists(log_path) else ""
    return {"rc": rc, "log": log, "console": console, "accel": accel}


def grade_job(submission: str, out: str, lab: str = "04", parts: str = "all") -> str:
    """The job script that grades `lab` of `submission` (a path the guest sees as this machine
    does) into `out` (relative to the job folder); parts as `grade --parts` takes it ("tests":
    no benchmark)."""
    return (f"cd {ROOT} && echo \"guest: $(uname -r), $(ls -d /sys/devices/system/node/node* | "
            f"wc -l) NUMA nodes\" && py=$(common/find-python.sh) && "
            f"$py -m grader grade --lab {lab} --submission {submission} --parts {parts} "
            f"--out /run/mlmem-job/{out}\n")


def main(argv: list[str]) -> int:
    """`make numa-guest [SUBMISSION=dir]`: grades lab 04 of the submission in the guest."""
    sub = os.path.abspath(argv[0] if argv else os.path.join(ROOT, "labs"))
    job_dir = os.path.join(CACHE, "job")
    try:
        res = run(grade_job(sub, "results"), job_dir)
    except Unavailable as e:
        print(f"mlmem: no two-node guest here: {e}", file=sys.stderr)
        return 2
    print(res["log"], end="")
    print(f"(lab 04 graded in a two-node QEMU guest on {res['accel'].upper()}; results in "
          f"{os.path.relpath(os.path.join(job_dir, 'results'))})")
    return 0 if res["rc"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
