"""The student's object may reach only the lab's API, the common library's and the C library's
(common/student-object.sh): a submission that calls a harness function (mm_test_reached_end
would mark an unfinished test finished), holds a system-call instruction or puts code in a
section of its own is refused at build time, with one error line naming its file; the reference
builds and passes as before.

Cost: lab 01 only, tests part only: four submissions that stop at the build, one graded."""
import platform

import pytest

from conftest import grade

pytestmark = pytest.mark.slow

LAB, SLUG, FILE = "01", "lab01-cache-lines", "src/counters.c"
# The system-call instruction of this machine's architecture (what inline assembly would use).
SYSCALL = "svc #0" if platform.machine() in ("aarch64", "arm64") else "syscall"

HOSTILE = {
    "harness call": (
        "void mm_test_reached_end(void);\n"
        "void cl_finish_early(void);\n"
        "void cl_finish_early(void) { mm_test_reached_end(); }\n",
        "src/counters.c: error: your code uses mm_test_reached_end, which is neither part of the "
        "lab's API nor of the C library: the grader's own functions are off limits"),
    "weak harness reference": (
        "extern void mm_bench_end_metrics(void *j) __attribute__((weak));\n"
        "int cl_bench_linked(void);\n"
        "int cl_bench_linked(void) { return mm_bench_end_metrics != 0; }\n",
        "src/counters.c: error: your code uses mm_bench_end_metrics, which is neither part of "
        "the lab's API nor of the C library: the grader's own functions are off limits"),
    "inline system call": (
        "void cl_raw_syscall(void);\n"
        f'void cl_raw_syscall(void) {{ __asm__ volatile("{SYSCALL}" ::: "memory"); }}\n',
        f"src/counters.c: error: your code holds the instruction `{SYSCALL.split()[0]}` (inline "
        "assembly)"),
    "code outside .text": (
        '__asm__(".pushsection .mycode,\\"ax\\",%progbits\\n nop\\n .popsection");\n',
        "src/counters.c: error: your code puts machine code in section .mycode"),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_submission_refused(case, make_variant, tmp_path):
    snippet, message = HOSTILE[case]
    sub = make_variant(SLUG, [{"file": FILE, "append": "\n" + snippet}])
    g = grade(sub, LAB, str(tmp_path / "out"), extra=["--parts", "tests"])
    assert "BUILD FAILED" in g.stdout, g.stdout
    assert message in g.stdout, g.stdout
    outputs = [t.get("output", "") for t in g.tests(LAB).values()]
    assert outputs and all(message in o for o in outputs), outputs[:1]


def test_reference_builds(make_variant, tmp_path):
    """The reference's calls (libc, libpthread, mm_now_ns and mm_hw_* from the common headers
    its files include, the lab's own API) are all allowed: it builds and its tests run."""
    g = grade(make_variant(SLUG, []), LAB, str(tmp_path / "out"), extra=["--parts", "tests"])
    assert "BUILD FAILED" not in g.stdout, g.stdout
    tests = g.tests(LAB)
    assert tests and not any("does not compile" in t.get("output", "") for t in tests.values())
    assert any(t.get("status") == "passed" for t in tests.values()), tests
