/* Lab 11 benchmark: your collate (one memcpy per sample through the buffer protocol) against a
 * collate that copies through Python objects, as torch.tensor(list of lists) does, timed in the
 * same run round by round, with the gate (the benchmark's own numpy.stack must beat the copying
 * collate clearly). Prints one JSON object (common/mm_bench.h); the grader scores it with
 * lab.toml's thresholds, or against the reference in the same run.
 *
 * Your code runs in a process of its own, with its own interpreter (serve/collate.c). The
 * samples are made there from bytes this program shares; your collate's result comes back
 * through shared memory and is compared here with this program's own numpy.stack of the same
 * samples. Each round times, from here, one call that runs your collate `batch` times in a row
 * (batch chosen so that the call takes MIN_CALL_NS or more: the call's own cost is then small).
 * The two baselines run here, in this program's interpreter, and count only if your process
 * stayed idle meanwhile. */
#define PY_SSIZE_T_CLEAN
#include <Python.h> /* first: it sets feature macros */
#include "po_python.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mm_bench.h"
#include "mm_call.h"
#include "../serve/po_serve.h"

#define SAMPLES 64
#define DIMS 3, 32, 32
#define REPS 15
#define WARMUP 2
/* The gate: numpy.stack (memcpy per sample, the benchmark's own) must be this many times faster
 * than the copy through Python lists in a round for the round to count. Seen on a 2-vCPU AMD
 * EPYC VM: see README.md's calibration. */
#define OBSERVABLE 5.0
/* One timed call of yours: at least MIN_CALL_NS, or MAX_BATCH collates. A call's own cost, the
 * wake-up of your process, is about 30 us on an idle 2-vCPU VM and was seen up to 4 ms on a
 * loaded one: the median of the rounds keeps such a round from counting, and even one counted
 * leaves the reference at 0.6 of itself, above the ramp's full marks (0.5). */
#define MIN_CALL_NS 5000000u
#define MAX_BATCH 64u
#define METRIC "collate_speedup"

/* The Python side here: the samples (64 images of 3 x 32 x 32 float32, as a DataLoader's
 * workers hand them over) and the two collates the benchmark times itself. */
static const char SETUP[] =
    "import numpy as np\n"
    "rng = np.random.default_rng(11)\n"
    "samples = [rng.random((3, 32, 32), dtype=np.float32) for _ in range(64)]\n"
    "def copying():\n"
    "    return np.array([s.tolist() for s in samples], dtype=np.float32)\n"
    "def stacked():\n"
    "    return np.stack(samples)\n";

/* A baseline, run here while your process is watched (idle, shared by both baselines): fn
 * called `times` times; failed when one raised. */
typedef struct {
    PyObject *fn;
    unsigned times;
    int failed;
    mm_idle_t *idle;
} base_case_t;

static void run_base(void *p)
{
    base_case_t *c = p;
    mm_idle_start(c->idle);
    for (unsigned i = 0; i < c->times; i++) {
        PyObject *r = PyObject_CallNoArgs(c->fn);
        if (!r) {
            c->failed = 1;
            PyErr_Clear();
        }
        Py_XDECREF(r);
    }
    mm_idle_stop(c->idle);
}

/* Yours: one call of collate_reps in your process, timed from here by the round. */
typedef struct {
    po_collate_in_t req;
    int rc; /* the first error a call returned */
    char text[PO_TEXT_MAX];
} yours_case_t;

static void run_yours(void *p)
{
    yours_case_t *y = p;
    char text[PO_TEXT_MAX] = "";
    int rc = mm_call_work("collate_reps", &y->req, sizeof y->req, text, sizeof text);
    if (rc != 0 && y->rc == 0) {
        y->rc = rc;
        text[sizeof text - 1] = 0;
        snprintf(y->text, sizeof y->text, "%s", rc < 0 ? strerror(-rc) : text);
    }
}

