/* Lab 11 (the student's process): the debug interpreter. A constructor starts it in the zygote,
 * before any server is forked and before any confinement (an import maps code, which the
 * confinement refuses), and imports NumPy and the provided modules there; no student code runs
 * then (the student's object has no constructors; pyobj is only registered, not imported). Each
 * server, forked from the zygote, imports pyobj at its first request. Workloads `py`,
 * `train_loop` and `trajectory` (calls.toml; requests in po_serve.h). Public lab code. */
#include "interp.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "po_python.h"
#include "po_serve.h"
#include "pysrc.h"

static char start_error[512]; /* why the interpreter did not start, or "" */
static PyObject *ns;          /* the test's namespace, made in the server */

const char *po_exception_text(char *text, size_t cap)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *s = value ? PyObject_Str(value) : NULL;
    const char *msg = s ? PyUnicode_AsUTF8(s) : NULL;
    snprintf(text, cap, "%s: %s", type ? ((PyTypeObject *)type)->tp_name : "no exception",
             msg ? msg : "");
    PyErr_Clear();
    Py_XDECREF(s);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return text;
}

/* Runs `src` as the body of module `name` (registered in sys.modules); 0 or -1 (exception set). */
static int exec_module(const char *name, const char *src)
{
    char file[64];
    snprintf(file, sizeof file, "%s.py", name);
    PyObject *m = PyImport_AddModule(name); /* borrowed */
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

/* The zygote: the interpreter, NumPy (one BLAS thread: servers are forked from here) and the
 * provided modules. A failure is kept in start_error; every request then answers it. */
__attribute__((constructor)) static void start_interpreter(void)
{
    setenv("OPENBLAS_NUM_THREADS", "1", 1);
    setenv("OMP_NUM_THREADS", "1", 1);
    setenv("PYTHONHASHSEED", "0", 1);
    PyImport_AppendInittab("pyobj", PyInit_pyobj);
    char cause[sizeof start_error - 16];
    if (po_python_start(cause, sizeof cause) != 0) {
        snprintf(start_error, sizeof start_error, "lab 11: %s", cause);
        return;
    }
    PyObject *main_dict = PyModule_GetDict(PyImport_AddModule("__main__"));
    PyObject *r = PyRun_String("import gc, sys, tracemalloc, weakref, traceback, functools, array\n"
                               "import mmap, numpy, numpy.random, numpy.linalg\n",
                               Py_file_input, main_dict, main_dict);
    Py_XDECREF(r);
    if (!r || exec_module("minigrad", po_src_minigrad) < 0 ||
        exec_module("harness", po_src_harness) < 0) {
        char why[400];
        snprintf(start_error, sizeof start_error, "lab 11: the debug interpreter could not import "
                 "NumPy or the provided modules (apt-get install python3-dbg python3-numpy): %s",
                 po_exception_text(why, sizeof why));
    }
}

/* Makes the namespace: pyobj (your module), sweep (serve/counting.c), then the tests' imports.
 * 0, or -1 (exception set). */
static int make_ns(void)
{
    PyObject *m = PyImport_ImportModule("pyobj"), *sweep = m ? po_sweep_function() : NULL;
    if (!sweep) {
        Py_XDECREF(m);
        return -1;
    }
    ns = PyDict_New();
    int rc = ns && PyDict_SetItemString(ns, "pyobj", m) == 0 &&
             PyDict_SetItemString(ns, "sweep", sweep) == 0 &&
             PyDict_SetItemString(ns, "__builtins__", PyEval_GetBuiltins()) == 0 ? 0 : -1;
    Py_DECREF(m);
    Py_DECREF(sweep);
    PyObject *r = rc ? NULL : PyRun_String("import gc, sys, tracemalloc, weakref\n"
                                           "import numpy as np\nimport minigrad as mg\n"
                                           "import harness\n", Py_file_input, ns, ns);
    if (!r)
        Py_CLEAR(ns);
    Py_XDECREF(r);
    return ns ? 0 : -1;
}

PyObject *po_ns(char *text, size_t cap)
{
    if (ns)
        return ns;
    if (start_error[0]) {
        snprintf(text, cap, "%s", start_error);
        return NULL;
    }
    if (make_ns() < 0) {
        char why[400];
        snprintf(text, cap, "import pyobj raised %s", po_exception_text(why, sizeof why));
        return NULL;
    }
    return ns;
}

PyObject *po_eval(const char *code, char *text, size_t cap, int *rc)
{
    PyObject *d = po_ns(text, cap);
    *rc = -ENOEXEC;
    if (!d)
        return NULL;
    PyObject *r = PyRun_String(code, Py_eval_input, d, d);
    *rc = r ? 0 : 1;
    if (!r)
        po_exception_text(text, cap);
    return r;
}

/* str(value) in text: 0, or 1 with what str() raised. */
static int value_text(PyObject *value, char *text, size_t cap)
{
    PyObject *s = PyObject_Str(value);
    const char *utf8 = s ? PyUnicode_AsUTF8(s) : NULL;
    if (utf8)
        snprintf(text, cap, "%s", utf8);
    else
        po_exception_text(text, cap);
    Py_XDECREF(s);
    return utf8 ? 0 : 1;
}

const char *po_builtin_exception(PyObject *type)
{
    static const struct {
        PyObject **cls;
        const char *name;
    } known[] = {
        { &PyExc_TypeError, "TypeError" }, { &PyExc_ValueError, "ValueError" },
        { &PyExc_BufferError, "BufferError" }, { &PyExc_MemoryError, "MemoryError" },
        { &PyExc_ZeroDivisionError, "ZeroDivisionError" }, { &PyExc_KeyError, "KeyError" },
        { &PyExc_IndexError, "IndexError" }, { &PyExc_OverflowError, "OverflowError" },
        { &PyExc_NotImplementedError, "NotImplementedError" },
        { &PyExc_SystemError, "SystemError" }, { &PyExc_StopIteration, "StopIteration" },
        { &PyExc_AttributeError, "AttributeError" }, { &PyExc_UnicodeError, "UnicodeError" },
        { &PyExc_LookupError, "LookupError" }, { &PyExc_ArithmeticError, "ArithmeticError" },
        { &PyExc_RuntimeError, "RuntimeError" }, { &PyExc_Exception, "Exception" },
    };
    PyObject *mro = type && PyType_Check(type) ? ((PyTypeObject *)type)->tp_mro : NULL;
    for (Py_ssize_t i = 0; mro && PyTuple_Check(mro) && i < PyTuple_GET_SIZE(mro); i++)
        for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
            if (PyTuple_GET_ITEM(mro, i) == *known[k].cls)
                return known[k].name;
    return "BaseException";
}

/* The callable `code` evaluates to, called with no arguments: "" in text if it returned, else
 * the built-in class of what it raised (po_builtin_exception). 0, or what po_eval answered. */
static int call_raised(const char *code, char *text, size_t cap)
{
    int rc;
    PyObject *fn = po_eval(code, text, cap, &rc);
    if (!fn)
        return rc;
    PyObject *r = PyObject_CallNoArgs(fn);
    text[0] = 0;
    if (!r)
        snprintf(text, cap, "%s", po_builtin_exception(PyErr_Occurred()));
    PyErr_Clear();
    Py_XDECREF(r);
    Py_DECREF(fn);
    return 0;
}

/* Workload "py" (po_py_in_t in, char[PO_TEXT_MAX] out): see po_serve.h. */
int serve_py(const void *in, size_t in_len, void *out, size_t out_len)
{
    static po_py_in_t req;
    char *text = out;
    if (in_len != sizeof req || out_len != PO_TEXT_MAX)
        return -EINVAL;
    memcpy(&req, in, sizeof req);
    req.code[sizeof req.code - 1] = 0;
    text[0] = 0;
    if (req.eval == 2)
        return call_raised(req.code, text, out_len);
    if (req.eval) {
        int rc;
        PyObject *r = po_eval(req.code, text, out_len, &rc);
        if (r)
            rc = value_text(r, text, out_len);
        Py_XDECREF(r);
        return rc;
    }
    PyObject *d = po_ns(text, out_len);
    if (!d)
        return -ENOEXEC;
    PyObject *r = PyRun_String(req.code, Py_file_input, d, d);
    if (!r)
        po_exception_text(text, out_len);
    Py_XDECREF(r);
    return r ? 0 : 1;
}

/* Workload "train_loop" (nothing in, char[PO_TEXT_MAX] out): see po_serve.h. */
int serve_train_loop(const void *in, size_t in_len, void *out, size_t out_len)
{
    char *text = out, why[PO_TEXT_MAX - 64];
    (void)in, (void)in_len;
    if (out_len != PO_TEXT_MAX)
        return -EINVAL;
    text[0] = 0;
    PyObject *d = po_ns(text, out_len);
    if (!d)
        return -ENOEXEC;
    PyObject *code = Py_CompileString(po_src_train_loop, "train_loop.py", Py_file_input);
    PyObject *m = code ? PyImport_ExecCodeModule("train_loop", code) : NULL;
    Py_XDECREF(code);
    if (!m || PyDict_SetItemString(d, "train_loop", m) < 0) {
        Py_XDECREF(m);
        snprintf(text, out_len, "src/train_loop.py does not import: %s",
                 po_exception_text(why, sizeof why));
        return 1;
    }
    Py_DECREF(m);
    return 0;
}

/* Workload "trajectory" (po_traj_in_t in, po_traj_out_t out): see po_serve.h. */
int serve_trajectory(const void *in, size_t in_len, void *out, size_t out_len)
{
    po_traj_in_t req;
    po_traj_out_t *ans = out;
    if (in_len != sizeof req || out_len != sizeof *ans)
        return -EINVAL;
    memcpy(&req, in, sizeof req);
    memset(ans, 0, sizeof *ans);
    char code[96];
    snprintf(code, sizeof code, "harness.trajectory(train_loop, %d)", (int)req.steps);
    int rc;
    PyObject *b = po_eval(code, ans->text, sizeof ans->text, &rc);
    if (!b)
        return rc;
    if (PyUnicode_Check(b)) { /* why the run is not what train()'s docstring says */
        const char *why = PyUnicode_AsUTF8(b);
        snprintf(ans->text, sizeof ans->text, "%s", why ? why : "(not UTF-8)");
        PyErr_Clear();
        Py_DECREF(b);
        return 2;
    }
    if (!PyBytes_Check(b)) {
        Py_DECREF(b);
        snprintf(ans->text, sizeof ans->text, "harness.trajectory did not give bytes");
        return 1;
    }
    ans->len = (int64_t)PyBytes_GET_SIZE(b);
    if ((uint64_t)ans->len <= req.cap)
        memcpy((void *)(uintptr_t)req.dst, PyBytes_AS_STRING(b), (size_t)ans->len);
    Py_DECREF(b);
    return 0;
}

/* Under AddressSanitizer (SAN=asan): the interpreter is never finalized (a server ends while it
 * is alive, as Python's own exit leaves most of its memory), so what CPython, NumPy and the
 * libraries they load hold at exit is not a leak of the lab. Your code's references are counted
 * by the tests themselves. */
#if defined(__SANITIZE_ADDRESS__)
#define PO_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PO_ASAN 1
#endif
#endif

#ifdef PO_ASAN
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:_PyMem_RawMalloc\nleak:_PyMem_RawCalloc\nleak:_PyMem_RawRealloc\n"
           "leak:_multiarray_umath\nleak:libcrypto.so\nleak:libpython3\n";
}
#endif
