/* Lab 11 (the student's process): what the tests count with the debug interpreter. Workloads
 * `refs_left` (the references a call leaves behind), `getbuffer` (bf_getbuffer as C sees it) and
 * `sweep` (allocation-failure injection: each allocation of a scenario failed in turn). Every
 * number they answer is this process's word: its interpreter counted it; the harness checks
 * the numbers, and sees a crash for itself (this process dies). Public lab code. */
#include "interp.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "po_serve.h"

/* sys.gettotalrefcount(): every reference the debug interpreter counts, less this call's own;
 * -1 when this is not the debug interpreter. */
static Py_ssize_t total_refs(void)
{
    PyObject *f = PySys_GetObject("gettotalrefcount"); /* borrowed */
    PyObject *r = f ? PyObject_CallNoArgs(f) : NULL;
    Py_ssize_t n = r ? PyLong_AsSsize_t(r) : -1;
    Py_XDECREF(r);
    return n;
}

/* 0 if this is the debug interpreter, else -ENOSYS with why in text. */
static int counting(char *text, size_t cap)
{
    if (PySys_GetObject("gettotalrefcount"))
        return 0;
    snprintf(text, cap, "this is not the debug interpreter: no sys.gettotalrefcount");
    return -ENOSYS;
}

/* Collected, then the collector held off, so that no collection lands inside a measurement. */
static Py_ssize_t settled_refs(void)
{
    PyGC_Enable();
    PyGC_Collect();
    PyGC_Disable();
    return total_refs();
}

/* A scenario: calls code under test with arg and returns a new reference, or NULL with an
 * exception set. */
typedef PyObject *(*scenario_fn)(PyObject *arg);

/* One run of a scenario, its result dropped and its exception cleared. */
static void run_once(scenario_fn fn, PyObject *arg)
{
    PyObject *r = fn(arg);
    Py_XDECREF(r);
    PyErr_Clear();
}

static PyObject *call_py(PyObject *callable)
{
    return PyObject_CallNoArgs(callable);
}

/* Workload "refs_left" (po_refs_in_t in, po_refs_out_t out): the callable runs twice (warm-up:
 * caches the interpreter fills once), then reps times; left is the change of the total count
 * over the reps divided by reps, rounded toward 0: a leak shows as 1 or more, the
 * interpreter's own few one-off references as 0. */
int serve_refs_left(const void *in, size_t in_len, void *out, size_t out_len)
{
    static po_refs_in_t req;
    po_refs_out_t *ans = out;
    if (in_len != sizeof req || out_len != sizeof *ans)
        return -EINVAL;
    memcpy(&req, in, sizeof req);
    req.code[sizeof req.code - 1] = 0;
    if (req.reps < 1)
        return -EINVAL;
    int rc;
    PyObject *fn = po_eval(req.code, ans->text, sizeof ans->text, &rc);
    if (!fn)
        return rc;
    if ((rc = counting(ans->text, sizeof ans->text)) != 0) {
        Py_DECREF(fn);
        return rc;
    }
    run_once(call_py, fn);
    run_once(call_py, fn);
    Py_ssize_t before = settled_refs();
    for (int i = 0; i < req.reps; i++)
        run_once(call_py, fn);
    ans->left = (int64_t)((settled_refs() - before) / req.reps);
    PyGC_Enable();
    Py_DECREF(fn);
    return 0;
}

/* What a view holds, into the answer. */
static void describe_view(const Py_buffer *b, po_getbuffer_out_t *ans)
{
    ans->len = b->len;
    ans->itemsize = b->itemsize;
    ans->readonly = b->readonly;
    ans->ndim = b->ndim;
    ans->has_format = b->format != NULL;
    ans->has_shape = b->shape != NULL;
    ans->has_strides = b->strides != NULL;
    ans->has_suboffsets = b->suboffsets != NULL;
    if (b->format)
        snprintf(ans->format, sizeof ans->format, "%s", b->format);
    for (int d = 0; d < b->ndim && d < PO_GB_DIMS; d++) {
        ans->shape[d] = b->shape ? b->shape[d] : 0;
        ans->strides[d] = b->strides ? b->strides[d] : 0;
    }
}

