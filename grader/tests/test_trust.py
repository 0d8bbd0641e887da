"""The grader's trust boundary (docs/grading.md, "Threat model"): hostile submissions, one per
class of attack, gain nothing, and honest ones never lose to another grading run."""
import csv
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import pytest

from conftest import ROOT, SANDBOX_ENV, grade
from grader.grading import build
from grader.confinement import isolation, sandbox
from grader.rules import labs, variants

pytestmark = pytest.mark.slow

LAB01, LAB03 = "lab01-cache-lines", "lab03-tensor-strides"
SKELETONS = os.path.join(ROOT, "labs")
ROOTED = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (sandbox uids)")

# Code a hostile student puts at the top of an API function: forged completion records on every
# descriptor, a forged Check log renamed over the real one, a forged full-marks report.
FORGE = r"""
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
static void forge(void)
{
    static const char *const names[] = { NAMES };
    static const char report[] = REPORT;
    char line[512];
    for (int fd = 0; fd < 32; fd++) {
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            int n = snprintf(line, sizeof line, "DONE %s %064d \n", names[i], 0);
            if (write(fd, line, (size_t)n) < 0) {}
        }
        if (write(fd, report, sizeof report - 1) < 0) {}
    }
    FILE *f = fopen("forged.xml", "w");
    if (f) {
        fputs("<?xml version=\"1.0\"?><testsuites xmlns=\"http://check.sourceforge.net/ns\">"
              "<suite><title>x</title>", f);
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            fprintf(f, "<test result=\"success\"><fn>x.c:1</fn><id>%s</id><iteration>0"
                    "</iteration><description>x</description><message>Passed</message></test>",
                    names[i]);
        fputs("</suite></testsuites>", f);
        fclose(f);
        rename("forged.xml", "check.xml");
    }
}
"""


def _forging(slug: str, file: str, signature: str, dest: str) -> str:
    """The skeleton of `slug` with FORGE called first thing in the function `signature` opens."""
    lab = labs.load(slug)
    names = ", ".join(f'"{t.name}"' for t in lab.tests)
    metrics = ", ".join(f'\\"{m.name}\\": {{\\"value\\": 1000, \\"unit\\": \\"x\\"}}'
                        for m in lab.metrics)
    report = f'"{{\\"lab\\": \\"{lab.id}\\", \\"metrics\\": {{{metrics}}}}}\\n"'
    code = FORGE.replace("NAMES", names).replace("REPORT", report)
    return variants.make(slug, dest, [{"file": file, "old": signature + "\n{",
                                       "new": code + signature + "\n{\n    forge();"}],
                         base=SKELETONS)


def test_forged_test_results_gain_nothing(tmp_path):
    """Completion records on every fd and a forged Check log: the skeleton still gets 0. From
    the student's own process (lab 01 is split: docs/grading.md) they reach neither the result
    channel nor the harness's folder, so nothing is even there to flag."""
    sub = _forging(LAB01, "src/counters.c", "size_t cl_line_size(void)", str(tmp_path / "sub"))
    g = grade(sub, "01", str(tmp_path / "out"), env=SANDBOX_ENV, extra=["--parts", "tests"])
    tests = g.tests("01")
    assert tests and sum(t["score"] for t in tests.values()) == 0, g.stdout[-2000:]
    assert "flagged" not in g.results.get("output", ""), g.results.get("output")


def test_forged_report_gains_nothing(tmp_path):
    """A full-marks report written on every fd from the student's code: no metric gains."""
    sub = _forging(LAB03, "src/copy.c",
                   "int tv_contiguous(const tv_t *v, void *dst, size_t dst_bytes)",
                   str(tmp_path / "sub"))
    g = grade(sub, "03", str(tmp_path / "out"), env=SANDBOX_ENV, extra=["--parts", "metrics"])
    metrics = g.metrics("03")
    assert metrics and all(m["score"] == 0 for m in metrics.values()), metrics


@pytest.mark.parametrize("include", ["/proc/self/cwd/solutions/{slug}/src/counters.c",
                                     "{root}/solutions/{slug}/src/counters.c"])
