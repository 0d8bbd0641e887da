"""A two-NUMA-node QEMU guest for machines with one node: Debian's kernel boots over this
machine's own files (its root shared read-only by 9p, under a tmpfs overlay: every path, /tmp
included, reads as here and writes stay in the guest), runs one job
script as root and powers off. It runs on KVM when /dev/kvm works and on QEMU's TCG emulator
otherwise (slower, same kernel behaviour). Used by `make numa-guest` (lab 04 graded there) and
by grader/tests/test_numa_guest.py.

What the guest can show: two real kernel NUMA nodes with their own memory and CPU, so binding,
mbind, move_pages, first touch and placement on node 1 run for real. What it cannot: a remote
latency or bandwidth penalty (both nodes are the same host memory), so the timed two-node
metrics skip there through the benchmark's own gate."""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(ROOT, "build", "numa-guest")
QEMU = "qemu-system-x86_64"
UP = "mlmem-guest: up"
KVM_HUNG = os.path.join(CACHE, "kvm-hung.txt")  # a KVM boot here never came up
# Loaded in this order from the initramfs (Debian's kernel has them as modules).
MODULES = ["drivers/virtio/virtio_ring", "drivers/virtio/virtio",
           "drivers/virtio/virtio_pci_legacy_dev", "drivers/virtio/virtio_pci_modern_dev",
           "drivers/virtio/virtio_pci", "fs/netfs/netfs", "fs/fscache/fscache", "net/9p/9pnet",
           "net/9p/9pnet_virtio", "fs/9p/9p", "fs/overlayfs/overlay"]

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


def _kernel_package() -> str:
    """The versioned kernel package Debian's linux-image-amd64 depends on (it has 9p modules;
    the cloud kernel does not)."""
    r = _sh(["apt-cache", "depends", "linux-image-amd64"])
    for line in r.stdout.splitlines():
        dep = line.strip().removeprefix("Depends: ")
        if dep.startswith("linux-image-") and dep != line.strip():
            return dep
    raise Unavailable("apt-cache knows no linux-image-amd64 (not a Debian amd64 machine?)")


def _initramfs(root: str, kver: str, busybox: str, dest: str) -> None:
    """Busybox, the modules and INIT as a gzipped newc cpio archive at dest."""
    tree = os.path.join(CACHE, "initramfs")
    shutil.rmtree(tree, ignore_errors=True)
    for d in ("bin", "mod", "proc", "sys", "dev", "host", "new", "rw"):
        os.makedirs(os.path.join(tree, d))
    shutil.copy(busybox, os.path.join(tree, "bin", "busybox"))
    kdir = os.path.join(root, "lib", "modules", kver, "kernel")
    for m in MODULES:
        shutil.copy(os.path.join(kdir, m + ".ko"), os.path.join(tree, "mod"))
    names = " ".join(os.path.basename(m) for m in MODULES)
    with open(os.path.join(tree, "init"), "w") as f:
        f.write(INIT % {"up": UP, "mods": names})
    os.chmod(os.path.join(tree, "init"), 0o755)
    files = sorted(os.path.relpath(os.path.join(d, n), tree)
                   for d, dirs, fs in os.walk(tree) for n in dirs + fs)
    with open(dest, "wb") as out:
        cpio = subprocess.Popen([busybox, "cpio", "-o", "-H", "newc"], cwd=tree,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL)
        gz = subprocess.Popen(["gzip", "-1"], stdin=cpio.stdout, stdout=out)
        cpio.stdout.close()
        cpio.communicate(("\n".join(["."] + files) + "\n").encode())
        gz.wait()
    if cpio.returncode or gz.returncode:
        raise Unavailable("could not pack the guest's initramfs")


