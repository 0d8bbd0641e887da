"""`make portability`: the quick start and every lab's reference, graded on bare Debian roots
(amd64, and arm64 through qemu-user) and in the dev container, as one table in
docs/portability.md. Roots are made once with debootstrap and cached in ROOTS; each run uses an
overlay on them, so the cached roots stay as debootstrap left them. Needs root, debootstrap,
qemu-user-static (arm64), Docker and the Dev Containers CLI (container). Standard library only.
    ROOTS=dir PLATFORMS="debian12-amd64 container-amd64" LABS="01 03" make portability"""
from __future__ import annotations

import argparse
import datetime
import glob
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
from grader.rules.results import Cause  # noqa: E402  (results.json's causes, named once)
from grader.reports import report  # noqa: E402  (the reader of a tests[] entry's extra_data)

MIRROR = "http://deb.debian.org/debian"
# name -> (kind, Debian suite, Debian architecture)
PLATFORMS = {"debian12-amd64": ("root", "bookworm", "amd64"),
             "debian13-amd64": ("root", "trixie", "amd64"),
             "debian12-arm64": ("root", "bookworm", "arm64"),
             "container-amd64": ("container", "bookworm", "amd64")}
# What runs inside a root, from a clone of the repository at /src; results land in /out.
INSIDE = r"""set -u
export HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
cd /root && rm -rf mlmem && git -c safe.directory='*' clone -q /src mlmem && cd mlmem || exit 1
"""
STEPS = r"""t0=$(date +%s)
{ make lab01 && make grade; } >/out/quickstart.log 2>&1; echo $? >/out/quickstart.rc
cp build/grade/results.json /out/quickstart.json 2>/dev/null
echo $(( $(date +%s) - t0 )) >/out/quickstart.s
python3 -m grader.rules.hostenv >/out/hostenv.txt 2>&1
for lab in $LABS; do
  t0=$(date +%s)
  make grade SUBMISSION=solutions LAB=$lab >/out/lab$lab.log 2>&1; echo $? >/out/lab$lab.rc
  cp build/grade/results.json /out/lab$lab.json 2>/dev/null || rm -f /out/lab$lab.json
  echo $(( $(date +%s) - t0 )) >/out/lab$lab.s
  rm -f build/grade/results.json
done
"""


@dataclass
class Cell:
    """One row of the table: a platform, what ran (a lab, "quick start", "devcontainer"), and
    what came of it. tests/metrics are (score, max, skipped points); None when not graded."""
    platform: str
    what: str
    build: str
    tests: tuple[float, float, float] | None = None
    metrics: tuple[float, float, float] | None = None
    seconds: int | None = None
    note: str = ""


def split_results(results: dict, lab: str) -> tuple[tuple, tuple, bool]:
    """A lab's unit tests and metrics in results.json: ((score, max, skipped) for the tests,
    the same for the metrics, whether the lab built). Metrics are named "labNN / performance: x";
    skipped items are those in extra_data.not_measured or whose output says "skipped". The lab
    did not build when its items say so (their cause). Each item's lab and cause are in its
    extra_data (report.entry_data)."""
    skipped = {m["name"] for m in results.get("extra_data", {}).get("not_measured", [])}
    sums = {"test": [0.0, 0.0, 0.0], "metric": [0.0, 0.0, 0.0]}
    for t in results.get("tests", []):
        if report.entry_lab(t) != lab:
            continue
        kind = "metric" if " / performance: " in t["name"] else "test"
        s = sums[kind]
        s[0] += t.get("score", 0.0)
        s[1] += t.get("max_score", 0.0)
        if t["name"] in skipped or t.get("output", "").lower().startswith("skipped"):
            s[2] += t.get("max_score", 0.0)
    built = not any(report.entry_lab(t) == lab and
                    report.entry_data(t).get("cause") in (Cause.NOT_BUILT, Cause.NO_SUBMISSION)
                    for t in results.get("tests", []))
    return tuple(sums["test"]), tuple(sums["metric"]), built


def cell_from(platform_: str, what: str, lab: str, out: str, stem: str) -> Cell:
    """The row for one graded run, from the files STEPS left in `out` (stem: "lab03")."""
    rc = _read(os.path.join(out, f"{stem}.rc"))
    secs = _read(os.path.join(out, f"{stem}.s"))
    try:
        with open(os.path.join(out, f"{stem}.json")) as f:
            results = json.load(f)
    except (OSError, ValueError):
        return Cell(platform_, what, "FAIL", None, None, int(secs) if secs.isdigit() else None,
                    _last_error(os.path.join(out, f"{stem}.log")))
    tests, metrics, built = split_results(results, lab)
    return Cell(platform_, what, "ok" if built and rc == "0" else "FAIL", tests, metrics,
                int(secs) if secs.isdigit() else None, "" if rc == "0" else f"exit {rc or '?'}")


