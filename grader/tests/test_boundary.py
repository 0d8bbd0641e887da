"""The call boundary (docs/grading.md, "The two processes"): a split lab's student code runs in a
program of its own, and what a student who has read the grader does from inside that program
gains nothing. One hostile submission per class of the fourth round's attacks, each graded
before and after; what the kernel refuses is tested in common/selftest/tests/
check_student_confine.c."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT, SANDBOX_ENV, grade
from grader.confinement import boundary
from grader.grading import bench, build, checkrun
from grader.rules import labs, variants

pytestmark = pytest.mark.slow

LAB01, LAB02 = "lab01-cache-lines", "lab02-effective-latency"
LAB04, LAB06 = "lab04-numa-binding", "lab06-mmap-datasets"
HOSTILE = os.path.join(ROOT, "grader", "tests", "data", "hostile")
ROOTED = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (sandbox uids)")
SPLIT = [s for s in labs.slugs() if os.path.isfile(os.path.join(ROOT, "labs", s, "calls.toml"))]
# What only the harness holds: test logic, the seal, the benchmark's report, Check.
HARNESS_NAMES = ("mm_test_reached_end", "mm_seal_record", "mm_seal_init", "mm_bench_report",
                 "srunner_run_all", "mm_call_run")


def _with_prologue(tree: str, name: str, dest: str) -> str:
    """Lab 01 of `tree` (labs or solutions) with grader/tests/data/hostile/<name>.c run first
    thing in cl_line_size."""
    with open(os.path.join(HOSTILE, name + ".c")) as f:
        code = f.read()
    sig = "size_t cl_line_size(void)"
    return variants.make(LAB01, dest, [{"file": "src/counters.c", "old": sig + "\n{",
                                        "new": code + sig + "\n{\n    hostile();"}],
                         base=os.path.join(ROOT, tree))


def _tests_score(sub: str, out: str, env: dict | None = None, extra=()) -> float:
    g = grade(sub, "01", out, env={**SANDBOX_ENV, **(env or {})},
              extra=["--parts", "tests", *extra])
    return sum(t["score"] for t in g.tests("01").values())


def _transcript(sub: str, tag: str, slug: str = LAB01) -> str:
    """The test program's transcript for lab `slug` (01) of `sub`, the student's own output
    included."""
    lab = labs.load(slug)
    built = build.build(lab, sub, tag=tag)
    assert built.ok, build.first_errors(built.log)
    _, transcript, _ = checkrun.run_tests(lab, os.path.join(built.out_dir, "check_lab"),
                                          f"boundary-{tag}", None)
    return transcript


@pytest.mark.parametrize("slug", SPLIT)
def test_student_program_holds_nothing_of_the_harness(slug):
    """No test, seal, report or Check in the program the student's code runs in."""
    built = build.build(labs.load(slug), os.path.join(ROOT, "labs"), tag="boundary-nm")
    assert built.ok, build.first_errors(built.log)
    assert boundary.split(built.out_dir)
    names = subprocess.run(["nm", os.path.join(built.out_dir, boundary.STUDENT_PROGRAM)],
                           capture_output=True, text=True, check=True).stdout
    found = [n for n in HARNESS_NAMES if f" {n}\n" in names]
    assert not found, f"the student's program holds {found}"


def test_harness_found_by_symbol_table_gains_nothing(tmp_path):
    """The seal and mm_test_reached_end looked up by symbol table and load bias: not there."""
    sub = _with_prologue("labs", "symtab", str(tmp_path / "sub"))
    assert _tests_score(sub, str(tmp_path / "out")) == 0
    out = _transcript(sub, "boundary-symtab")
    assert "hostile: mm_test_reached_end absent" in out, out[-2000:]
    assert "found" not in out.split("--- your code's output ---")[-1], out[-2000:]


@pytest.mark.parametrize("call", ['#include "mm_seal.h"\nstatic void hostile(void) '
                                  '{ mm_seal_record("DONE", "test_x", ""); }\n',
                                  'void mm_test_reached_end(void);\nstatic void hostile(void) '
                                  '{ mm_test_reached_end(); }\n'])
def test_harness_calls_are_refused_at_build(call, tmp_path):
    """The seal's and the test harness's functions called by name: the build refuses."""
    sig = "size_t cl_line_size(void)"
    sub = variants.make(LAB01, str(tmp_path / "sub"), [
        {"file": "src/counters.c", "old": sig + "\n{", "new": call + sig + "\n{\n    hostile();"}],
        base=os.path.join(ROOT, "labs"))
    built = build.build(labs.load(LAB01), sub, tag="boundary-call")
    assert not built.ok
    assert "off limits" in build.first_errors(built.log), built.log[-2000:]


