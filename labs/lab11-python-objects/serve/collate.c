/* Lab 11 (the student's process): the benchmark's side here (bench/bench_lab11.c): the samples,
 * made from bytes the benchmark shares, and your collate of them, once (its bytes copied back for
 * the benchmark to compare with its own numpy.stack) or many times in a row (timed from outside,
 * by the benchmark). Workloads collate_samples, collate_once, collate_reps (po_serve.h).
 * Public lab code. */
#include "interp.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "po_serve.h"

static PyObject *samples; /* a list of numpy arrays, made by collate_samples */

/* Copies a request; -EINVAL when it is malformed. */
static int take_request(po_collate_in_t *req, const void *in, size_t in_len)
{
    if (in_len != sizeof *req)
        return -EINVAL;
    memcpy(req, in, sizeof *req);
    return 0;
}

/* The samples, each numpy's own copy of its bytes (as a DataLoader's workers hand them over). */
static const char MAKE_SAMPLES[] =
    "import numpy as np\n"
    "def make(mv, n, dims):\n"
    "    a = np.frombuffer(mv, dtype=np.float32).reshape((n,) + dims)\n"
    "    return [np.array(s) for s in a]\n";

/* Workload "collate_samples" (po_collate_in_t in: src, n, dims; char[PO_TEXT_MAX] out). */
int serve_collate_samples(const void *in, size_t in_len, void *out, size_t out_len)
{
    po_collate_in_t req;
    char *text = out;
    if (take_request(&req, in, in_len) != 0 || out_len != PO_TEXT_MAX || req.n == 0)
        return -EINVAL;
    Py_ssize_t bytes = (Py_ssize_t)(req.n * sizeof(float));
    for (int d = 0; d < 3; d++)
        bytes *= (Py_ssize_t)req.dims[d];
    if (!po_ns(text, out_len))
        return -ENOEXEC;
    PyObject *g = PyDict_New();
    PyObject *r = g ? PyRun_String(MAKE_SAMPLES, Py_file_input, g, g) : NULL;
    PyObject *make = r ? PyDict_GetItemString(g, "make") : NULL; /* borrowed */
    PyObject *mv = make ? PyMemoryView_FromMemory((char *)(uintptr_t)req.src, bytes, PyBUF_READ)
                        : NULL;
    Py_CLEAR(samples);
    samples = mv ? PyObject_CallFunction(make, "On(LLL)", mv, (Py_ssize_t)req.n,
                                         (long long)req.dims[0], (long long)req.dims[1],
                                         (long long)req.dims[2]) : NULL;
    Py_XDECREF(mv);
    Py_XDECREF(r);
    Py_XDECREF(g);
    if (!samples) {
        po_exception_text(text, out_len);
        return 1;
    }
    text[0] = 0;
    return 0;
}

/* The result's layout, and its bytes copied to dst when they are exactly cap. 0, or -1 with an
 * exception set. */
static int copy_result(PyObject *r, const po_collate_in_t *req, po_collate_out_t *ans)
{
    Py_buffer b;
    if (!Py_IS_TYPE(r, &po_tensorbuf_type)) {
        PyErr_Format(PyExc_TypeError, "collate returned a %s, not a TensorBuf",
                     Py_TYPE(r)->tp_name);
        return -1;
    }
    if (PyObject_GetBuffer(r, &b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    ans->ndim = b.ndim;
    for (int d = 0; d < b.ndim && d < PO_GB_DIMS; d++)
        ans->shape[d] = b.shape[d];
    snprintf(ans->format, sizeof ans->format, "%s", b.format ? b.format : "");
    ans->len = b.len;
    if ((uint64_t)b.len == req->cap)
        memcpy((void *)(uintptr_t)req->dst, b.buf, (size_t)b.len);
    PyBuffer_Release(&b);
    return 0;
}

/* Workload "collate_once" (po_collate_in_t in: dst, cap; po_collate_out_t out). */
int serve_collate_once(const void *in, size_t in_len, void *out, size_t out_len)
{
    po_collate_in_t req;
    po_collate_out_t *ans = out;
    if (take_request(&req, in, in_len) != 0 || out_len != sizeof *ans)
        return -EINVAL;
    memset(ans, 0, sizeof *ans);
    if (!samples) {
        snprintf(ans->text, sizeof ans->text, "no samples (collate_samples first)");
        return -EINVAL;
    }
    PyObject *r = po_collate(NULL, samples);
    int rc = r ? copy_result(r, &req, ans) : -1;
    Py_XDECREF(r);
    if (rc < 0)
        po_exception_text(ans->text, sizeof ans->text);
    return rc < 0 ? 1 : 0;
}

/* Workload "collate_reps" (po_collate_in_t in: reps; char[PO_TEXT_MAX] out). */
int serve_collate_reps(const void *in, size_t in_len, void *out, size_t out_len)
{
    po_collate_in_t req;
    char *text = out;
    if (take_request(&req, in, in_len) != 0 || out_len != PO_TEXT_MAX || !samples)
        return -EINVAL;
    for (uint32_t i = 0; i < req.reps; i++) {
        PyObject *r = po_collate(NULL, samples);
        if (!r) {
            po_exception_text(text, out_len);
            return 1;
        }
        Py_DECREF(r);
    }
    text[0] = 0;
    return 0;
}