def prepare() -> tuple[str, str]:
    """(kernel, initramfs) of the guest, fetched and built once into build/numa-guest.
    Raises Unavailable with the reason."""
    if os.uname().machine != "x86_64":
        raise Unavailable(f"the guest is built for x86_64; this machine is {os.uname().machine}")
    if subprocess.call(["bash", os.path.join(ROOT, "common", "setup-deps.sh"), "qemu-system-x86",
                        "busybox-static", "file"]) != 0 or not shutil.which(QEMU):
        raise Unavailable(f"{QEMU} could not be installed")
    os.makedirs(CACHE, exist_ok=True)
    kpkg = _kernel_package()
    kver = kpkg.removeprefix("linux-image-")
    kernel, initrd = os.path.join(CACHE, f"vmlinuz-{kver}"), os.path.join(CACHE, "initramfs.gz")
    if not (os.path.exists(kernel) and os.path.exists(initrd)):
        if "statically linked" not in _sh(["file", "-L", "/bin/busybox"]).stdout:
            raise Unavailable("/bin/busybox is not the static one (package busybox-static)")
        _download(kpkg, CACHE)
        root = os.path.join(CACHE, "root")
        _initramfs(root, kver, "/bin/busybox", initrd)
        shutil.copy(os.path.join(root, "boot", f"vmlinuz-{kver}"), kernel)
        shutil.rmtree(root)  # 300 MB of modules; the kernel and initramfs are all a boot needs
        shutil.rmtree(os.path.join(CACHE, "initramfs"), ignore_errors=True)
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


def _qemu_cmd(kernel: str, initrd: str, job_dir: str, accel: str, mem_gib: int) -> list[str]:
    half = mem_gib // 2
    cmd = [QEMU, "-accel", accel, "-smp", "2", "-m", f"{mem_gib}G", "-nographic", "-no-reboot",
           "-kernel", kernel, "-initrd", initrd,
           "-append", "console=ttyS0 panic=-1 quiet",
           "-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,"
                      "multidevs=remap",
           "-virtfs", f"local,path={job_dir},mount_tag=job,security_model=none"]
    for n in range(2):
        cmd += ["-object", f"memory-backend-ram,id=m{n},size={half}G",
                "-numa", f"node,nodeid={n},cpus={n},memdev=m{n}"]
    if accel == "kvm":  # the host's CPU, less what nested KVM here may refuse to emulate
        cmd += ["-cpu", "host,-arch-capabilities"]
    return cmd


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


def run(job: str, job_dir: str, timeout_s: float = 1200, mem_gib: int = 6) -> dict:
    """Runs the bash script `job` as root in the guest, in job_dir (shared read-write, the
    guest's /run/mlmem-job and the script's working folder). Returns {"rc": exit status or None,
    "log": what the script printed, "console": the guest's console, "accel": "kvm"|"tcg"}.
    Raises Unavailable with the reason when the guest cannot be made or booted here."""
    kernel, initrd = prepare()
    os.makedirs(job_dir, exist_ok=True)
    for f in ("job.log", "job.rc"):
        if os.path.exists(os.path.join(job_dir, f)):
            os.remove(os.path.join(job_dir, f))
    with open(os.path.join(job_dir, "job.sh"), "w") as f:
        f.write(job)
    console, up, accel = "", False, "kvm"
    if kvm_usable() is None and not os.path.exists(KVM_HUNG):
        # Nested KVM can hang before the kernel prints a line: 20 s, then the emulator (and no
        # KVM on this machine's later boots).
        console, up = _boot(_qemu_cmd(kernel, initrd, job_dir, "kvm", mem_gib), timeout_s, 20)
        if not up:
            open(KVM_HUNG, "w").write(console[-2000:])
    if not up:
        accel = "tcg"
        console, up = _boot(_qemu_cmd(kernel, initrd, job_dir, "tcg", mem_gib), timeout_s, 120)
    if not up:
        raise Unavailable("the guest did not boot: " + console.strip()[-300:])
    rc_path, log_path = os.path.join(job_dir, "job.rc"), os.path.join(job_dir, "job.log")
    rc = int(open(rc_path).read().strip() or -1) if os.path.exists(rc_path) else None
    log = open(log_path, errors="replace").read() if os.path.exists(log_path) else ""
    return {"rc": rc, "log": log, "console": console, "accel": accel}


def grade_job(submission: str, out: str, lab: str = "04") -> str:
    """The job script that grades `lab` of `submission` (a path the guest sees as this machine
    does) into `out` (relative to the job folder)."""
    return (f"cd {ROOT} && echo \"guest: $(uname -r), $(ls -d /sys/devices/system/node/node* | "
            f"wc -l) NUMA nodes\" && py=$(common/find-python.sh) && "
            f"$py -m grader grade --lab {lab} --submission {submission} "
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
