"""Student code cannot reach the harness: a submission that defines C library, pthread or timer
functions changes only its own calls (common/student-object.sh keeps every name the lab's
headers do not declare local to the student's object), constructors in student code are
refused, and a benchmark whose memcpy, clock_gettime, ... are defined inside the program
refuses to score (common/mm_bench.c).

Cost: every lab is built (the reference with the hostile file; the plain reference's build is
shared with test_native.py); the labs whose timed metrics are scored against the reference on
this machine and whose baseline is memcpy (03, 08) are graded with metrics under the bench lock;
the bench's own check runs on a small program instead of a lab's benchmark."""
import fcntl
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, grade
from grader.grading import build
from grader.rules import labs, variants

pytestmark = pytest.mark.slow

SLUGS = labs.slugs()
LOCK = "/tmp/mlmem-bench.lock"

# Appended to the reference's first editable file (C; lab 12's kernels.cu gets HOSTILE_CU). Its
# memcpy and memmove copy big buffers three times (the baselines of labs 03, 06 and 08 are one
# big memcpy); memset, clock_gettime and pthread_create stall first; mm_now_ns
# (common/mm_timer.c) lies. Linked program-wide, they would slow the baseline or the timer; kept
# to the student's own calls, they gain nothing.
HOSTILE = r"""
/* ---- added by the integrity test: C library and timer functions defined here ---- */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>


static void hostile_stall(void)
{
    struct timespec ts = { 0, 200000 };
    syscall(SYS_nanosleep, &ts, NULL);
}

void *memcpy(void *__restrict d, const void *__restrict s, size_t n)
{
    void *(*real)(void *, const void *, size_t);
    *(void **)&real = dlsym(RTLD_NEXT, "memcpy");
    for (int k = 0; k < (n >= (1u << 20) ? 3 : 1); k++)
        real(d, s, n);
    return d;
}

void *memmove(void *d, const void *s, size_t n)
{
    void *(*real)(void *, const void *, size_t);
    *(void **)&real = dlsym(RTLD_NEXT, "memmove");
    for (int k = 0; k < (n >= (1u << 20) ? 3 : 1); k++)
        real(d, s, n);
    return d;
}

void *memset(void *d, int c, size_t n)
{
    if (n >= (1u << 20))
        hostile_stall();
    volatile unsigned char *p = (volatile unsigned char *)d;
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)c;
    return d;
}

int clock_gettime(clockid_t c, struct timespec *ts)
{
    hostile_stall();
    return (int)syscall(SYS_clock_gettime, c, ts);
}

int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
    int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    *(void **)&real = dlsym(RTLD_NEXT, "pthread_create");
    hostile_stall();
    return real(t, a, fn, arg);
}

uint64_t mm_now_ns(void);
uint64_t mm_now_ns(void)
{
    struct timespec ts;
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 500000000u + (uint64_t)ts.tv_nsec / 2;
}
"""
# Lab 12's kernels.cu may include no system header (common/student-cu.sh): the same names,
# declared by hand, with bodies that lie (a memcpy that copies nothing, a timer stuck at 0).
HOSTILE_CU = r"""
/* ---- added by the integrity test: C library and timer functions defined here ---- */
struct timespec;
extern "C" {
void *memcpy(void *__restrict d, const void *__restrict s, size_t n) { (void)s, (void)n; return d; }
void *memmove(void *d, const void *s, size_t n) { (void)s, (void)n; return d; }
void *memset(void *d, int c, size_t n) { (void)c, (void)n; return d; }
int clock_gettime(int c, struct timespec *ts) { (void)c, (void)ts; return -1; }
int pthread_create(unsigned long *t, const void *a, void *(*fn)(void *), void *arg)
{
    (void)t, (void)a, (void)fn, (void)arg;
    return 11;
}
uint64_t mm_now_ns(void) { return 0; }
}
"""
HOSTILE_NAMES = {"memcpy", "memmove", "memset", "clock_gettime", "pthread_create", "mm_now_ns"}
GRADED = ("03", "08")   # timed metrics scored against the reference here; the baseline is memcpy


TAG = f"integrity-{os.getpid()}"


@pytest.fixture(scope="module", autouse=True)
def _drop_builds():
    """The builds of this module's submissions go when it ends."""
    yield
    shutil.rmtree(os.path.join(build.BUILD_DIR, "grade", TAG), ignore_errors=True)


def hostile(slug: str, dest: str) -> str:
    lab = labs.load(slug)
    text = HOSTILE_CU if lab.editable[0].endswith(".cu") else HOSTILE
    return variants.make(slug, dest, [{"file": lab.editable[0], "append": text}])


def nm_globals(path: str) -> set[str]:
    out = subprocess.run(["nm", "-g", "--defined-only", path], capture_output=True, text=True,
                         check=True).stdout
    return {f[2] for f in (l.split() for l in out.splitlines()) if len(f) >= 3}


