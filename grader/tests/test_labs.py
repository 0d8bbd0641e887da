"""For every lab: the skeleton builds and scores zero on correctness; the reference gets full
marks on everything this machine can grade, beside a busy neighbour; each naive variant loses
exactly the performance it claims to; lab.toml names exactly the tests that exist."""
import contextlib
import os
import re
import signal
import subprocess
import sys

import pytest

from conftest import ROOT, grade
from grader.rules import labs, variants

SLUGS = labs.slugs()


@pytest.mark.parametrize("slug", SLUGS)
def test_lab_toml_matches_test_sources(slug):
    lab = labs.load(slug)
    declared = []  # every MM_TEST(name) / MM_TEST_F(name, fixture): each registers one test
    for f in sorted(os.listdir(os.path.join(lab.path, "tests"))):
        if f.endswith(".c"):
            with open(os.path.join(lab.path, "tests", f)) as fh:
                declared += re.findall(r"^MM_TEST(?:_F)?\((\w+)[,)]", fh.read(), re.M)
    twice = sorted({n for n in declared if declared.count(n) > 1})
    assert twice == [], f"tests declared more than once: {twice}"
    assert set(declared) == {t.name for t in lab.tests}, "lab.toml and tests/*.c disagree"
    for rel in lab.editable:
        assert os.path.isfile(os.path.join(lab.path, rel)), f"skeleton lacks {rel}"
        assert os.path.isfile(os.path.join(ROOT, "solutions", slug, rel)), f"solution lacks {rel}"


# What makes a lab's code CUDA code: kernels, or the CUDA runtime's header included from C.
CUDA_SOURCE = re.compile(r"^\s*#\s*include\s*<cuda_runtime(_api)?\.h>", re.M)


def has_cuda_code(path: str) -> bool:
    """Kernels (lab 12's run on the kernel emulator too, but nvcc builds them for a GPU) or the
    CUDA runtime's header in the lab's src/."""
    src = os.path.join(path, "src")
    files = [os.path.join(src, f) for f in sorted(os.listdir(src))]
    return any(f.endswith(".cu") or (f.endswith(".c") and CUDA_SOURCE.search(open(f).read()))
               for f in files)


@pytest.mark.lab("05", "07", "12")
def test_the_cuda_labs_are_found():
    """The test below would pass vacuously if the search found no CUDA code."""
    found = {s for s in SLUGS if has_cuda_code(os.path.join(labs.LABS_DIR, s))}
    assert found == {"lab05-pinned-transfers", "lab07-caching-allocator", "lab12-gpu-memory"}


@pytest.mark.parametrize("slug", SLUGS)
def test_lab_toml_says_whether_the_lab_has_cuda_code(slug):
    """lab.toml's `cuda = true` is the one statement of it (the build links the emulated device
    by it, the grader lifts the address-space limit on a GPU by it): a lab with kernels or CUDA
    runtime calls in src/ must make it, and a lab without must not."""
    lab = labs.load(slug)
    assert lab.cuda == has_cuda_code(lab.path), f"{slug}/lab.toml: cuda = {lab.cuda}"


@pytest.mark.parametrize("slug", SLUGS)
def test_make_vars_carry_lab_toml_to_the_build(slug):
    lab = labs.load(slug)
    assert lab.make_vars() == [f"EDITABLE={' '.join(lab.editable)}",
                               f"LAB_CUDA={'1' if lab.cuda else ''}"]