/* Workload "getbuffer" (po_getbuffer_in_t in, po_getbuffer_out_t out): see po_serve.h. */
int serve_getbuffer(const void *in, size_t in_len, void *out, size_t out_len)
{
    po_getbuffer_in_t req;
    po_getbuffer_out_t *ans = out;
    if (in_len != sizeof req || out_len != sizeof *ans)
        return -EINVAL;
    memcpy(&req, in, sizeof req);
    req.name[sizeof req.name - 1] = 0;
    memset(ans, 0, sizeof *ans);
    int rc;
    PyObject *obj = po_eval(req.name, ans->text, sizeof ans->text, &rc);
    if (!obj)
        return rc;
    Py_buffer b;
    memset(&b, 0, sizeof b);
    b.obj = Py_None; /* a refusal must set it to NULL */
    ans->rc = PyObject_GetBuffer(obj, &b, req.flags);
    ans->obj_is_null = b.obj == NULL;
    ans->obj_is_target = b.obj == obj;
    if (ans->rc < 0) {
        PyObject *type = PyErr_Occurred();
        snprintf(ans->raised, sizeof ans->raised, "%s",
                 type ? po_builtin_exception(type) : "");
        PyErr_Clear();
    } else {
        describe_view(&b, ans);
        PyBuffer_Release(&b);
    }
    ans->exports = Py_IS_TYPE(obj, &po_tensorbuf_type) ? ((po_tensorbuf_t *)obj)->exports : -1;
    Py_DECREF(obj);
    return 0;
}

/* ---- allocation-failure injection ------------------------------------------------------- */

static PyMemAllocatorEx orig_mem, orig_obj;
static long nallocs, fail_at; /* while fail_at > 0, allocation number fail_at fails */

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

/* Where a sweep names its first leak: the total count when last settled, and whether to look
 * (the second sweep only, whose runs are all warm). */
static struct {
    int on;
    Py_ssize_t settled;
} leak_watch;

/* After run k of the watched sweep, whose total count went from before to now: the first run
 * that left references, into out. The collection runs only when the count rose (a leak or
 * garbage not yet collected), so it cannot name a run whose extra references were a cycle. */
static void watch_leak(Py_ssize_t before, long k, int completed, po_sweep_out_t *out)
{
    if (!leak_watch.on || out->first_leak_at || total_refs() <= before)
        return;
    Py_ssize_t now = settled_refs();
    if (now > leak_watch.settled) {
        out->first_leak_at = (int32_t)k;
        out->first_leak_done = completed;
        out->first_leak_refs = (int64_t)(now - leak_watch.settled);
    }
    leak_watch.settled = now;
}

/* A broken contract a scenario saw for itself in the run now going (run_failing reports it). */
static char scenario_bad[160];

/* One run with allocation k failing; 1 if the run made fewer than k allocations (it completed
 * with nothing failed), else 0. Records the first broken rule in out->bad. */
static int run_failing(scenario_fn fn, PyObject *arg, long k, po_sweep_out_t *out)
{
    Py_ssize_t before = leak_watch.on ? total_refs() : 0;
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
    if (!out->bad[0] && scenario_bad[0])
        snprintf(out->bad, sizeof out->bad, "with allocation %ld failing, %s", k, scenario_bad);
    scenario_bad[0] = 0;
    if (!out->bad[0] && completed && !r) {
        char buf[200];
        snprintf(out->bad, sizeof out->bad, "with no allocation failing, it raised %s",
                 po_exception_text(buf, sizeof buf));
    }
    out->runs++;
    out->failed_runs += r == NULL;
    Py_XDECREF(r);
    PyErr_Clear();
    watch_leak(before, k, completed, out);
    return completed;
}

/* One sweep: k = 1, 2, ... until a run completes. 0, or -E2BIG past PO_SWEEP_MAX_RUNS. */
static int sweep_once(scenario_fn fn, PyObject *arg, po_sweep_out_t *out)
{
    int rc = -E2BIG;
    inject(1);
    for (long k = 1; k <= PO_SWEEP_MAX_RUNS; k++)
        if (run_failing(fn, arg, k, out)) {
            rc = 0;
            break;
        }
    inject(0);
    return rc;
}

/* The scenarios: your functions called from C, so that the failures land in your code and in
 * what it calls. The objects whose references are counted are made at run time by the tests
 * (sizes and items above 256): Python 3.12+ counts no reference to an immortal object. */

/* po_tensorbuf_resize(t, shape), and into scenario_bad whether a failed one (MemoryError)
 * left t as it was (pyobj.h: "self is then unchanged"). */
static PyObject *resize_checked(PyObject *t, PyObject *shape)
{
    po_tensorbuf_t was = *(po_tensorbuf_t *)t;
    PyObject *r = po_tensorbuf_resize(t, shape);
    const po_tensorbuf_t *now = (po_tensorbuf_t *)t;
    if (!r && PyErr_ExceptionMatches(PyExc_MemoryError) &&
        (now->data != was.data || now->ndim != was.ndim ||
         memcmp(now->shape, was.shape, sizeof was.shape) ||
         memcmp(now->strides, was.strides, sizeof was.strides)))
        snprintf(scenario_bad, sizeof scenario_bad, "resize raised MemoryError but changed the "
                 "TensorBuf's shape, strides or data (shape[0] %zd -> %zd): pyobj.h says self "
                 "is then unchanged", was.shape[0], now->shape[0]);
    return r;
}