/* The bytes of numpy.stack(samples), here: a new malloc'd buffer of *len bytes, or NULL. */
static void *stack_bytes(PyObject *ns, size_t *len)
{
    PyObject *r = PyRun_String("stacked()", Py_eval_input, ns, ns);
    Py_buffer b;
    void *copy = NULL;
    if (r && PyObject_GetBuffer(r, &b, PyBUF_C_CONTIGUOUS) == 0) {
        copy = malloc((size_t)b.len);
        if (copy)
            memcpy(copy, b.buf, (size_t)b.len);
        *len = (size_t)b.len;
        PyBuffer_Release(&b);
    }
    Py_XDECREF(r);
    PyErr_Clear();
    return copy;
}

/* '' if your collate of the samples (made in your process from want's bytes) equals want,
 * numpy.stack's here, else why not (in why). */
static const char *check_yours(const void *want, size_t len, char *why, size_t cap)
{
    static const int64_t shape[] = { SAMPLES, DIMS };
    void *src = mm_shared_alloc(len), *dst = mm_shared_alloc(len);
    memcpy(src, want, len);
    po_collate_in_t req = { .src = (uintptr_t)src, .dst = (uintptr_t)dst, .n = SAMPLES,
                            .cap = len, .dims = { DIMS } };
    static po_collate_out_t got;
    int rc = mm_call_work("collate_samples", &req, sizeof req, got.text, sizeof got.text);
    got.text[sizeof got.text - 1] = 0;
    if (rc != 0) {
        snprintf(why, cap, "the samples could not be made in your process: %s",
                 rc < 0 ? strerror(-rc) : got.text);
        return why;
    }
    rc = mm_call_work("collate_once", &req, sizeof req, &got, sizeof got);
    got.text[sizeof got.text - 1] = 0;
    got.format[sizeof got.format - 1] = 0;
    if (rc != 0)
        snprintf(why, cap, "your collate raised %s", rc < 0 ? strerror(-rc) : got.text);
    else if (got.ndim != 4 || memcmp(got.shape, shape, sizeof shape) || strcmp(got.format, "f"))
        snprintf(why, cap, "your collate's result is not of shape (64, 3, 32, 32) and format "
                 "'f'");
    else
        snprintf(why, cap, "%s", (uint64_t)got.len == len && !memcmp(dst, want, len) ? "" :
                 "your collate's result differs from numpy.stack's");
    return why;
}

/* The fastest of two calls of yours running `batch` collates, in ns (UINT64_MAX on an error). */
static uint64_t fastest_call(unsigned batch)
{
    po_collate_in_t req = { .reps = batch };
    char text[PO_TEXT_MAX];
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 2; i++)
        if (mm_call_work("collate_reps", &req, sizeof req, text, sizeof text) == 0 &&
            mm_call_last_ns() < best)
            best = mm_call_last_ns();
    return best;
}

/* How many collates one timed call of yours runs: doubled from 1 until a call takes MIN_CALL_NS
 * or more, or MAX_BATCH. */
static unsigned pick_batch(void)
{
    unsigned batch = 1;
    while (batch < MAX_BATCH && fastest_call(batch) < MIN_CALL_NS)
        batch *= 2;
    return batch;
}

static void report(mm_json_t *j, const mm_bench_gated_t *g, unsigned batch)
{
    double contrast = g->contrast * batch;
    if (g->counted < (REPS + 1) / 2) {
        mm_bench_skipf(j, METRIC, "this run could not show the cost of copying through Python "
                       "objects: numpy.stack beat the list copy %.0fx in only %u of %d rounds "
                       "(median %.1fx); rerun on an idle machine", OBSERVABLE, g->counted, REPS,
                       contrast);
        return;
    }
    mm_bench_metricf(j, METRIC, g->speedup * batch, "x", "copy through lists %.2f ms, yours "
                     "%.3f ms: %.2f of numpy.stack's speed (%.0fx); medians of the %u of %d "
                     "rounds that showed the effect, %d samples of 3 x 32 x 32 float32, %u "
                     "collates per timed call", g->t_base * 1e3, g->t_yours / batch * 1e3,
                     g->vs_ideal, contrast, g->counted, REPS, SAMPLES, batch);
}

