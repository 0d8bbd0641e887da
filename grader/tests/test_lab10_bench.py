"""Lab 10's benchmark times only correct, one-thread work: a softmax that keeps its first output
and returns at once on later calls fails its metric with the reason; a GEMV that splits its rows
with a second thread on another core fails when that thread really runs beside it (its CPU time
shows), and otherwise gains nothing; the kernels they leave alone are still scored."""
import fcntl
import os
import re

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


def bench_metrics(tmp_path, patches) -> dict:
    sub = variants.make(SLUG, str(tmp_path / "sub"), patches)
    with open(LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        g = grade(sub, "10", str(tmp_path / "out"), extra=["--parts", "metrics"])
    return g.metrics("10")


def skipped(m: dict) -> bool:
    return m.get("status") == "skipped" or "SKIPPED" in m["output"]


def test_a_kept_output_fails_softmax_only(tmp_path):
    m = bench_metrics(tmp_path, [LAZY_SOFTMAX])
    if skipped(m["softmax_vs_triad"]):
        pytest.skip("this machine's gate skips lab 10's metrics: " + m["softmax_vs_triad"]["output"])
    out = m["softmax_vs_triad"]["output"]
    assert m["softmax_vs_triad"]["score"] == 0 and "output is wrong" in out, out
    for name in ("gemv_vs_triad", "layernorm_vs_triad"):
        assert m[name]["score"] > 0, m[name]["output"]


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="needs two cores: the second thread "
                    "must run beside the first for its CPU time to show")
def test_a_second_thread_fails_gemv_only(tmp_path):
    m = bench_metrics(tmp_path, TWO_THREAD_GEMV)
    if skipped(m["gemv_vs_triad"]):
        pytest.skip("this machine's gate skips lab 10's metrics: " + m["gemv_vs_triad"]["output"])
    out = m["gemv_vs_triad"]["output"]
    if "cores" not in out:  # the other core was busy: the second thread barely ran
        frac = re.search(r"([\d.]+) of the reference", out)
        assert frac and float(frac.group(1)) < 1.1, f"a second thread gained: {out}"
    else:
        assert m["gemv_vs_triad"]["score"] == 0, out
    assert m["softmax_vs_triad"]["score"] > 0, m["softmax_vs_triad"]["output"]
