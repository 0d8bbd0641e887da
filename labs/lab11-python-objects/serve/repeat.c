/* Lab 11 (the student's process): workload `repeat` (po_serve.h), a case called many times on
 * fresh objects large enough that a reference leaked to one of them keeps memory the kernel
 * counts. The harness reads this process's resident memory from /proc around the calls: that,
 * not anything answered here, is the evidence. Each repeat ends with the heap's free pages given
 * back (malloc_trim), so that memory freed earlier cannot make room for memory kept now. Public
 * lab code. */
#include "interp.h"
#include <errno.h>
#include <malloc.h>
#include <string.h>
#include "po_serve.h"

/* big(tag): a new anonymous mmap.mmap of PO_BIG_BYTES bytes, each `tag` (mod 256), written
 * now. Its pages are its own mapping, given back to the kernel when it is freed: no free space
 * of the heap can stand in for one kept. */
static PyObject *big(PyObject *self, PyObject *arg)
{
    (void)self;
    long tag = PyLong_AsLong(arg);
    if (tag == -1 && PyErr_Occurred())
        return NULL;
    PyObject *mod = PyImport_ImportModule("mmap"); /* imported in the zygote */
    PyObject *priv = mod ? PyObject_GetAttrString(mod, "MAP_PRIVATE") : NULL; /* RssAnon's */
    PyObject *m = priv ? PyObject_CallMethod(mod, "mmap", "inO", -1, (Py_ssize_t)PO_BIG_BYTES,
                                             priv) : NULL;
    Py_XDECREF(priv);
    Py_XDECREF(mod);
    Py_buffer b;
    if (!m || PyObject_GetBuffer(m, &b, PyBUF_WRITABLE) < 0) {
        Py_XDECREF(m);
        return NULL;
    }
    memset(b.buf, (int)(tag & 0xff), (size_t)b.len);
    PyBuffer_Release(&b);
    return m;
}

static PyMethodDef big_def = { "big", big, METH_O, "big(tag): PO_BIG_BYTES bytes of tag, mapped" };

/* The results a `hold` repeat keeps, until the next repeat. */
static PyObject *held;

/* Calls fn(big) reps times, results dropped (or kept in held); the first exception into text. */
static void call_reps(PyObject *fn, PyObject *bigf, int reps, char *text, size_t cap)
{
    for (int i = 0; i < reps; i++) {
        PyObject *r = PyObject_CallOneArg(fn, bigf);
        if (!r && !text[0])
            po_exception_text(text, cap);
        PyErr_Clear();
        if (r && held && PyList_Append(held, r) < 0)
            PyErr_Clear();
        Py_XDECREF(r);
    }
}

/* Workload "repeat" (po_repeat_in_t in, char[PO_TEXT_MAX] out): see po_serve.h. */
int serve_repeat(const void *in, size_t in_len, void *out, size_t out_len)
{
    static po_repeat_in_t req;
    char *text = out;
    if (in_len != sizeof req || out_len != PO_TEXT_MAX)
        return -EINVAL;
    memcpy(&req, in, sizeof req);
    req.code[sizeof req.code - 1] = 0;
    if (req.reps < 1)
        return -EINVAL;
    text[0] = 0;
    Py_CLEAR(held);
    int rc;
    PyObject *fn = po_eval(req.code, text, out_len, &rc);
    if (!fn)
        return rc;
    PyObject *bigf = PyCFunction_New(&big_def, NULL);
    held = req.hold ? PyList_New(0) : NULL;
    if (!bigf || (req.hold && !held)) {
        po_exception_text(text, out_len);
        Py_XDECREF(bigf);
        Py_DECREF(fn);
        return 1;
    }
    PyGC_Enable();
    call_reps(fn, bigf, req.reps, text, out_len);
    Py_DECREF(bigf);
    Py_DECREF(fn);
    PyGC_Collect();
    malloc_trim(0); /* free heap pages back to the kernel: the harness's reading is what lives */
    return 0;
}
