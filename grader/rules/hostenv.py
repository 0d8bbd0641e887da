"""Where mlmem runs: GitHub Codespaces, WSL, a container, a virtual machine, a CPU emulator
(qemu-user, Rosetta), or none of these. `make hwinfo` prints it; each finding names the sign it
was read from. The grader reads it here, outside its sandbox, where these signs are visible.
`python -m grader.rules.hostenv` prints one line."""
from __future__ import annotations

import os
import sys

from .files import read_text

# Words in /proc/1/cgroup that mean the first process is in a container (cgroup v1; v2 shows "/").
CGROUP_WORDS = ("kubepods", "docker", "containerd", "libpod", "lxc")
# (DMI file, words it holds, the hypervisor's name); the first match wins.
DMI_SIGNS = (("product_name", "KVM", "KVM"), ("sys_vendor", "QEMU", "QEMU"),
             ("sys_vendor", "VMware", "VMware"), ("product_name", "VirtualBox", "VirtualBox"),
             ("product_name", "Virtual Machine", "Hyper-V"), ("sys_vendor", "Xen", "Xen"),
             ("sys_vendor", "Parallels", "Parallels"), ("sys_vendor", "Apple Inc.", "Apple"),
             ("product_name", "Google Compute Engine", "Google Compute Engine"),
             ("sys_vendor", "Amazon EC2", "Amazon EC2"), ("sys_vendor", "BHYVE", "bhyve"))
# ELF e_machine -> the kernel's name for that architecture (/proc/sys/kernel/arch).
ELF_ARCH = {62: "x86_64", 3: "i686", 183: "aarch64", 40: "arm", 243: "riscv64", 21: "ppc64le",
            22: "s390x"}
# Programs a kernel of one architecture runs natively besides its own.
NATIVE_COMPAT = {("x86_64", "i686"), ("aarch64", "arm")}
# How many times longer the course's programs may take under a CPU emulator than on hardware
# (qemu-user runs them 10-30x slower; lab 08's exhaustive fp32 tests, in software floating point,
# at the top of that): the grader's time limits are multiplied by it there, and only there.
EMULATED_SLOWDOWN = 30.0


def _read(root: str, path: str) -> str:
    """path (absolute, as on the machine) read under root, stripped; '' if unreadable."""
    return read_text(os.path.join(root, path.lstrip("/"))).strip()


def _exists(root: str, path: str) -> bool:
    return os.path.lexists(os.path.join(root, path.lstrip("/")))


def codespaces(env: dict) -> str | None:
    """GitHub Codespaces sets CODESPACES=true in every shell of a codespace."""
    return "CODESPACES=true" if env.get("CODESPACES") == "true" else None


def wsl(root: str = "/") -> str | None:
    """WSL's kernels name Microsoft in their release ("5.15.153.1-microsoft-standard-WSL2")."""
    rel = _read(root, "/proc/sys/kernel/osrelease") or _read(root, "/proc/version")
    if "microsoft" not in rel.lower() and "wsl" not in rel.lower():
        return None
    two = "wsl2" in rel.lower() or "microsoft-standard" in rel.lower()
    return f"{'WSL2' if two else 'WSL1'} (kernel {rel.split()[0]})"


def container(root: str = "/") -> str | None:
    """The container engine, from the files engines leave or the first process's cgroup."""
    if _exists(root, "/.dockerenv"):
        return "Docker (/.dockerenv)"
    if _exists(root, "/run/.containerenv"):
        return "Podman (/run/.containerenv)"
    kind = _read(root, "/run/systemd/container")
    if kind:
        return f"{kind} (/run/systemd/container)"
    cgroup = _read(root, "/proc/1/cgroup")
    word = next((w for w in CGROUP_WORDS if w in cgroup), None)
    return f"{word} (/proc/1/cgroup)" if word else None


