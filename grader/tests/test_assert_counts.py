"""No lab test makes so many passing asserts that Check's bookkeeping breaks it. In fork mode
every passing ck_assert* writes a record (~100 bytes with the staged file's path) to a message
file that the runner reads back after the test: millions of them (an assert per word of a large
buffer) exceed the sandbox's file-size limit, the runner dies, and the grader reports every test
of the lab as "did not run". Each lab's reference test program is linked here with a counter
wrapped around Check's _mark_point (-Wl,--wrap), and each test's passing asserts are counted.
Tests skipped on this machine (no GPU) are counted only where they run."""
import os
import subprocess

import pytest

from conftest import ROOT
from grader.grading import build
from grader.rules import labs

pytestmark = pytest.mark.slow

MAX_ASSERTS = 10_000  # per test; assert once after finding the first mismatch in a loop

COUNTER_C = r"""
/* Counts the passing asserts (Check's _mark_point) of each test (mm_test_begin marks its start)
 * and appends "<test> <count> <hottest file:line> <its count>" to $MM_ASSERT_COUNT_FILE. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
void __real__mark_point(const char *file, int line);
void __real_mm_test_begin(const char *name);
void __wrap__mark_point(const char *file, int line);
void __wrap_mm_test_begin(const char *name);

#define SLOTS 4096
static struct { const char *file; int line; unsigned long n; } slot[SLOTS];
static const char *test;
static unsigned long total;

static void report(void)
{
    const char *path = getenv("MM_ASSERT_COUNT_FILE");
    if (!test || !path)
        return;
    unsigned long best = 0;
    int at = -1;
    for (int i = 0; i < SLOTS; i++)
        if (slot[i].n > best)
            best = slot[i].n, at = i;
    FILE *f = fopen(path, "a");
    if (!f)
        return;
    fprintf(f, "%s %lu %s:%d %lu\n", test, total, at < 0 ? "-" : slot[at].file,
            at < 0 ? 0 : slot[at].line, best);
    fclose(f);
}

__attribute__((destructor)) static void at_exit_report(void)
{
    report();
}

void __wrap_mm_test_begin(const char *name)
{
    report(); /* the test before, where tests share a process (CK_FORK=no) */
    memset(slot, 0, sizeof slot);
    total = 0;
    test = name;
    __real_mm_test_begin(name);
}

void __wrap__mark_point(const char *file, int line)
{
    unsigned h = ((unsigned)(size_t)file * 31u + (unsigned)line) % SLOTS;
    for (int k = 0; k < SLOTS; k++, h = (h + 1) % SLOTS)
        if (slot[h].n == 0 || (slot[h].file == file && slot[h].line == line)) {
            slot[h].file = file, slot[h].line = line, slot[h].n++;
            break;
        }
    total++;
    __real__mark_point(file, line);
}
"""


def counted_build(slug: str, tmp_path) -> str:
    """The reference's test program of `slug`, linked with the counter; returns its path."""
    lab = labs.load(slug)
    stage, out = str(tmp_path / "stage"), str(tmp_path / "out")
    build.stage(lab, os.path.join(ROOT, "solutions"), stage)
    counter = tmp_path / "counter.c"
    counter.write_text(COUNTER_C)
    subprocess.run(["cc", "-O2", "-c", "-o", str(tmp_path / "counter.o"), str(counter)],
                   check=True)
    flags = f"-Wl,--wrap=_mark_point -Wl,--wrap=mm_test_begin {tmp_path / 'counter.o'}"
    split = os.path.isfile(os.path.join(stage, "calls.toml"))   # its student program too
    res = subprocess.run(["make", "-s", "-f", os.path.join(ROOT, "common", "lab-build.mk"),
                          f"LABSRC={stage}", f"OUT={out}", f"HARNESS_LDFLAGS={flags}",
                          *lab.make_vars(), f"-j{min(4, os.cpu_count() or 1)}",
                          os.path.join(out, "check_lab"),
                          *([os.path.join(out, "student_lab")] if split else [])],
                         cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    return os.path.join(out, "check_lab")


def assert_counts(binary: str, tmp_path, seed: str = "1") -> dict[str, tuple[int, str]]:
    """Runs the program (fork mode); returns test -> (passing asserts, hottest line). Lab 08's
    exhaustive tests check their seeded sample (MLMEM_SAMPLE): the same asserts, made once per
    test after the sweep, in seconds rather than the minutes of all 2^32 inputs."""
    log = tmp_path / "counts.txt"
    env = {**os.environ, "CK_FORK": "yes", "MLMEM_SEED": seed, "MM_ASSERT_COUNT_FILE": str(log),
           "CK_DEFAULT_TIMEOUT": "120", "MLMEM_SAMPLE": "1"}
    subprocess.run([binary], cwd=tmp_path, env=env, capture_output=True, timeout=1800)
    counts = {}
    for line in log.read_text().splitlines() if log.exists() else []:
        test, total, where, hot = line.split(" ")
        counts[test] = (int(total), f"{os.path.basename(where)} ({hot} times)")
    return counts


@pytest.mark.parametrize("slug", labs.slugs())
def test_passing_asserts_per_test_stay_few(slug, tmp_path):
    counts = assert_counts(counted_build(slug, tmp_path), tmp_path)
    assert counts, "no test reported its assert count (is the counter linked?)"
    heavy = {t: f"{n} passing asserts, most at {hot}" for t, (n, hot) in counts.items()
             if n > MAX_ASSERTS}
    assert heavy == {}, (f"more than {MAX_ASSERTS} passing asserts in one test: find the first "
                         f"mismatch in a plain loop and assert once")


CHECK_LOOP_C = r"""
#include "mm_check.h"
MM_TEST(test_assert_per_element)
{
    for (int i = 0; i < 20000; i++)
        ck_assert_msg(i >= 0, "element %d", i);
}
MM_END_TEST
MM_TEST(test_assert_once)
{
    int i = 0;
    while (i < 20000 && i >= 0)
        i++;
    ck_assert_msg(i == 20000, "element %d", i);
}
MM_END_TEST
"""


def test_counter_sees_an_assert_per_element(tmp_path, monkeypatch):
    """The check above would catch lab 05's old per-word assert (it runs only on a GPU)."""
    lab_dir = tmp_path / "fake"
    (lab_dir / "tests").mkdir(parents=True)
    (lab_dir / "src").mkdir()
    (lab_dir / "include").mkdir()
    (lab_dir / "tests" / "check_loop.c").write_text(CHECK_LOOP_C)
    monkeypatch.setattr(build, "stage", lambda lab, sub, dest: subprocess.run(
        ["cp", "-r", str(lab_dir), dest], check=True))
    fake = labs.Lab(id="99", slug="fake", title="fake", editable=[], tests=[], metrics=[])
    monkeypatch.setattr(labs, "load", lambda slug: fake)
    counts = assert_counts(counted_build("fake", tmp_path), tmp_path)
    assert counts["test_assert_per_element"][0] == 20000
    assert "check_loop.c" in counts["test_assert_per_element"][1]
    assert counts["test_assert_once"][0] == 1