def test_private_files_are_out_of_the_compilers_reach(include, tmp_path):
    sub = variants.make(LAB01, str(tmp_path / "sub"), [], base=SKELETONS)
    with open(os.path.join(sub, LAB01, "src", "counters.c"), "w") as f:
        f.write(f'#include "{include.format(slug=LAB01, root=ROOT)}"\n')
    built = build.build(labs.load(LAB01), sub, tag=f"trust-{os.getpid()}")
    assert not built.ok
    assert "No such file or directory" in build.first_errors(built.log)


def _refused(tmp_path, make_file) -> str:
    sub = variants.make(LAB01, str(tmp_path / "sub"), [], base=SKELETONS)
    path = os.path.join(sub, LAB01, "src", "counters.c")
    os.unlink(path)
    make_file(path)
    built = build.build(labs.load(LAB01), sub, tag=f"trust-{os.getpid()}")
    assert not built.ok
    return build.first_errors(built.log)


def test_symlink_is_refused(tmp_path):
    target = os.path.join(ROOT, "solutions", LAB01, "src", "counters.c")
    assert "a symbolic link" in _refused(tmp_path, lambda p: os.symlink(target, p))


@ROOTED
def test_device_is_refused(tmp_path):
    assert "not a regular file" in _refused(tmp_path, lambda p: os.mknod(
        p, 0o644 | 0o020000, os.makedev(1, 5)))


def test_huge_sparse_file_is_refused(tmp_path):
    def sparse(p):
        with open(p, "wb") as f:
            f.truncate(2 * 1024 ** 3)
    assert "over the 1024 KiB" in _refused(tmp_path, sparse)


def test_compile_bomb_is_stopped_at_the_builds_limits(tmp_path):
    sub = variants.make(LAB01, str(tmp_path / "sub"), [], base=SKELETONS)
    with open(os.path.join(sub, LAB01, "src", "counters.c"), "w") as f:
        f.write('#include "/dev/zero"\n')
    built = build.build(labs.load(LAB01), sub, tag=f"trust-{os.getpid()}")
    assert not built.ok
    assert "the build was stopped at its limits" in build.first_errors(built.log)