def vm(root: str = "/") -> str | None:
    """The hypervisor, from DMI, /sys/hypervisor, an Arm virtual board's device tree or the x86
    CPU flag `hypervisor`; a bare-metal cloud instance (".metal") is no VM."""
    product = _read(root, "/sys/class/dmi/id/product_name")
    for name, words, hypervisor in DMI_SIGNS:
        if words in _read(root, f"/sys/class/dmi/id/{name}") and not product.endswith("metal"):
            return f"{hypervisor} (DMI {name})"
    kind = _read(root, "/sys/hypervisor/type")
    if kind:
        return f"{kind} (/sys/hypervisor/type)"
    if "linux,dummy-virt" in _read(root, "/proc/device-tree/compatible"):
        return "QEMU/KVM virt board (device tree)"
    for line in _read(root, "/proc/cpuinfo").splitlines():
        key, _, val = line.partition(":")
        if key.strip() == "flags":
            return "a hypervisor (CPU flag `hypervisor`)" if "hypervisor" in val.split() else None
    return None


def program_arch(exe: str = sys.executable) -> str:
    """The architecture this program is built for, from its ELF header (uname can be faked)."""
    try:
        with open(os.path.realpath(exe), "rb") as f:
            head = f.read(20)
    except OSError:
        return ""
    if len(head) < 20 or head[:4] != b"\x7fELF":
        return ""
    return ELF_ARCH.get(int.from_bytes(head[18:20], "little" if head[5] == 1 else "big"), "")


def kernel_arch(root: str = "/") -> str:
    """The kernel's architecture: /proc/sys/kernel/arch (Linux 6.1+), else the family /proc/cpuinfo
    describes (an emulator may pass the host's through)."""
    arch = _read(root, "/proc/sys/kernel/arch")
    if arch:
        return arch
    info = _read(root, "/proc/cpuinfo")
    if "vendor_id" in info:
        return "x86_64"
    return "aarch64" if "CPU implementer" in info else ""


def emulator(root: str = "/", exe: str = sys.executable) -> str | None:
    """Programs of one architecture run by an emulator on a kernel of another: qemu-user (an
    arm64 root on x86-64), Rosetta or FEX (x86-64 programs on Apple Silicon's arm64 Linux)."""
    prog, kern = program_arch(exe), kernel_arch(root)
    if not prog or not kern or prog == kern or (kern, prog) in NATIVE_COMPAT:
        return None
    tool = os.path.basename(_readlink(root, "/proc/thread-self/exe"))
    how = tool if tool.startswith(("qemu-", "FEX", "rosetta")) else "an emulator"
    return f"{prog} programs on this {kern} kernel, run by {how}"


def time_scale(root: str = "/", exe: str = sys.executable) -> float:
    """What the grader multiplies its time limits by on this machine: EMULATED_SLOWDOWN where a
    CPU emulator runs the programs (emulator()), else 1 (real hardware keeps its limits)."""
    return EMULATED_SLOWDOWN if emulator(root, exe) else 1.0


def _readlink(root: str, path: str) -> str:
    try:
        return os.readlink(os.path.join(root, path.lstrip("/")))
    except OSError:
        return ""


def detect(root: str = "/", env: dict | None = None, exe: str = sys.executable) -> list[tuple[str, str]]:
    """What this machine is, outermost first: (kind, the sign) for each of codespaces, wsl,
    container, vm, emulator that shows; an empty list on bare hardware."""
    env = os.environ if env is None else env
    found = [("Codespaces", codespaces(env)), ("WSL", wsl(root)), ("container", container(root)),
             ("virtual machine", vm(root)), ("emulated CPU", emulator(root, exe))]
    return [(kind, sign) for kind, sign in found if sign]


def describe(found: list[tuple[str, str]]) -> str:
    """The findings as one phrase, e.g. "container: Docker (/.dockerenv); virtual machine: ..."."""
    if not found:
        return "bare hardware (no sign of a container, VM, WSL or emulator)"
    return "; ".join(f"{kind}: {sign}" for kind, sign in found)


if __name__ == "__main__":
    print(f"{'environment':<16}{describe(detect())}")