/* TensorBuf(args), resized to (262, 263), a transposed view of it exported and released. */
static PyObject *tensorbuf_life(PyObject *args)
{
    PyObject *t = po_tensorbuf_new(&po_tensorbuf_type, args, NULL);
    if (!t)
        return NULL;
    PyObject *shape = Py_BuildValue("(ii)", 257 + 5, 257 + 6);
    PyObject *r = shape ? resize_checked(t, shape) : NULL;
    Py_XDECREF(shape);
    PyObject *v = r ? po_tensorbuf_transpose(t, NULL) : NULL;
    Py_XDECREF(r);
    Py_buffer b;
    if (v && PyObject_GetBuffer(v, &b, PyBUF_RECORDS) == 0)
        PyBuffer_Release(&b);
    else
        Py_CLEAR(t);
    Py_XDECREF(v);
    return t;
}

static PyObject *group_by_call(PyObject *args)
{
    return po_group_by(NULL, args);
}

/* Every batch of batches(*args), dropped as it comes; None when all came. */
static PyObject *batches_drain(PyObject *args)
{
    PyObject *b = po_batches_new(&po_batches_type, args, NULL), *t;
    if (!b)
        return NULL;
    while ((t = po_batches_next(b)))
        Py_DECREF(t);
    Py_DECREF(b);
    return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
}

static PyObject *collate_call(PyObject *samples)
{
    return po_collate(NULL, samples);
}

static const struct {
    const char *name;
    scenario_fn fn;
} scenarios[] = {
    { "tensorbuf_life", tensorbuf_life },
    { "group_by", group_by_call },
    { "batches_drain", batches_drain },
    { "collate", collate_call },
};

static scenario_fn find_scenario(const char *name)
{
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++)
        if (strcmp(scenarios[i].name, name) == 0)
            return scenarios[i].fn;
    return NULL;
}

/* Workload "sweep" (po_sweep_in_t in, po_sweep_out_t out): the sweep runs twice, refs_left
 * measured over the second; every run's result is dropped and its exception cleared. */
int serve_sweep(const void *in, size_t in_len, void *out, size_t out_len)
{
    static po_sweep_in_t req;
    po_sweep_out_t *ans = out;
    if (in_len != sizeof req || out_len != sizeof *ans)
        return -EINVAL;
    memcpy(&req, in, sizeof req);
    req.scenario[sizeof req.scenario - 1] = 0;
    req.arg[sizeof req.arg - 1] = 0;
    memset(ans, 0, sizeof *ans);
    scenario_fn fn = find_scenario(req.scenario);
    if (!fn)
        return -ENOENT;
    int rc;
    PyObject *arg = po_eval(req.arg, ans->text, sizeof ans->text, &rc);
    if (!arg)
        return rc;
    if ((rc = counting(ans->text, sizeof ans->text)) != 0) {
        Py_DECREF(arg);
        return rc;
    }
    rc = sweep_once(fn, arg, ans);
    Py_ssize_t before = settled_refs();
    leak_watch.on = 1;
    leak_watch.settled = before;
    if (rc == 0)
        rc = sweep_once(fn, arg, ans);
    leak_watch.on = 0;
    ans->refs_left = (int64_t)(settled_refs() - before);
    PyGC_Enable();
    Py_DECREF(arg);
    return rc;
}

/* sweep(scenario, arg) in Python (for the repeat workload): one sweep of the scenario over arg,
 * its findings dropped (what it keeps, the harness reads from /proc); None, or RuntimeError. */
static PyObject *sweep_py(PyObject *self, PyObject *args)
{
    (void)self;
    const char *name;
    PyObject *arg;
    if (!PyArg_ParseTuple(args, "sO", &name, &arg))
        return NULL;
    scenario_fn fn = find_scenario(name);
    po_sweep_out_t *ans = PyMem_RawCalloc(1, sizeof *ans);
    int rc = fn && ans ? sweep_once(fn, arg, ans) : -ENOENT;
    PyMem_RawFree(ans);
    if (rc != 0)
        return PyErr_Format(PyExc_RuntimeError, "sweep(%s): %s", name, strerror(-rc));
    Py_RETURN_NONE;
}

static PyMethodDef sweep_def = { "sweep", sweep_py, METH_VARARGS, "sweep(scenario, arg)" };

PyObject *po_sweep_function(void)
{
    return PyCFunction_New(&sweep_def, NULL);
}