def test_ifunc_resolver_is_refused(tmp_path):
    """An IFUNC resolver would run inside the dynamic loader before main: refused at build."""
    code = ("static size_t impl(void) { return 64; }\n"
            "static size_t (*pick(void))(void) { return impl; }\n"
            "size_t cl_line_size(void) __attribute__((ifunc(\"pick\")));\n")
    sig = "size_t cl_line_size(void)\n{"
    sub = variants.make(LAB01, str(tmp_path / "sub"), [{"file": "src/counters.c", "old": sig,
                                                        "new": code + "size_t unused(void)\n{"}],
                        base=os.path.join(ROOT, "labs"))
    built = build.build(labs.load(LAB01), sub, tag="boundary-ifunc")
    assert not built.ok
    assert "indirect function" in build.first_errors(built.log), built.log[-2000:]


@ROOTED
@pytest.mark.parametrize("tree", ["labs", "solutions"])
def test_reaching_out_of_the_process_gains_nothing(tree, tmp_path):
    """A child signalling the harness, signals to all, F_SETOWN, an interval timer, SysV memory
    (SHM_EXEC), io_uring, a user namespace: each refused, and the grade is the one the same code
    gets without them."""
    plain = _tests_score(os.path.join(ROOT, tree), str(tmp_path / "plain"))
    sub = _with_prologue(tree, "reach", str(tmp_path / "sub"))
    assert _tests_score(sub, str(tmp_path / "out")) == plain
    out = _transcript(sub, f"boundary-reach-{tree}")
    for what in ("fork", "kill(-1, SIGSTOP)", "F_SETOWN", "setitimer", "shmget",
                 "io_uring_setup", "unshare(CLONE_NEWUSER)"):
        assert f"hostile: {what} -> -1" in out, (what, out[-3000:])


def test_folder_link_to_the_reference_is_refused(tmp_path):
    """A lab folder that is a link to the reference's: refused, with the reason, and 0."""
    sub = tmp_path / "sub"
    sub.mkdir()
    os.symlink(os.path.join(ROOT, "solutions", LAB01), sub / LAB01)
    built = build.build(labs.load(LAB01), str(sub), tag="boundary-link")
    assert not built.ok and "symbolic link to a folder" in built.log
    assert _tests_score(str(sub), str(tmp_path / "out")) == 0


@ROOTED
def test_sysv_leftovers_are_removed_and_reported(tmp_path):
    """Where the run has no IPC namespace of its own, a segment the program leaves is removed
    after it, and the run says so."""
    prog = tmp_path / "leak"
    src = tmp_path / "leak.c"
    src.write_text("#include <sys/shm.h>\nint main(void) { return shmget(IPC_PRIVATE, 1 << 20, "
                   "IPC_CREAT | 0600) < 0; }\n")
    subprocess.run(["cc", "-o", str(prog), str(src)], check=True)
    code = ("import sys; from grader.confinement import sandbox\n"
            "with sandbox.rundir('ipc', sys.argv[1]) as d:\n"
            "    r = sandbox.run([d + '/leak'], sandbox.Limits(timeout_s=30), cwd=d,"
            " env=sandbox.base_env(d))\n"
            "    print(r.returncode, r.removed_ipc)\n")
    res = subprocess.run([sys.executable, "-c", code, str(prog)], cwd=ROOT, capture_output=True,
                         text=True, env={**os.environ, **SANDBOX_ENV, "MLMEM_NO_NAMESPACES": "1"})
    assert res.stdout.startswith("0 ['shared memory segment"), res.stdout + res.stderr
    assert "still there" not in res.stdout


def test_staff_seed_and_hidden_tests_are_not_in_the_students_process(tmp_path):
    """The student's process has neither the seed nor the staff's seed in its environment, and
    no hidden test in its program; the secret seed reaches no output."""
    secret = "987654321987"
    sub = _with_prologue("labs", "secrets", str(tmp_path / "sub"))
    hidden = os.path.join(ROOT, "grader", "tests", "data", "hidden")
    g = grade(sub, "01", str(tmp_path / "out"), env={**SANDBOX_ENV, "MLMEM_STAFF_SEED": secret},
              extra=["--parts", "tests", "--hidden", hidden])
    assert secret not in g.stdout and secret not in str(g.results)
    os.environ["MLMEM_STAFF_SEED"] = secret
    try:
        out = _transcript(sub, "boundary-secrets")
    finally:
        del os.environ["MLMEM_STAFF_SEED"]
    own = out.split("--- your code's output ---")[-1]
    assert "hostile: MLMEM_SEED in /proc/self/environ: absent" in own, out[-2000:]
    assert "hostile: MLMEM_STAFF_SEED in /proc/self/environ: absent" in own, out[-2000:]
    assert "hostile: test_hidden in /proc/self/exe: absent" in own, out[-2000:]


