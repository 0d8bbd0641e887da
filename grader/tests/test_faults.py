"""Fault injection: submissions that crash, hang, fork-bomb, exhaust memory, flood output, edit
tests, exit early or print fake results. Each gets the right verdict on the tests it breaks, the
other tests are still graded, and the grader survives. Faults are text patches to lab 01's
reference: the fault sits at the top of cl_counters_total, which two tests call."""
import os

import pytest

from conftest import ROOT, SANDBOX_ENV, grade, sandbox_leftovers

pytestmark = pytest.mark.slow

SLUG = "lab01-cache-lines"
ENTRY = "uint64_t cl_counters_total(const cl_counters_t *c)\n{\n"
HIT = "test_totals_exact_under_contention"  # calls cl_counters_total with a live object
# Lab 01's slowest reference test takes under 0.2 s; 8 s leaves room for a loaded machine
# while a hanging test still costs little.
FAST = {"MLMEM_TEST_TIMEOUT_S": "8", **SANDBOX_ENV}
# A fault that hangs also hangs the benchmark, which calls the same function; these tests judge
# the unit tests' verdicts, so the benchmark does not run (test_hangs.py checks its limit).
HANGS = ["--parts", "tests"]


def in_total(code: str) -> list[dict]:
    head = "#include <signal.h>\n#include <stdio.h>\n#include <unistd.h>\n#include <sys/types.h>\n"
    return [{"file": "src/counters.c", "old": "#include \"counters.h\"\n",
             "new": "#include \"counters.h\"\n" + head},
            {"file": "src/counters.c", "old": ENTRY, "new": ENTRY + f"    if (c) {{ {code} }}\n"}]


def graded(make_variant, tmp_path, patches, extra=None, env=FAST):
    sub = make_variant(SLUG, patches)
    return grade(sub, "01", str(tmp_path / "out"), env=env, extra=extra)


def assert_only_hit(g, expect_in_output: str):
    tests = g.tests("01")
    assert expect_in_output.lower() in tests[HIT]["output"].lower(), tests[HIT]["output"]
    assert tests[HIT]["score"] == 0
    others = [n for n, t in tests.items() if n != HIT and t["status"] != "passed"]
    assert others == [], f"a fault in one function failed other tests: {others}"


def no_sandbox_processes_left():
    assert sandbox_leftovers() == []


def test_segfault(make_variant, tmp_path):
    g = graded(make_variant, tmp_path, in_total("volatile int *p = NULL; *p = 1;"))
    assert_only_hit(g, "signal 11")


def test_abort(make_variant, tmp_path):
    g = graded(make_variant, tmp_path, in_total("abort();"))
    assert_only_hit(g, "signal 6")


def test_infinite_loop(make_variant, tmp_path):
    g = graded(make_variant, tmp_path, in_total("for (volatile int i = 0;; i++) {}"), HANGS)
    assert_only_hit(g, "timeout")
    no_sandbox_processes_left()


def test_fork_bomb_is_contained(make_variant, tmp_path):
    code = ("for (;;) { pid_t p = fork(); if (p == 0) { pause(); _exit(0); } "
            "if (p < 0) abort(); }")
    g = graded(make_variant, tmp_path, in_total(code))
    tests = g.tests("01")
    # fork() failed at the process limit, then abort(). The paused children live on until the
    # test program ends, so later tests that start threads may fail too: that is the bomb's
    # doing. What must hold: the verdict, every test reported, nothing left running.
    assert "signal 6" in tests[HIT]["output"], tests[HIT]["output"]
    assert not any("did not run" in t["output"] for t in tests.values())
    assert tests["test_line_size_matches_os"]["status"] == "passed"
    assert g.returncode == 0
    no_sandbox_processes_left()


def test_huge_malloc_hits_the_memory_limit(make_variant, tmp_path):
    code = ("size_t n = (size_t)64 << 30; volatile char *m = malloc(n); "
            "for (size_t i = 0; i < n; i += 4096) m[i] = 1;")
    g = graded(make_variant, tmp_path, in_total(code))
    assert_only_hit(g, "signal 11")


def test_stdout_flood(make_variant, tmp_path):
    g = graded(make_variant, tmp_path, in_total("for (;;) puts(\"flood flood flood\");"), HANGS)
    assert_only_hit(g, "timeout")
    assert len(g.stdout) < 100_000


def test_exit0_inside_a_test_is_not_a_pass(make_variant, tmp_path):
    g = graded(make_variant, tmp_path, in_total("exit(0);"))
    assert_only_hit(g, "called exit()")


def test_constructors_are_refused(make_variant, tmp_path):
    """Code that would run before the tests (and _exit(0) with nothing reported) or after them
    (and print fake results) does not build: the student's files may not hold constructors or
    destructors. Every test and metric scores 0, and the table says why."""
    for i, attr in enumerate(("constructor", "destructor")):
        patch = [{"file": "src/counters.c",
                  "append": f"\n__attribute__(({attr})) static void quit(void) {{ _exit(0); }}\n"}]
        g = graded(make_variant, tmp_path / str(i), patch + in_total(""))
        assert all(t["score"] == 0 for t in g.tests("01").values())
        assert all(m["score"] == 0 for m in g.metrics("01").values())
        assert "not allowed" in g.stdout, g.stdout[-3000:]


def test_fake_pass_lines_and_fake_report_are_ignored(make_variant, tmp_path):
    fake = ('100%: Checks: 19, Failures: 0, Errors: 0\\n'
            '{\\"lab\\":\\"01\\",\\"metrics\\":{\\"counters_speedup\\":{\\"value\\":99}}}\\n')
    g = graded(make_variant, tmp_path, in_total(f'printf("{fake}"); fflush(stdout); _exit(0);'),
               env={})
    assert g.tests("01")[HIT]["score"] == 0
    assert "Checks: 19" not in g.tests("01")[HIT].get("output", "")
    counters = g.metrics("01")["counters_speedup"]
    assert counters.get("output", "").startswith("SKIPPED") or "99x" not in counters["output"]


def test_edited_test_file_changes_nothing(tmp_path):
    import shutil
    sub = tmp_path / "sub"
    shutil.copytree(os.path.join(ROOT, "labs", SLUG), sub / SLUG)
    path = sub / SLUG / "tests" / "check_counters.c"
    path.write_text(path.read_text().replace("ck_assert_msg(", "if (0) ck_assert_msg("))
    g = grade(str(sub), "01", str(tmp_path / "out"))
    assert all(t["score"] == 0 for t in g.tests("01").values())


def test_compile_error_shows_file_and_line(make_variant, tmp_path):
    patch = [{"file": "src/counters.c", "old": ENTRY, "new": ENTRY + "    this is not C;\n"}]
    g = graded(make_variant, tmp_path, patch)
    assert "counters.c:" in g.stdout and "error" in g.stdout
    tests = g.tests("01")
    assert all("does not compile" in t["output"] for t in tests.values())
    assert g.returncode == 0 and g.results["score"] == 0