def student_objects(lab, built) -> list[str]:
    return [os.path.join(built.out_dir, "student-obj",
                         rel[:-2] + ".o" if rel.endswith(".c") else rel + "-emu.o")
            for rel in lab.editable if rel.endswith((".c", ".cu"))]


@pytest.mark.parametrize("slug", SLUGS)
def test_reference_keeps_its_api(slug):
    """The reference builds, and its student object exports every global name its editable files
    define (all of them are the lab's declared API) and nothing else."""
    lab = labs.load(slug)
    built = build.build(lab, os.path.join(ROOT, "solutions"), werror=True, tag="werror-solutions")
    assert built.ok, build.first_errors(built.log, 20)
    defined = set().union(*(nm_globals(o) for o in student_objects(lab, built)))
    exported = nm_globals(os.path.join(built.out_dir, build.STUDENT_OBJ))
    assert exported == defined, f"lost from the API: {sorted(defined - exported)}"


@pytest.mark.parametrize("slug", SLUGS)
def test_hostile_definitions_stay_local(slug, tmp_path):
    """The reference plus C library, pthread and timer functions builds (mm_now_ns too: it no
    longer clashes with common/mm_timer.c's), its student object exports none of them, and in the
    benchmark and the test program they are local symbols beside the system's."""
    lab = labs.load(slug)
    built = build.build(lab, hostile(slug, str(tmp_path / TAG)), tag=TAG)
    assert built.ok, build.first_errors(built.log, 20)
    leaked = HOSTILE_NAMES & nm_globals(os.path.join(built.out_dir, build.STUDENT_OBJ))
    assert leaked == set(), f"the student object exports {sorted(leaked)}"
    for prog in ("check_lab", "bench"):
        path = os.path.join(built.out_dir, prog)
        if os.path.exists(path):
            exported = (HOSTILE_NAMES - {"mm_now_ns"}) & nm_globals(path)
            assert exported == set(), f"{prog} defines {sorted(exported)} for the whole program"