def graded(platform_: str, out: str, labs: list[str]) -> list[Cell]:
    """The quick start's row (its note: what `make hwinfo` calls the platform) and each lab's."""
    quick = cell_from(platform_, "quick start", "01", out, "quickstart")
    env = _read(os.path.join(out, "hostenv.txt")).removeprefix("environment").strip()
    quick.note = "; ".join(filter(None, [quick.note, env.replace("|", "/")]))
    return [quick] + [cell_from(platform_, f"lab {lab}", lab, out, f"lab{lab}") for lab in labs]


def _read(path: str) -> str:
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return ""


def _last_error(log: str) -> str:
    """The line of a log that says most about a failure: the first compiler or missing-file
    error, else the last line naming an error or mlmem's own message, else the last line."""
    lines = [ln.strip() for ln in _read(log).splitlines() if ln.strip()]
    first = [ln for ln in lines if "No such file" in ln or "error:" in ln or "not found" in ln]
    last = [ln for ln in lines if "rror" in ln or "mlmem:" in ln]
    line = first[0] if first else (last or lines or ["no output"])[-1]
    return line[:100].replace("|", "/")


def fmt(part: tuple | None) -> str:
    """(47, 60, 13) -> "47/60 (13 skipped)"; None -> "-"."""
    if part is None:
        return "-"
    score, most, skipped = part
    if most == 0:
        return "-"
    return f"{score:g}/{most:g}" + (f" ({skipped:g} skipped)" if skipped else "")


HEADER = ["| platform | run | build | unit tests | metrics | s | note |",
          "|----------|-----|-------|------------|---------|---|------|"]


def row(c: Cell) -> str:
    """One line of the table."""
    return (f"| {c.platform} | {c.what} | {c.build} | {fmt(c.tests)} | {fmt(c.metrics)} "
            f"| {'' if c.seconds is None else c.seconds} | {c.note} |")


def render(cells: list[Cell]) -> str:
    """The table in Markdown: one row per platform and lab."""
    return "\n".join(HEADER + [row(c) for c in cells]) + "\n"


def _key(line: str) -> tuple[str, str]:
    """A row's name: its platform and its run, the first two cells."""
    cols = [c.strip() for c in line.strip().strip("|").split("|")]
    return (cols[0], cols[1] if len(cols) > 1 else "")


def _run_order(run: str) -> tuple[int, str]:
    """Within a platform: the dev container's start, the quick start, then the labs in order."""
    return (0 if run.startswith("devcontainer") else 1 if run == "quick start" else 2, run)


def merged(earlier: list[str], cells: list[Cell]) -> list[str]:
    """The table's rows after this run: each earlier row (a line, kept as it is) that this run
    did not redo, and this run's rows; platforms in the order they first appear in the earlier
    table (a platform this run redid wholly keeps its place), new ones after them, each one's
    rows in _run_order."""
    new = {(c.platform, c.what): row(c) for c in cells}
    rows = [line for line in earlier if _key(line) not in new] + list(new.values())
    platforms = list(dict.fromkeys([_key(r)[0] for r in earlier] + [c.platform for c in cells]))
    return sorted(rows, key=lambda r: (platforms.index(_key(r)[0]), _run_order(_key(r)[1])))


def page(rows: list[str], date: str, host: str) -> str:
    """docs/portability.md: what was run, where, when, and the table."""
    return (f"# Portability: the labs on the machines students bring\n\n"
            f"Made by `make portability`, last on {date}, on {host}; a run replaces the rows it\n"
            f"redoes and keeps the others. Each platform grades, from a clone:\n"
            f"the quick start (`make lab01 && make grade`: the skeleton, 0 points expected) and\n"
            f"every lab's reference (`make grade SUBMISSION=solutions LAB=NN`). The roots are bare\n"
            f"`debootstrap --variant=minbase` Debian; arm64 runs under qemu-user, where builds\n"
            f"and tests are real but timings are the emulator's (a metric timed against another\n"
            f"run's may still pass its gate) and every grade says NOT FOR CREDIT.\n"
            f"`container-amd64` is the dev container\n"
            f"(`.devcontainer/`, `devcontainer up` then `devcontainer exec`), with its\n"
            f"`--cap-add=SYS_NICE --security-opt seccomp=unconfined`. Skipped points are hardware\n"
            f"or permissions a platform lacks, with the reason in each lab's log; `s` is the run's\n"
            f"wall time in seconds.\n\n"
            + "\n".join(HEADER + rows) + "\n")


