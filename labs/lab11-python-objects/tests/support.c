/* Lab 11 tests: the embedded debug interpreter, reference counting and allocation-failure
 * injection (see support.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pysrc.h"
#include "support.h"

static PyObject *ns;   /* the tests' namespace, made in the test's process */

/* Runs `src` as the body of module `name` (registered in sys.modules); 0 or -1 (exception set). */
static int exec_module(const char *name, const char *src)
{
    char file[64];
    snprintf(file, sizeof file, "%s.py", name);
    PyObject *m = PyImport_AddModule(name);   /* borrowed */
    PyObject *code = m ? Py_CompileString(src, file, Py_file_input) : NULL;
    if (!code)
        return -1;
    PyObject *d = PyModule_GetDict(m);
    if (!PyDict_GetItemString(d, "__builtins__"))
        PyDict_SetItemString(d, "__builtins__", PyEval_GetBuiltins());
    PyObject *r = PyEval_EvalCode(code, d, d);
    Py_DECREF(code);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

/* The pending exception as "Type: message" in buf (cleared), or "no exception". */
static const char *exception_text(char *buf, size_t cap)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *s = value ? PyObject_Str(value) : NULL;
    const char *msg = s ? PyUnicode_AsUTF8(s) : NULL;
    snprintf(buf, cap, "%s: %s", type ? ((PyTypeObject *)type)->tp_name : "no exception",
             msg ? msg : "");
    PyErr_Clear();
    Py_XDECREF(s);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return buf;
}

static void fail_with_exception(const char *what)
{
    char buf[1024];
    ck_abort_msg("%s raised %s", what, exception_text(buf, sizeof buf));
}

/* Parent: the interpreter, NumPy (one BLAS thread: the tests fork) and the provided modules. */
static void start_interpreter(void)
{
    if (Py_IsInitialized())
        return;
    setenv("OPENBLAS_NUM_THREADS", "1", 1);
    setenv("OMP_NUM_THREADS", "1", 1);
    setenv("PYTHONHASHSEED", "0", 1);
    PyImport_AppendInittab("pyobj", PyInit_pyobj);
    Py_InitializeEx(0);
    int rc = PyRun_SimpleString("import gc, sys, tracemalloc, weakref, traceback, functools\n"
                                "import numpy, numpy.random, numpy.linalg\n");
    if (rc == 0 && (exec_module("minigrad", po_src_minigrad) < 0 ||
                    exec_module("harness", po_src_harness) < 0)) {
        PyErr_Print();
        rc = -1;
    }
    if (rc != 0) {
        fprintf(stderr, "lab 11: the debug interpreter could not import NumPy or the provided "
                        "modules (apt-get install python3-dbg python3-numpy)\n");
        exit(1);
    }
}

/* The test's process: your module, and the namespace. */
static void import_pyobj(void)
{
    PyObject *m = PyImport_ImportModule("pyobj");
    if (!m)
        fail_with_exception("import pyobj");
    ns = PyDict_New();
    ck_assert_ptr_nonnull(ns);
    PyDict_SetItemString(ns, "pyobj", m);
    Py_DECREF(m);
    PyDict_SetItemString(ns, "__builtins__", PyEval_GetBuiltins());
    tu_ok("import gc, sys, tracemalloc, weakref\nimport numpy as np\nimport minigrad as mg\n"
          "import harness\n");
}

const mm_fixture_t tu_py = { .setup = import_pyobj, .parent_setup = start_interpreter };

PyObject *tu_ns(void)
{
    return ns;
}

void tu_ok(const char *code)
{
    PyObject *r = PyRun_String(code, Py_file_input, ns, ns);
    if (!r) {
        char buf[1024];
        ck_abort_msg("%s\n  (in the test's Python code:\n%s)", exception_text(buf, sizeof buf),
                     code);
    }
    Py_DECREF(r);
}

PyObject *tu_eval(const char *expr)
{
    PyObject *r = PyRun_String(expr, Py_eval_input, ns, ns);
    if (!r)
        fail_with_exception(expr);
    return r;
}

long tu_long(const char *expr)
{
    PyObject *r = tu_eval(expr);
    long v = PyLong_AsLong(r);
    Py_DECREF(r);
    if (v == -1 && PyErr_Occurred())
        fail_with_exception(expr);
    return v;
}

void tu_assert_counted(const char *expr)
{
    char call[512];
    int n = snprintf(call, sizeof call, "ascii(harness.uncounted(%s))[:200]", expr);
    ck_assert_msg(n > 0 && (size_t)n < sizeof call, "tu_assert_counted: expression too long");
    PyObject *r = tu_eval(call);
    const char *found = PyUnicode_AsUTF8(r);
    ck_assert_msg(found && strcmp(found, "[]") == 0, "the test's inputs %s include objects whose "
                  "references this Python does not count (immortal, PEP 683): %s", expr,
                  found ? found : "?");
    Py_DECREF(r);
}