@pytest.mark.parametrize("lab_id", GRADED)
def test_hostile_definitions_gain_nothing(lab_id, tmp_path):
    """Graded with metrics, the hostile submission scores no higher than the reference on any
    timed metric (each is scored as a fraction of the reference's figure in the same run)."""
    lab = labs.select(lab_id)[0]
    sub = hostile(lab.slug, str(tmp_path / TAG))
    with open(LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        g = grade(sub, lab.id, str(tmp_path / "out"), extra=["--parts", "metrics"])
    metrics = g.metrics(lab.id)
    assert set(metrics) == {m.name for m in lab.metrics}
    for m in lab.metrics:
        out = metrics[m.name]["output"]
        if not m.vs_reference or "SKIPPED" in out or metrics[m.name].get("status") == "skipped":
            continue
        frac = re.search(r"([\d.]+) of the reference", out)
        assert frac, out
        assert float(frac.group(1)) < 1.5, f"{m.name} gained: {out}"


def test_constructors_refused(tmp_path):
    sub = variants.make("lab02-effective-latency", str(tmp_path / "sub"), [{
        "file": "src/amat.c",
        "append": "\nvolatile int early_ran;\n"
                  "__attribute__((constructor)) static void early(void) { early_ran = 1; }\n"}])
    built = build.build(labs.load("lab02-effective-latency"), sub, tag=TAG)
    assert not built.ok
    assert "src/amat.c: error: constructors and destructors" in build.first_errors(built.log)


# Lab 12's kernels run on the kernel emulator, which counts their memory traffic: a gather that
# also reads host memory that is none of its buffers (where an oracle would be), or that writes
# its answer with memcpy (no recorder sees it), loses every gather test and gather_sectors.
LAB12 = "lab12-gpu-memory"
READS_HOST = """float host_table[4096];
"""
# The reference gather's two stores (rounds of four grid strides, then the rest one at a time).
ROUND_STORE = "            out[e + k * stride] = v[k];\n"
TAIL_STORE = "        out[e] = table[source_of(ids, e, dim)];\n"
# The whole answer copied by thread 0 where no instrumented store sees it, in place of each store.
COPY_ALL = """{
                for (size_t m = 0; m < (size_t)n_ids; m++)
                    __builtin_memcpy(out + m * dim, table + (size_t)ids[m] * dim,
                                     (size_t)dim * sizeof(float));
            }
"""
MEMCPY_ANSWER = [
    {"file": "src/kernels.cu", "old": ROUND_STORE,
     "new": "            if (e + k * stride == 0) " + COPY_ALL + "            else\n"
            "                (void)v[k];\n"},
    {"file": "src/kernels.cu", "old": TAIL_STORE, "new": "        if (e == 0) " + COPY_ALL}]


def _gather_items(tmp_path, patches) -> dict[str, dict]:
    """Lab 12's reference with patches, graded through the grader (tests and benchmark): its
    gather tests and gather_sectors."""
    sub = variants.make(LAB12, str(tmp_path / "sub"), patches)
    g = grade(sub, "12", str(tmp_path / "out"))
    items = {n: t for n, t in g.tests("12").items() if n.startswith("test_gather")}
    items.update({n: m for n, m in g.metrics("12").items() if n == "gather_sectors"})
    assert len(items) == 5, items
    return items


@pytest.mark.lab("12")
def test_kernel_reading_host_memory_gains_nothing(tmp_path):
    items = _gather_items(tmp_path, [
        {"file": "src/kernels.cu", "old": '#include "gpu_memory.h"\n',
         "new": '#include "gpu_memory.h"\n' + READS_HOST},
        {"file": "src/kernels.cu", "old": ROUND_STORE,
         "new": "            out[e + k * stride] = v[k] + host_table[e % 4096];\n"},
        {"file": "src/kernels.cu", "old": TAIL_STORE,
         "new": "        out[e] = table[source_of(ids, e, dim)] + host_table[e % 4096];\n"}])
    assert all(t["score"] == 0 for t in items.values()), items
    assert all("outside its buffers" in t["output"] for t in items.values()), items


@pytest.mark.lab("12")
def test_kernel_writing_its_answer_unseen_gains_nothing(tmp_path):
    items = _gather_items(tmp_path, MEMCPY_ANSWER)
    assert all(t["score"] == 0 for t in items.values()), items
    assert all(re.search("no store of (your|the) kernel wrote", t["output"])
               for t in items.values()), items


BENCH_MAIN = r"""
#include <stdio.h>
#include <string.h>
#include "mm_bench.h"
int main(void)
{
    static char a[64], b[64];
    memcpy(a, b, sizeof a);
    mm_json_t j;
    mm_json_begin(&j, mm_bench_output());
    mm_bench_begin(&j, "00");
    mm_bench_metric(&j, "measured", 2.0, "x", "d");
    mm_bench_skip(&j, "skipped", "no effect");
    mm_bench_end_metrics(&j);
    mm_json_end(&j);
    return 0;
}
"""
INTERPOSER = r"""
#include <dlfcn.h>
#include <stddef.h>
void *memcpy(void *__restrict d, const void *__restrict s, size_t n)
{
    void *(*real)(void *, const void *, size_t);
    *(void **)&real = dlsym(RTLD_NEXT, "memcpy");
    return real(d, s, n);
}
"""


def _bench_program(tmp_path, name: str, sources: list[str], cc: str, flags: list[str]) -> dict:
    srcs = [os.path.join(ROOT, "common", f) for f in (
        "mm_bench.c", "harness/mm_bench_report.c", "harness/mm_interpose.c", "mm_json.c",
        "mm_timer.c", "harness/mm_seal.c", "mm_confine.c")]
    for i, text in enumerate(sources):
        path = tmp_path / f"{name}{i}.c"
        path.write_text(text)
        srcs.append(str(path))
    exe = str(tmp_path / name)
    subprocess.run([cc, "-std=gnu11", "-O2", "-D_GNU_SOURCE", "-pthread", *flags,
                    "-I" + os.path.join(ROOT, "common"),
                    "-I" + os.path.join(ROOT, "common", "harness"), "-o", exe, *srcs, "-ldl", "-lm",
                    "-lseccomp", "-lcrypto"],
                   check=True, capture_output=True, text=True)
    res = subprocess.run([exe], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    return __import__("json").loads(res.stdout)["metrics"]


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_bench_refuses_an_interposed_library(cc, tmp_path):
    """A program that defines memcpy itself (what a student file could do without the build's
    localization) gets every metric failed, with the reason; a clean one is scored as before."""
    clean = _bench_program(tmp_path, "clean", [BENCH_MAIN], cc, [])
    assert clean == {"measured": {"value": 2.0, "unit": "x", "detail": "d"},
                     "skipped": {"skipped": "no effect"}}
    bad = _bench_program(tmp_path, "bad", [BENCH_MAIN, INTERPOSER], cc, [])
    assert set(bad) == {"measured", "skipped"}
    for entry in bad.values():
        assert "refuses to score: memcpy is defined inside the program" in entry["error"]


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_bench_check_quiet_under_asan(cc, tmp_path):
    """ASan's run-time defines memcpy and friends on purpose (inside the program with clang's
    static runtime): sanitizer builds are not checked (and never benchmarked by the grader)."""
    got = _bench_program(tmp_path, "asan", [BENCH_MAIN], cc,
                         ["-fsanitize=address,undefined", "-fno-omit-frame-pointer"])
    assert got["measured"]["value"] == 2.0


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