def test_build_folders_are_held_by_one_grader(tmp_path):
    """A second grader process never gets the folder this one holds, whatever the name."""
    mine = build.hold_dir(str(tmp_path), "labs")
    assert build.hold_dir(str(tmp_path), "labs") == mine
    other = subprocess.run([sys.executable, "-c", "from grader.grading import build; print(build.hold_dir"
                            f"({str(tmp_path)!r}, 'labs'))"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.strip()
    assert other == mine + "~2"


def test_a_submission_named_reference_builds_apart_from_the_reference(tmp_path):
    sub = variants.make(LAB03, str(tmp_path / "reference"), [], base=SKELETONS)
    built = build.build(labs.load(LAB03), sub)
    assert not built.out_dir.startswith(build.REFERENCE_DIR + os.sep)


@pytest.fixture
def open_tmp():
    """A folder every uid can reach (pytest's own are private to root), removed afterwards."""
    path = tempfile.mkdtemp(prefix="mlmem-trust-")
    os.chmod(path, 0o755)
    yield pathlib.Path(path)
    shutil.rmtree(path, ignore_errors=True)


@ROOTED
def test_a_uid_with_processes_is_never_taken(monkeypatch):
    """A process of the first candidate uid (another grader's, anywhere on this kernel): the
    run takes the next uid and leaves that process alone."""
    base = int(SANDBOX_ENV["MLMEM_SANDBOX_UID"]) + 40
    holder = subprocess.Popen(["sleep", "60"], preexec_fn=lambda: (os.setgid(base),
                                                                  os.setuid(base)))
    try:
        monkeypatch.setattr(sandbox, "_candidates", lambda: [base, base + 1])
        with sandbox.rundir("trust-claim") as d:
            r = sandbox.run(["id", "-u"], sandbox.Limits(timeout_s=20), cwd=d)
        assert r.ok and r.stdout.strip() == str(base + 1), r.stdout + r.stderr
        assert holder.poll() is None, "the other grader's process was killed"
    finally:
        holder.kill()
        holder.wait()


CLAIMER = """
import sys
from grader.confinement import sandbox
base = int(sys.argv[1])
sandbox._candidates = lambda: [base, base + 1, base + 2]
with sandbox.rundir("trust-two") as d:
    r = sandbox.run(["sh", "-c", "id -u; sleep 2"], sandbox.Limits(timeout_s=30), cwd=d)
print(r.stdout.strip(), r.verdict())
"""


@ROOTED
def test_two_graders_with_other_temporary_folders_never_share_a_uid(open_tmp):
    base = int(SANDBOX_ENV["MLMEM_SANDBOX_UID"]) + 50
    procs = []
    tmp_path = open_tmp
    for k in range(2):
        tmp = tmp_path / f"tmp{k}"
        tmp.mkdir()
        os.chmod(tmp, 0o1777)
        procs.append(subprocess.Popen([sys.executable, "-c", CLAIMER, str(base)], cwd=ROOT,
                                      env={**os.environ, "TMPDIR": str(tmp)},
                                      stdout=subprocess.PIPE, text=True))
    outs = [p.communicate(timeout=120)[0].split() for p in procs]
    assert all(o[1:] == ["exit", "status", "0"] for o in outs), outs
    assert outs[0][0] != outs[1][0], outs


@pytest.mark.skipif(not isolation.current().namespaces, reason="bubblewrap cannot run here")
def test_a_daemon_dies_with_its_run():
    """A setsid daemon, started to rewrite results later, is gone when the run ends."""
    with sandbox.rundir("trust-daemon") as d:
        r = sandbox.run(["sh", "-c", "setsid sh -c 'sleep 30' >/dev/null 2>&1 & echo started"],
                        sandbox.Limits(timeout_s=20), cwd=d)
    assert r.ok and "started" in r.stdout
    out = subprocess.run(["pgrep", "-f", "sleep 30"], capture_output=True, text=True).stdout
    mine = [p for p in out.split() if os.stat(f"/proc/{p}").st_uid == sandbox.sandbox_uid()] \
        if os.geteuid() == 0 else out.split()
    assert mine == []


USER_RUN = """
from grader.confinement import sandbox
with sandbox.rundir("trust-user") as d:
    r = sandbox.run(["sh", "-c", "setsid sleep 31 & ls /root 2>&1; id -u"],
                    sandbox.Limits(timeout_s=20), cwd=d)
print(r.stdout)
"""


@ROOTED
@pytest.mark.skipif(not isolation.current().namespaces, reason="bubblewrap cannot run here")
def test_as_an_ordinary_user_namespaces_confine_and_daemons_die(open_tmp):
    tmp_path = open_tmp
    copy = tmp_path / "grader-copy"   # the repository may sit where nobody cannot read
    copy.mkdir()
    subprocess.run(["cp", "-r", os.path.join(ROOT, "grader"), str(copy)], check=True)
    subprocess.run(["chmod", "-R", "a+rX", str(copy)], check=True)
    tmp = tmp_path / "tmp"
    tmp.mkdir(mode=0o777)
    os.chmod(tmp, 0o777)
    r = subprocess.run([sys.executable, "-c", USER_RUN], cwd=str(copy), capture_output=True,
                       text=True, timeout=60, env={"PATH": os.environ["PATH"], "TMPDIR": str(tmp),
                            "PYTHONPATH": str(copy)},
                       preexec_fn=lambda: (os.setgroups([]), os.setgid(65534), os.setuid(65534)))
    assert r.returncode == 0, r.stderr
    assert "No such file or directory" in r.stdout and "65534" in r.stdout, r.stdout
    left = subprocess.run(["pgrep", "-u", "65534", "-f", "sleep 31"], capture_output=True,
                          text=True).stdout
    assert left == "", "the daemon outlived the run"


def test_batch_of_repository_clones_in_parallel_all_get_full_marks(tmp_path):
    """Three students hand in clones of the repository with the reference's files (every tree
    is called labs/); graded three at a time, each gets full marks."""
    lab = labs.load("lab09-paged-kv-cache")
    subs = tmp_path / "subs"
    for s in ("ann", "bob", "cy"):
        variants.make(lab.slug, str(subs / s / "labs"), [])
    out = tmp_path / "batch"
    proc = subprocess.run([sys.executable, "-m", "grader", "batch", str(subs), "--lab", lab.id,
                           "--jobs", "3", "--out", str(out)], cwd=ROOT, capture_output=True,
                          text=True, timeout=1500, env={**os.environ, **SANDBOX_ENV})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with open(out / "summary.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 3
    for row in rows:
        assert float(row["score"]) == float(row["max_score"]) > 0, row