def _naive_with_prologue(slug: str, name: str, file: str, sig: str, dest: str) -> str:
    """The naive variant of `slug` with hostile/<name>.c run first thing in the function `sig`
    opens in `file`."""
    with open(os.path.join(HOSTILE, name + ".c")) as f:
        code = f.read()
    naive = variants.declared(slug)["naive"]["patch"]
    return variants.make(slug, dest, naive + [{"file": file, "old": sig + "\n{",
                                               "new": code + sig + "\n{\n    hostile();"}])


def test_a_clock_patched_through_the_got_gains_nothing(tmp_path):
    """Lab 06's naive reader with its process's clock_gettime GOT slot pointed at a slow clock:
    its timed metric is the naive variant's still (zero), since the clock that scores is the
    harness's; the patch itself took (its line is in the student's output)."""
    sub = _naive_with_prologue(LAB06, "got", "src/reader.c",
                               "int ds_open(ds_reader_t **out, const char *path)",
                               str(tmp_path / "sub"))
    g = grade(sub, "06", str(tmp_path / "out"), env=SANDBOX_ENV, extra=["--parts", "metrics"])
    metric = g.metrics("06")["mmap_vs_pread"]
    assert metric["score"] == 0, metric
    lab = labs.load(LAB06)
    built = build.build(lab, sub, tag="boundary-got")
    run = bench.run_once(lab, os.path.join(built.out_dir, "bench"), "boundary-got", series=False)
    assert "hostile: clock_gettime's slot patched" in run.stderr, run.stderr[-2000:]


@pytest.mark.lab("02")
def test_lab02_a_rewritten_trace_gains_nothing(tmp_path):
    """Lab 02's reference made FIFO, whose el_cache_access finds the cache_trace workload's trace
    in shared memory and makes every access after the first a hit (hostile/trace_rewrite.c): the
    harness checks the cache against its own copy of the trace, so test_cache_random_traces
    fails at the first access the FIFO cache gets wrong, and says so; the rewrite itself took
    (its line is in the student's output). Checked against the trace read back from shared
    memory, as it once was, this cache passed that test."""
    with open(os.path.join(HOSTILE, "trace_rewrite.c")) as f:
        code = f.read()
    sig = "int el_cache_access(el_cache_t *c, uint64_t addr, size_t size)\n{"
    first = "    uint64_t first = addr / c->line, last"
    hit = "        c->stats.hits++;\n    } else if"
    sub = variants.make(LAB02, str(tmp_path / "sub"), [
        {"file": "src/cachesim.c", "old": sig, "new": code + sig},
        {"file": "src/cachesim.c", "old": first,
         "new": "    hostile_rewrite(c, addr, size, c->line);\n" + first},
        {"file": "src/cachesim.c", "old": hit,
         "new": "        c->stats.hits++;\n        return hit; /* FIFO: no move on a hit */\n"
                "    } else if"}])
    g = grade(sub, "02", str(tmp_path / "out"), env=SANDBOX_ENV, extra=["--parts", "tests"])
    t = g.tests("02")["test_cache_random_traces"]
    assert t["score"] == 0 and "the model says" in t["output"], t
    assert "hostile: the trace in shared memory rewritten" in _transcript(sub, "boundary-trace",
                                                                          LAB02)


@pytest.mark.lab("08")
def test_lab08_an_answer_kept_from_an_earlier_call_gains_nothing(tmp_path):
    """Lab 08's reference whose bulk bf16 conversion does its work on the first call and returns
    at once when called again on the same buffers: once timed as 200x memcpy, it now fails the
    metric, since every timed call is given new inputs at random places first."""
    head = "int mp_f32_to_bf16_n(const float *src, mp_bf16_t *dst, size_t n)\n{\n"
    keep = ("    static const float *seen_src;\n    static mp_bf16_t *seen_dst;\n"
            "    if (n > 1000000 && src == seen_src && dst == seen_dst)\n"
            "        return 0; /* converted already */\n    seen_src = src, seen_dst = dst;\n")
    sub = variants.make("lab08-mixed-precision", str(tmp_path / "sub"),
                        [{"file": "src/convert.c", "old": head, "new": head + keep}])
    g = grade(sub, "08", str(tmp_path / "out"), env=SANDBOX_ENV, extra=["--parts", "metrics"])
    metric = g.metrics("08")["f32_to_bf16_vs_memcpy"]
    assert metric["score"] == 0, metric
    if metric["status"] != "skipped":  # the gate: this machine cannot show vectorization
        assert "every call must convert its whole input" in metric["output"], metric


