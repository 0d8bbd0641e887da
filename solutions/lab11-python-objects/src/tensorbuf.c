/* Lab 11, part A: TensorBuf, a tensor-like buffer that Python sees through the buffer protocol
 * (PEP 3118): numpy.asarray and memoryview read and write its memory in place, it counts its
 * exports, and it refuses to move its memory while anyone holds a view of it. */
#include "pyobj.h"

#define TB(o) ((po_tensorbuf_t *)(o))

/* One item of a shape: an int >= 0 into *dim, or -1 with TypeError / ValueError. */
static int shape_item(PyObject *item, Py_ssize_t *dim)
{
    if (!PyLong_Check(item)) {
        PyErr_Format(PyExc_TypeError, "a shape holds ints, not %.100s", Py_TYPE(item)->tp_name);
        return -1;
    }
    Py_ssize_t v = PyLong_AsSsize_t(item);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < 0) {
        PyErr_Format(PyExc_ValueError, "a dimension cannot be negative (%zd)", v);
        return -1;
    }
    *dim = v;
    return 0;
}

/* -1 with ValueError if dims[0..ndim) of itemsize-byte elements exceed PY_SSIZE_T_MAX bytes. */
static int check_total(const Py_ssize_t *dims, int ndim, Py_ssize_t itemsize)
{
    Py_ssize_t total = itemsize;
    for (int d = 0; d < ndim; d++) {
        if (dims[d] && total > PY_SSIZE_T_MAX / dims[d]) {
            PyErr_SetString(PyExc_ValueError, "that shape holds more bytes than memory can");
            return -1;
        }
        total *= dims[d];
    }
    return 0;
}

int po_parse_shape(PyObject *shape, Py_ssize_t itemsize, Py_ssize_t *dims, int *ndim)
{
    PyObject *seq = PySequence_Fast(shape, "a shape is a sequence of ints");
    if (!seq)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int rc = 0;
    if (n > PO_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "at most %d dimensions, not %zd", PO_MAX_DIMS, n);
        rc = -1;
    }
    for (Py_ssize_t d = 0; rc == 0 && d < n; d++)
        rc = shape_item(PySequence_Fast_GET_ITEM(seq, d), &dims[d]);
    Py_DECREF(seq);
    if (rc == 0)
        rc = check_total(dims, (int)n, itemsize);
    if (rc == 0)
        *ndim = (int)n;
    return rc;
}

PyObject *po_tensorbuf_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = { "shape", "format", "readonly", NULL };
    PyObject *shape;
    const char *format = "f";
    int readonly = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|sp:TensorBuf", kwlist, &shape, &format,
                                     &readonly))
        return NULL;
    Py_ssize_t itemsize = po_itemsize(format), dims[PO_MAX_DIMS];
    int ndim;
    if (itemsize == 0)
        return PyErr_Format(PyExc_ValueError, "unknown format '%.10s'", format);
    if (po_parse_shape(shape, itemsize, dims, &ndim) < 0)
        return NULL;
    po_tensorbuf_t *t = (po_tensorbuf_t *)type->tp_alloc(type, 0);
    if (!t)
        return NULL;
    t->ndim = ndim;
    memcpy(t->shape, dims, (size_t)ndim * sizeof dims[0]);
    t->itemsize = itemsize;
    t->format[0] = format[0];
    t->readonly = readonly;
    po_set_contiguous_strides(t);
    Py_ssize_t n = po_nbytes(t);
    if (n > 0 && !(t->data = PyMem_Calloc((size_t)n, 1))) {
        Py_DECREF(t);
        return PyErr_NoMemory();
    }
    return (PyObject *)t;
}

void po_tensorbuf_dealloc(PyObject *self)
{
    po_tensorbuf_t *t = TB(self);
    if (t->base) {
        t->base->exports--;
        Py_CLEAR(t->base);
    } else {
        PyMem_Free(t->data);
    }
    Py_TYPE(self)->tp_free(self);
}