@pytest.mark.lab("07")
def test_make_vars_on_the_command_line(capsys):
    from grader import __main__ as cli
    assert cli.main(["make-vars", "--lab", "07"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "EDITABLE=src/sizes.c src/blockset.c src/allocator.c", "LAB_CUDA=1"]


def code_lines(path: str, pattern: str) -> list[str]:
    """The lines of a make file or shell script, comments aside, that match pattern."""
    with open(path) as f:
        return [f"{os.path.relpath(path, ROOT)}:{n}: {line.strip()}" for n, line in enumerate(f, 1)
                if not line.lstrip().startswith("#") and re.search(pattern, line)]


def test_only_the_grader_reads_lab_toml():
    """The build's make files and scripts take lab.toml's facts as variables (Lab.make_vars):
    none parses lab.toml, no lab.mk says whether its lab has CUDA code, and the student-object
    script, given the facts by the build, reads neither lab.mk nor src/*.cu."""
    common = os.path.join(ROOT, "common")
    build_files = [os.path.join(ROOT, "Makefile")] + [
        os.path.join(common, f) for f in sorted(os.listdir(common)) if f.endswith((".mk", ".sh"))]
    lab_mks = [p for p in (os.path.join(labs.LABS_DIR, s, "lab.mk") for s in SLUGS)
               if os.path.isfile(p)]
    bad = [hit for p in build_files for hit in code_lines(p, r"lab\.toml")]
    bad += [hit for p in lab_mks for hit in code_lines(p, r"LAB_CUDA")]
    bad += code_lines(os.path.join(common, "student-object.sh"), r"lab\.mk|\.cu\b")
    assert bad == []


@pytest.mark.slow
@pytest.mark.parametrize("slug", SLUGS)
def test_skeleton_scores_zero_correctness(slug, tmp_path):
    lab = labs.load(slug)
    g = grade("labs", lab.id, str(tmp_path))
    assert g.returncode == 0
    tests = g.tests(lab.id)
    assert len(tests) == len(lab.tests)
    passed = [n for n, t in tests.items() if t.get("status") == "passed"]
    assert passed == [], f"the untouched skeleton passes {passed}"
    assert sum(t["score"] for t in tests.values()) == 0
    assert all(t["score"] == 0 for t in g.metrics(lab.id).values())


@contextlib.contextmanager
def busy_neighbour():
    """Busy loops beside what runs in the block, as on a shared course machine, stopped after it:
    one per core this process may run on that the suite's workers leave without a neighbour. The
    other workers are busy too, so with more workers than cores (the suite's default on 2 cores:
    3) they are the neighbours and no loop is added; run alone, it adds one loop per core. Yields
    the neighbours: loops and other workers."""
    cores = len(os.sched_getaffinity(0))
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
             for _ in range(max(0, cores - (workers - 1)))]
    try:
        yield len(loops) + workers - 1
    finally:
        for p in loops:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


# The reference gets full marks: its unit tests, then its benchmark beside a busy neighbour (what
# a neighbour can cost is timed figures: the tests' limits are far above what they take). Every
# item it measured scores full marks, and every item it did not measure is skipped with its
# reason, never lost. What keeps that true is each timed metric's gate and idle check in the
# benchmark, lab 02's steady rounds and the grader's minimum of surviving pairs
# (grader/grading/bench.py).
@pytest.mark.slow
@pytest.mark.parametrize("slug", SLUGS)
def test_solution_gets_full_marks(slug, tmp_path):
    lab = labs.load(slug)
    parts = {}
    for part in ("tests", "metrics"):
        with busy_neighbour() if part == "metrics" else contextlib.nullcontext(0) as loops:
            parts[part] = grade("solutions", lab.id, str(tmp_path / part),
                                extra=["--parts", part], timeout=1800)
        assert parts[part].returncode == 0, part
    items = {**parts["tests"].items(lab.id), **parts["metrics"].items(lab.id)}
    assert len(items) == len(lab.tests) + len(lab.metrics)
    bad = {n: t["output"] for n, t in items.items()
           if t["status"] != "passed" and not t["output"].startswith("SKIPPED")}
    assert bad == {}, f"the reference loses points (its benchmark beside {loops} neighbour(s)): {bad}"
    silent = [n for n, t in items.items() if t["output"].startswith("SKIPPED")
              and len(t["output"].split(": ", 1)[-1].split("\n\n")[0].strip()) < 20]
    assert silent == [], f"skipped without a reason: {silent}"
    for part, g in parts.items():
        unmeasured = g.results["extra_data"]["skipped_points"]
        assert g.results["score"] == g.results["extra_data"]["max_score"] - unmeasured, part
    assert parts["tests"].results["score"] > 0