/* Times the three in rounds: the copy once, numpy.stack and yours `batch` times each (the gate
 * scaled to match: a round counts when one numpy.stack beats the copy OBSERVABLE times). */
static void time_collates(mm_json_t *j, PyObject *ns, unsigned batch)
{
    mm_idle_t idle = { 0 };
    base_case_t base = { PyDict_GetItemString(ns, "copying"), 1, 0, &idle },
                ideal = { PyDict_GetItemString(ns, "stacked"), batch, 0, &idle };
    static yours_case_t yours;
    yours.req = (po_collate_in_t){ .reps = batch };
    mm_bench_case_t cb = { "copy through lists", run_base, &base },
                    ci = { "numpy.stack", run_base, &ideal }, cy = { "yours", run_yours, &yours };
    mm_bench_gated_t g;
    char why[300];
    if (mm_bench_gated_ratio(&cb, &ci, &cy, WARMUP, REPS, OBSERVABLE / batch, &g) != 0)
        mm_bench_fail(j, METRIC, "could not time the rounds (out of memory)");
    else if (yours.rc != 0)
        mm_bench_failf(j, METRIC, "your collate raised during the rounds: %s", yours.text);
    else if (base.failed || ideal.failed)
        mm_bench_fail(j, METRIC, "a baseline raised during the rounds");
    else if (!mm_idle_ok(&idle, why, sizeof why))
        mm_bench_skip(j, METRIC, why);
    else
        report(j, &g, batch);
}

static unsigned bench_collate(mm_json_t *j, PyObject *ns)
{
    char why[PO_TEXT_MAX + 64];
    size_t len = 0;
    void *want = stack_bytes(ns, &len);
    unsigned batch = 0;
    if (!want)
        mm_bench_fail(j, METRIC, "the benchmark could not stack its samples");
    else if (check_yours(want, len, why, sizeof why)[0])
        mm_bench_fail(j, METRIC, why);
    else
        time_collates(j, ns, batch = pick_batch());
    free(want);
    return batch;
}

/* This program's interpreter and NumPy, before the harness confines the benchmark (an import
 * maps code). The namespace, or NULL. */
static PyObject *start_python(void)
{
    setenv("OPENBLAS_NUM_THREADS", "1", 1);
    char why[400];
    if (po_python_start(why, sizeof why) != 0) {
        fprintf(stderr, "mlmem: %s\n", why);
        return NULL;
    }
    PyObject *ns = PyDict_New();
    PyDict_SetItemString(ns, "__builtins__", PyEval_GetBuiltins());
    PyObject *r = PyRun_String(SETUP, Py_file_input, ns, ns);
    if (!r) {
        PyErr_Print();
        Py_CLEAR(ns);
    }
    Py_XDECREF(r);
    return ns;
}

int main(void)
{
    int rc = mm_call_setup();
    if (rc != 0) {
        fprintf(stderr, "mlmem: cannot start the program that runs your code: %s\n",
                strerror(-rc));
        return 2;
    }
    PyObject *ns = start_python();
    mm_json_t j;
    mm_bench_open(&j, "11");
    unsigned batch = 0;
    if (!ns)
        mm_bench_fail(&j, METRIC, "the debug interpreter could not import NumPy");
    else
        batch = bench_collate(&j, ns);
    mm_bench_end_metrics(&j);
    mm_json_object(&j, "info");
    mm_json_int(&j, "samples", SAMPLES);
    if (batch)
        mm_json_int(&j, "collates_per_call", batch);
    mm_json_end(&j);
    Py_XDECREF(ns);
    return 0;
}