/* Fortran order: the first dimension varies fastest. */
static int is_f_contiguous(const po_tensorbuf_t *t)
{
    Py_ssize_t want = t->itemsize;
    if (po_nbytes(t) == 0)
        return 1;
    for (int d = 0; d < t->ndim; d++) {
        if (t->shape[d] != 1 && t->strides[d] != want)
            return 0;
        want *= t->shape[d];
    }
    return 1;
}

/* Why `flags` cannot be served by t, or NULL if they can. */
static const char *refusal(const po_tensorbuf_t *t, int flags)
{
    if ((flags & PyBUF_WRITABLE) && t->readonly)
        return "this TensorBuf is read-only";
    int c = po_is_c_contiguous(t);
    if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES && !c)
        return "this TensorBuf is not C-contiguous: ask for strides";
    if ((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS && !c)
        return "this TensorBuf is not C-contiguous";
    if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS && !is_f_contiguous(t))
        return "this TensorBuf is not Fortran-contiguous";
    if ((flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS && !c && !is_f_contiguous(t))
        return "this TensorBuf is not contiguous";
    return NULL;
}

int po_tensorbuf_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    po_tensorbuf_t *t = TB(self);
    const char *why = refusal(t, flags);
    if (why) {
        view->obj = NULL;
        PyErr_SetString(PyExc_BufferError, why);
        return -1;
    }
    view->buf = t->data;
    view->obj = Py_NewRef(self);
    view->len = po_nbytes(t);
    view->itemsize = t->itemsize;
    view->readonly = t->readonly;
    view->ndim = t->ndim;
    view->format = (flags & PyBUF_FORMAT) ? t->format : NULL;
    view->shape = (flags & PyBUF_ND) ? t->shape : NULL;
    view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? t->strides : NULL;
    view->suboffsets = NULL;
    view->internal = NULL;
    t->exports++;
    return 0;
}

void po_tensorbuf_releasebuffer(PyObject *self, Py_buffer *view)
{
    (void)view;
    TB(self)->exports--;
}

PyObject *po_tensorbuf_resize(PyObject *self, PyObject *shape)
{
    po_tensorbuf_t *t = TB(self);
    if (t->exports > 0 || t->base)
        return PyErr_Format(PyExc_BufferError, "cannot resize a TensorBuf %s",
                            t->base ? "that is a view" : "while it is exported");
    Py_ssize_t dims[PO_MAX_DIMS];
    int ndim;
    if (po_parse_shape(shape, t->itemsize, dims, &ndim) < 0)
        return NULL;
    po_tensorbuf_t next = *t;
    next.ndim = ndim;
    memcpy(next.shape, dims, (size_t)ndim * sizeof dims[0]);
    Py_ssize_t old = po_nbytes(t), n = po_nbytes(&next);
    char *data = t->data;
    if (n != old) {
        data = n ? PyMem_Realloc(t->data, (size_t)n) : NULL;
        if (n && !data)
            return PyErr_NoMemory();
        if (!n)
            PyMem_Free(t->data);
        if (n > old)
            memset(data + old, 0, (size_t)(n - old));
    }
    t->data = data;
    t->ndim = ndim;
    memcpy(t->shape, dims, (size_t)ndim * sizeof dims[0]);
    po_set_contiguous_strides(t);
    Py_RETURN_NONE;
}

PyObject *po_tensorbuf_transpose(PyObject *self, PyObject *unused)
{
    (void)unused;
    po_tensorbuf_t *t = TB(self);
    po_tensorbuf_t *owner = t->base ? t->base : t;
    po_tensorbuf_t *v = (po_tensorbuf_t *)Py_TYPE(self)->tp_alloc(Py_TYPE(self), 0);
    if (!v)
        return NULL;
    v->data = t->data;
    v->ndim = t->ndim;
    for (int d = 0; d < t->ndim; d++) {
        v->shape[d] = t->shape[t->ndim - 1 - d];
        v->strides[d] = t->strides[t->ndim - 1 - d];
    }
    v->itemsize = t->itemsize;
    memcpy(v->format, t->format, sizeof v->format);
    v->readonly = t->readonly;
    v->base = (po_tensorbuf_t *)Py_NewRef(owner);
    owner->exports++;
    return (PyObject *)v;
}