NOTES = "## Notes by platform"


def kept_notes(path: str) -> str:
    """The hand-written part of the page at path, from its NOTES heading on ('' if none): a new
    table replaces what is above it, never the notes."""
    text = _read(path)
    at = text.find("\n" + NOTES)
    return text[at:] + "\n" if at >= 0 else ""


def earlier_rows(path: str) -> list[str]:
    """The rows of the table on the page at path (the lines after its header, up to the first
    line that is not a row); [] if there is none."""
    lines = _read(path).split("\n" + NOTES)[0].splitlines()
    if HEADER[0] not in lines:
        return []
    rows = []
    for line in lines[lines.index(HEADER[0]) + 2:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


class Runner:
    """Makes the roots and the container, runs STEPS in each, collects the rows."""

    def __init__(self, roots: str, work: str, labs: list[str], log=print):
        self.roots, self.work, self.labs, self.log = roots, work, labs, log

    def root(self, name: str, suite: str, arch: str) -> str:
        """ROOTS/name, made by debootstrap unless it is there and marked ready (name.ready or
        name/.ready); a root being made elsewhere is waited for, up to 30 minutes."""
        path = os.path.join(self.roots, name)
        ready = lambda: os.path.exists(path + ".ready") or os.path.exists(f"{path}/.ready")
        for _ in range(180):
            if ready() or not os.path.exists(path):
                break
            self.log(f"portability: waiting for {path} to be marked ready")
            time.sleep(10)
        if ready():
            return path
        if os.path.exists(path):
            raise RuntimeError(f"{path} exists but is not marked ready ({path}.ready)")
        os.makedirs(self.roots, exist_ok=True)
        self.log(f"portability: debootstrap {suite} {arch} into {path}")
        subprocess.run(["debootstrap", "--variant=minbase", f"--arch={arch}",
                        "--include=git,make,ca-certificates", suite, path, MIRROR], check=True)
        open(path + ".ready", "w").close()
        return path

    def run_root(self, name: str, suite: str, arch: str) -> list[Cell]:
        lower = self.root(name, suite, arch)
        base = os.path.join(self.work, name)
        shutil.rmtree(base, ignore_errors=True)
        out, upper, wdir, merged = (os.path.join(base, d) for d in ("out", "upper", "w", "m"))
        for d in (out, upper, wdir, merged):
            os.makedirs(d)
        with open(os.path.join(out, "inside.sh"), "w") as f:
            f.write(INSIDE + f"LABS='{' '.join(self.labs)}'\n" + STEPS)
        mount = (f"set -e; mount -t overlay overlay -o lowerdir={lower},upperdir={upper},"
                 f"workdir={wdir} {merged}; cd {merged}; mount -t proc proc proc; "
                 f"mount --rbind /sys sys; mount --rbind /dev dev; "
                 f"mkdir -p src out; mount --bind {REPO} src; mount --bind {out} out; "
                 f"cp -L /etc/resolv.conf etc/resolv.conf; chroot . /bin/bash /out/inside.sh")
        self.log(f"portability: {name}: grading in an overlay on {lower}")
        subprocess.run(["unshare", "--mount", "--propagation", "private", "--fork",
                        "sh", "-c", mount], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        shutil.rmtree(upper, ignore_errors=True)
        return self.collect(name)

    def base_image(self, arch: str) -> str:
        """"" where debian:12 can be pulled; else a local image `docker import`ed from the
        debian12 root (mlmem-base:debian12-ARCH), which the dev container then builds on."""
        pulled = subprocess.run(["docker", "pull", "-q", f"--platform=linux/{arch}", "debian:12"],
                                capture_output=True, timeout=300)
        if pulled.returncode == 0:
            return ""
        tag = f"mlmem-base:debian12-{arch}"
        have = subprocess.run(["docker", "image", "inspect", tag], capture_output=True)
        if have.returncode != 0:
            root = self.root(f"debian12-{arch}", "bookworm", arch)
            self.log(f"portability: no image registry; docker import {root} as {tag}")
            tar = subprocess.Popen(["tar", "-C", root, "--numeric-owner", "-c", "."],
                                   stdout=subprocess.PIPE)
            subprocess.run(["docker", "import", f"--platform=linux/{arch}", "-", tag],
                           stdin=tar.stdout, check=True, capture_output=True)
            tar.wait()
        return tag

    def run_container(self, name: str, arch: str) -> list[Cell]:
        base = os.path.join(self.work, name)
        shutil.rmtree(base, ignore_errors=True)
        clone, out = os.path.join(base, "mlmem"), os.path.join(base, "out")
        os.makedirs(out)
        subprocess.run(["git", "clone", "-q", REPO, clone], check=True)
        env = {**os.environ, "MLMEM_BASE_IMAGE": self.base_image(arch)}
        t0 = time.time()
        with open(os.path.join(out, "up.log"), "w") as log:
            up = subprocess.run(["devcontainer", "up", "--workspace-folder", clone], env=env,
                                stdout=log, stderr=subprocess.STDOUT)
            lab03 = subprocess.run(["devcontainer", "exec", "--workspace-folder", clone, "make",
                                    "lab03"], stdout=log, stderr=subprocess.STDOUT)
        for stem, value in (("up.rc", up.returncode), ("lab03.rc", lab03.returncode),
                            ("up.s", int(time.time() - t0))):
            with open(os.path.join(out, stem), "w") as f:
                f.write(f"{value}\n")
        if up.returncode == 0:
            steps = (STEPS.replace("/out/", "/workspaces/mlmem/.portability/")
                     .replace("$LABS", " ".join(self.labs)))
            subprocess.run(["devcontainer", "exec", "--workspace-folder", clone, "bash", "-c",
                            "mkdir -p .portability && " + steps],
                           stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
            for f in glob.glob(os.path.join(clone, ".portability", "*")):
                shutil.copy(f, out)
        ids = subprocess.run(["docker", "ps", "-aq", "--filter",
                              f"label=devcontainer.local_folder={clone}"],
                             capture_output=True, text=True).stdout.split()
        if ids:
            subprocess.run(["docker", "rm", "-f", *ids], capture_output=True)
        return self.collect(name)

    def collect(self, name: str) -> list[Cell]:
        """The rows from what a run of `name` left in WORK/name/out (--collect: no new run)."""
        out = os.path.join(self.work, name, "out")
        if PLATFORMS[name][0] != "container":
            return graded(name, out, self.labs)
        up, lab03, secs = (_read(os.path.join(out, f)) for f in ("up.rc", "lab03.rc", "up.s"))
        ok = up == "0" and lab03 == "0"
        cell = Cell(name, "devcontainer up, exec make lab03", "ok" if ok else "FAIL",
                    seconds=int(secs) if secs.isdigit() else None,
                    note="" if ok else f"up exit {up or '?'}, make lab03 exit {lab03 or '-'}: "
                    f"{_last_error(os.path.join(out, 'up.log'))}")
        return [cell] + (graded(name, out, self.labs) if up == "0" else [])

    def run(self, name: str) -> list[Cell]:
        kind, suite, arch = PLATFORMS[name]
        if kind == "container":
            return self.run_container(name, arch)
        return self.run_root(name, suite, arch)


def all_labs() -> list[str]:
    return sorted(os.path.basename(p)[3:5] for p in glob.glob(os.path.join(REPO, "labs", "lab[0-9][0-9]-*")))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--roots", default=os.path.join(REPO, "build", "roots"))
    ap.add_argument("--platforms", default=" ".join(PLATFORMS))
    ap.add_argument("--labs", default="")
    ap.add_argument("--out", default=os.path.join(REPO, "docs", "portability.md"))
    ap.add_argument("--collect", action="store_true",
                    help="no new run: the table from what earlier runs left in build/portability")
    args = ap.parse_args(argv)
    for var in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):  # make's LABS= would reach the roots' make
        os.environ.pop(var, None)
    names = args.platforms.split()
    unknown = [n for n in names if n not in PLATFORMS]
    if unknown:
        print(f"portability: unknown platform(s) {' '.join(unknown)}; known: {' '.join(PLATFORMS)}",
              file=sys.stderr)
        return 2
    if os.geteuid() != 0 and not args.collect:
        print("portability: needs root (debootstrap, mounts, chroot, docker)", file=sys.stderr)
        return 2
    labs = [lab.zfill(2) for lab in args.labs.split()] or all_labs()
    runner = Runner(os.path.abspath(args.roots), os.path.join(REPO, "build", "portability"), labs)
    cells: list[Cell] = []
    for name in names:
        cells += runner.collect(name) if args.collect else runner.run(name)
        print(render([c for c in cells if c.platform == name]), flush=True)
    date = datetime.date.today().isoformat()
    host = f"{platform.machine()} Linux {platform.release().split('-')[0]}, {os.cpu_count()} CPUs"
    text = page(merged(earlier_rows(args.out), cells), date, host)
    print(text)
    text += kept_notes(args.out)
    with open(args.out, "w") as f:
        f.write(text)
    print(f"portability: wrote {os.path.relpath(args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