Py_ssize_t tu_total_refs(void)
{
    PyObject *f = PySys_GetObject("gettotalrefcount");   /* borrowed */
    ck_assert_msg(f != NULL, "this is not the debug interpreter: no sys.gettotalrefcount");
    PyObject *r = PyObject_CallNoArgs(f);
    ck_assert_ptr_nonnull(r);
    Py_ssize_t n = PyLong_AsSsize_t(r);
    Py_DECREF(r);
    return n;
}

/* One run of a scenario, its result dropped and its exception cleared. */
static void run_once(tu_scenario_fn fn, void *arg)
{
    PyObject *r = fn(arg);
    Py_XDECREF(r);
    PyErr_Clear();
}

/* Collected, then the collector held off, so that no collection lands inside a measurement. */
static Py_ssize_t settled_refs(void)
{
    PyGC_Enable();
    PyGC_Collect();
    PyGC_Disable();
    return tu_total_refs();
}

long tu_refs_left(tu_scenario_fn fn, void *arg, int reps)
{
    run_once(fn, arg);
    run_once(fn, arg);
    Py_ssize_t before = settled_refs();
    for (int i = 0; i < reps; i++)
        run_once(fn, arg);
    Py_ssize_t left = settled_refs() - before;
    PyGC_Enable();
    return (long)(left / reps);
}

/* ---- allocation-failure injection ------------------------------------------------------- */

static PyMemAllocatorEx orig_mem, orig_obj;
static long nallocs, fail_at;   /* while fail_at > 0, allocation number fail_at fails */

static int fails_now(void)
{
    return fail_at > 0 && ++nallocs == fail_at;
}

static void *f_malloc(void *ctx, size_t n)
{
    PyMemAllocatorEx *o = ctx;
    return fails_now() ? NULL : o->malloc(o->ctx, n);
}

static void *f_calloc(void *ctx, size_t k, size_t n)
{
    PyMemAllocatorEx *o = ctx;
    return fails_now() ? NULL : o->calloc(o->ctx, k, n);
}

static void *f_realloc(void *ctx, void *p, size_t n)
{
    PyMemAllocatorEx *o = ctx;
    return fails_now() ? NULL : o->realloc(o->ctx, p, n);
}

static void f_free(void *ctx, void *p)
{
    PyMemAllocatorEx *o = ctx;
    o->free(o->ctx, p);
}

/* Puts the failing allocators over CPython's (PYMEM_DOMAIN_MEM and _OBJ), or takes them off. */
static void inject(int on)
{
    static PyMemAllocatorEx mem_hook = { &orig_mem, f_malloc, f_calloc, f_realloc, f_free },
                            obj_hook = { &orig_obj, f_malloc, f_calloc, f_realloc, f_free };
    static int installed;
    if (on && !installed) {
        PyMem_GetAllocator(PYMEM_DOMAIN_MEM, &orig_mem);
        PyMem_GetAllocator(PYMEM_DOMAIN_OBJ, &orig_obj);
        PyMem_SetAllocator(PYMEM_DOMAIN_MEM, &mem_hook);
        PyMem_SetAllocator(PYMEM_DOMAIN_OBJ, &obj_hook);
    } else if (!on && installed) {
        PyMem_SetAllocator(PYMEM_DOMAIN_MEM, &orig_mem);
        PyMem_SetAllocator(PYMEM_DOMAIN_OBJ, &orig_obj);
    }
    installed = on;
}

/* One run with allocation k failing; 1 if the run made fewer than k allocations (it completed
 * with nothing failed), else 0. Records the first broken rule in out->bad. */
static int run_failing(tu_scenario_fn fn, void *arg, long k, tu_sweep_t *out)
{
    nallocs = 0;
    fail_at = k;
    PyObject *r = fn(arg);
    fail_at = 0;
    int completed = nallocs < k;
    int raised = PyErr_Occurred() != NULL;
    if (!out->bad[0] && !r && !raised)
        snprintf(out->bad, sizeof out->bad, "with allocation %ld failing, it returned NULL "
                 "without setting an exception (SystemError in Python)", k);
    if (!out->bad[0] && r && raised)
        snprintf(out->bad, sizeof out->bad, "with allocation %ld failing, it returned a result "
                 "with an exception still set", k);
    if (!out->bad[0] && completed && !r) {
        char buf[200];
        snprintf(out->bad, sizeof out->bad, "with no allocation failing, it raised %s",
                 exception_text(buf, sizeof buf));
    }
    out->runs++;
    out->failed_runs += r == NULL;
    Py_XDECREF(r);
    PyErr_Clear();
    return completed;
}

static void sweep_once(tu_scenario_fn fn, void *arg, tu_sweep_t *out)
{
    inject(1);
    for (long k = 1;; k++) {
        ck_assert_msg(k <= 20000, "the scenario made more than 20000 allocations");
        if (run_failing(fn, arg, k, out))
            break;
    }
    inject(0);
}

void tu_sweep(tu_scenario_fn fn, void *arg, tu_sweep_t *out)
{
    memset(out, 0, sizeof *out);
    sweep_once(fn, arg, out);
    Py_ssize_t before = settled_refs();
    sweep_once(fn, arg, out);
    out->refs_left = (long)(settled_refs() - before);
    PyGC_Enable();
}
