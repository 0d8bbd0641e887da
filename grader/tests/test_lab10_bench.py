"""Lab 10's benchmark times only correct, one-thread work. One submission, graded once, holds two
cheats: a softmax that keeps its first output and returns at once on later calls fails its
metric with the reason; a GEMV that splits its rows with a second thread on another core fails
when that thread really runs beside it (its CPU time shows), and otherwise gains at most what the
benchmark's limit on CPU time over wall time lets through; LayerNorm, left alone, is still
scored."""
import fcntl
import os
import re
import tempfile

import pytest

from conftest import grade
from grader.rules import variants

pytestmark = [pytest.mark.slow, pytest.mark.lab("10")]

SLUG = "lab10-roofline"
LOCK = "/tmp/mlmem-bench.lock"  # benchmarks never overlap (as the other timed tests)

LAZY_SOFTMAX = {  # the first call computes; every later call returns without writing
    "file": "src/kernels.c",
    "old": "    if (!x || !y || !rows || !cols)\n        return -EINVAL;\n    for (size_t i = 0;",
    "new": "    static int calls;\n    if (!x || !y || !rows || !cols)\n        return -EINVAL;\n"
           "    if (calls++ > 0 && rows > 1000)\n        return 0;\n    for (size_t i = 0;"}

TWO_THREAD_GEMV = [  # half the rows on a second thread pinned to core 1
    {"file": "src/kernels.c", "old": "#include \"kernels.h\"\n",
     "new": "#include \"kernels.h\"\n#include <pthread.h>\n#include <sched.h>\n"},
    {"file": "src/kernels.c",
     "old": "int rl_gemv(const float *A, size_t m, size_t n, const float *x, float *y)\n{\n"
            "    if (!A || !x || !y || !m || !n)\n        return -EINVAL;\n",
     "new": "typedef struct { const float *A, *x; float *y; size_t lo, hi, n; } half_t;\n"
            "static float dot(const float *restrict a, const float *restrict x, size_t n);\n"
            "static void *other_half(void *p)\n{\n    half_t *h = p;\n    cpu_set_t one;\n"
            "    CPU_ZERO(&one);\n    CPU_SET(1, &one);\n"
            "    sched_setaffinity(0, sizeof one, &one);\n"
            "    for (size_t i = h->lo; i < h->hi; i++)\n"
            "        h->y[i] = dot(h->A + i * h->n, h->x, h->n);\n    return NULL;\n}\n\n"
            "int rl_gemv(const float *A, size_t m, size_t n, const float *x, float *y)\n{\n"
            "    if (!A || !x || !y || !m || !n)\n        return -EINVAL;\n"
            "    if (m > 1000) {\n        pthread_t t;\n"
            "        half_t h = { A, x, y, m / 2, m, n };\n"
            "        if (pthread_create(&t, NULL, other_half, &h) == 0) {\n"
            "            for (size_t i = 0; i < m / 2; i++)\n"
            "                y[i] = dot(A + i * n, x, n);\n"
            "            pthread_join(t, NULL);\n            return 0;\n        }\n    }\n"},
]


@pytest.fixture(scope="module")
def metrics():
    """The two cheats' submission, its metrics graded once for this module's tests."""
    with tempfile.TemporaryDirectory(prefix="mlmem-lab10-cheats-") as tmp:
        sub = variants.make(SLUG, os.path.join(tmp, "sub"), [LAZY_SOFTMAX, *TWO_THREAD_GEMV])
        with open(LOCK, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            g = grade(sub, "10", os.path.join(tmp, "out"), extra=["--parts", "metrics"])
        yield g.metrics("10")


def skipped(m: dict) -> bool:
    return m.get("status") == "skipped" or "SKIPPED" in m["output"]


def test_a_kept_output_fails_softmax(metrics):
    m = metrics["softmax_vs_triad"]
    if skipped(m):
        pytest.skip("this machine's gate skips lab 10's metrics: " + m["output"])
    assert m["score"] == 0 and "output is wrong" in m["output"], m["output"]


# What a second thread that ran beside the first without being caught may gain: the benchmark's
# limit on CPU time over wall time (bench_lab10.c's MAX_CPU_OVER_WALL, 1.1), and a margin for
# the noise of two paired runs. One that ran freely (the other core idle) gains 1.5-2x, and is
# caught.
UNCAUGHT_MAX = 1.25


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="needs two cores: the second thread "
                    "must run beside the first for its CPU time to show")
def test_a_second_thread_fails_gemv_or_gains_little(metrics):
    m = metrics["gemv_vs_triad"]
    if skipped(m):
        pytest.skip("this machine's gate skips lab 10's metrics: " + m["output"])
    out = m["output"]
    if "cores" in out:
        assert m["score"] == 0, out
    else:  # the other core was busy: the second thread barely ran
        frac = re.search(r"([\d.]+) of the reference", out)
        assert frac and float(frac.group(1)) < UNCAUGHT_MAX, f"a second thread gained: {out}"


def test_the_kernel_left_alone_is_scored(metrics):
    m = metrics["layernorm_vs_triad"]
    if skipped(m):
        pytest.skip("this machine's gate skips lab 10's metrics: " + m["output"])
    assert m["score"] > 0, m["output"]