# The reference, wrong on one input that a sample would draw once in 128 grades, in the last batch
# of the sweep (a NaN; a sweep stops at the batch where it finds an error): the grade that sweeps
# all 2^32 inputs finds it in the scalar fp16 sweep, after the reference was right on all the
# others (and in the bulk sweep where a piece of random length ends on it, which the reference's
# bulk function converts one by one).
ONE_WRONG_INPUT = {
    "file": "src/convert.c",
    "old": "    uint32_t u = f32_bits(x), sign = (u >> 16) & 0x8000u, a = u & F32_ABS;\n",
    "new": "    uint32_t u = f32_bits(x), sign = (u >> 16) & 0x8000u, a = u & F32_ABS;\n"
           "    if (u == 0xFFF12345u)\n        return 0;\n"}


# The reference's scalar bf16, wrong once: on one call in the sweep's second batch, whose outputs
# are summed in the student's process. The sum is wrong; the batch's outputs, asked for again, are
# right: a conversion that does not depend on its input alone fails.
WRONG_ONCE = {
    "file": "src/convert.c",
    "old": "    uint32_t u = f32_bits(x);\n    if ((u & F32_ABS) > F32_INF)\n",
    "new": "    uint32_t u = f32_bits(x);\n    static unsigned long calls;\n"
           "    if (__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED) == (1ul << 20) + (1ul << 19))\n"
           "        return 0x1234;\n    if ((u & F32_ABS) > F32_INF)\n"}


@pytest.mark.slow
@pytest.mark.lab("08")
def test_lab08_sweeps_all_2_32_inputs(make_variant, tmp_path):
    sub = make_variant("lab08-mixed-precision", [ONE_WRONG_INPUT, WRONG_ONCE])
    g = grade(sub, "08", str(tmp_path), env={"MLMEM_SAMPLE": "0"}, extra=["--parts", "tests"])
    tests = g.tests("08")
    failed = {n: t["output"] for n, t in tests.items() if t["status"] != "passed"}
    assert {"test_f16_exhaustive", "test_bf16_exhaustive"} <= set(failed), failed
    assert set(failed) <= {"test_f16_exhaustive", "test_bulk_f16_exhaustive",
                           "test_bf16_exhaustive", "test_bulk_bf16_exhaustive"}, failed
    assert "0xfff12345" in failed["test_f16_exhaustive"], failed
    assert "1 wrong in 4294967296 checked" in failed["test_f16_exhaustive"], failed
    assert "different outputs for the same inputs" in failed["test_bf16_exhaustive"], failed


def _variant_cases():
    """Each naive variant that gives up a scored metric (one that gives up none is there for
    `make calibrate`'s figures alone)."""
    return [(s, n) for s in SLUGS for n, spec in variants.declared(s).items()
            if spec["metrics_zero"]]


@pytest.mark.slow
@pytest.mark.parametrize("slug,name", _variant_cases())
def test_naive_variant_gets_no_performance_credit(slug, name, make_variant, tmp_path):
    lab = labs.load(slug)
    spec = variants.declared(slug)[name]
    sub = make_variant(slug, spec["patch"])
    # The benchmark only: what a variant gives up is performance (the lab's tests, which the
    # reference passes, test_solution_gets_full_marks runs). A metric scored against the
    # reference needs the reference's runs beside the variant's; any other is scored on the
    # variant's first run, paired or not, so where no such metric is asserted the variant is
    # graded as in a student's tree, without a reference (an empty folder): one run.
    timed = {m.name for m in lab.metrics if m.vs_reference} & set(spec["metrics_zero"])
    (tmp_path / "no-reference").mkdir()
    env = {} if timed else {"MLMEM_REFERENCE": str(tmp_path / "no-reference")}
    g = grade(sub, lab.id, str(tmp_path / "out"), env=env, extra=["--parts", "metrics"])
    metrics = g.metrics(lab.id)
    for m in spec["metrics_zero"]:
        entry = metrics[m]
        if entry["output"].startswith("SKIPPED"):
            continue
        assert entry["score"] == 0, f"{name} scores {entry['score']} on {m}: {entry['output']}"