@pytest.mark.lab("04")
def test_lab04_forged_placement_gains_nothing(tmp_path):
    """Lab 04's reference with an nb_alloc_on_node that maps its memory but neither binds nor
    touches it, and points its process's move_pages at a forgery that says every page is on the
    node asked for (hostile/numa_forge.c): test_alloc_on_node reads where the pages are from the
    process's /proc files, outside it, so the forgery scores nothing there, and says why; the
    patch itself took (its line is in the student's output)."""
    with open(os.path.join(HOSTILE, "numa_forge.c")) as f:
        code = f.read()
    sig = "int nb_alloc_on_node(hwloc_topology_t t, int node, size_t bytes, unsigned nthreads, "
    placed = ("    int rc = bind_to_node(p, len, node);\n    if (rc == 0)\n"
              "        rc = nb_touch_parallel(t, p, len, nthreads, touchers(t, n));")
    forged = ("    int rc = hostile_forge(node); /* 0: neither bound nor touched */\n"
              "    if (rc != 0 && (rc = bind_to_node(p, len, node)) == 0)\n"
              "        rc = nb_touch_parallel(t, p, len, nthreads, touchers(t, n));")
    sub = variants.make(LAB04, str(tmp_path / "sub"), [
        {"file": "src/place.c", "old": sig, "new": code + sig},
        {"file": "src/place.c", "old": placed, "new": forged}])
    g = grade(sub, "04", str(tmp_path / "out"), env=SANDBOX_ENV, extra=["--parts", "tests"])
    t = g.tests("04")["test_alloc_on_node"]
    if t["status"] != "skipped":  # mbind refused here
        assert t["score"] == 0 and "present (pagemap)" in t["output"], t
    assert "hostile: move_pages' slot patched" in _transcript(sub, "boundary-numa", LAB04)


@pytest.mark.lab("12")
def test_lab12_forged_counts_gain_nothing(tmp_path):
    """Lab 12's naive kernels (every variant's patch) with launchers of their own that rewrite
    the emulator's counts to the reference's and doctor the trace (hostile/kemu_forge.cu): the
    counts that score are the harness's, made from a trace it checks against its own data, so
    the forgery scores no more than the honest naive kernels, metric by metric, and says why.
    As written, the forgery's bodies switch the emulator's instrumentation off, which the build
    refuses (common/student-cu.sh); with that attribute taken out, the trace checks refuse it."""
    slug = "lab12-gpu-memory"
    naive = [p for v in variants.declared(slug).values() for p in v["patch"]]
    with open(os.path.join(HOSTILE, "kemu_forge.cu")) as f:
        text = f.read()
    attr = '[[gnu::no_sanitize("thread")]] '
    assert attr in text
    cases = {"honest": naive,
             "forged": naive + [{"file": "src/kernels.cu", "append": text}],
             "instrumented": naive + [{"file": "src/kernels.cu",
                                       "append": text.replace(attr, "")}]}
    scores = {}
    for name, patches in cases.items():
        sub = variants.make(slug, str(tmp_path / name), patches)
        g = grade(sub, "12", str(tmp_path / f"out-{name}"), env=SANDBOX_ENV,
                  extra=["--parts", "metrics"])
        scores[name] = {m: r for m, r in g.metrics("12").items() if not m.startswith("gpu_")}
    honest = scores["honest"]
    assert len(honest) == 4, honest
    for name in ("forged", "instrumented"):
        forged = scores[name]
        assert set(honest) == set(forged), (honest, forged)
        for m in honest:
            assert forged[m]["score"] <= honest[m]["score"], (name, m, forged[m], honest[m])
        assert sum(r["score"] for r in forged.values()) < sum(r["score"] for r in honest.values())
    assert all("would hide accesses" in str(r) for r in scores["forged"].values()), scores
    print({m: str(r)[:300] for m, r in scores["instrumented"].items()})
