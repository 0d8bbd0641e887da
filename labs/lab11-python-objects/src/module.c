/* Lab 11 (provided; do not edit: the grader uses its own copy): the Python module `pyobj`, the
 * TensorBuf and batches types around the functions you write (include/pyobj.h), and the shape
 * helpers both parts share. */
#include "pyobj.h"

Py_ssize_t po_itemsize(const char *format)
{
    static const struct { char code; Py_ssize_t size; } sizes[] = {
        { 'b', 1 }, { 'B', 1 }, { 'h', 2 }, { 'H', 2 }, { 'i', 4 },
        { 'I', 4 }, { 'l', sizeof(long) }, { 'L', sizeof(long) }, { 'q', 8 }, { 'Q', 8 },
        { 'f', 4 }, { 'd', 8 },
    };
    if (!format || !format[0] || format[1])
        return 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        if (sizes[k].code == format[0])
            return sizes[k].size;
    return 0;
}

Py_ssize_t po_nbytes(const po_tensorbuf_t *t)
{
    Py_ssize_t n = t->itemsize;
    for (int d = 0; d < t->ndim; d++)
        n *= t->shape[d];
    return n;
}

int po_is_c_contiguous(const po_tensorbuf_t *t)
{
    Py_ssize_t want = t->itemsize;
    if (po_nbytes(t) == 0)
        return 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        if (t->shape[d] != 1 && t->strides[d] != want)
            return 0;
        want *= t->shape[d];
    }
    return 1;
}

void po_set_contiguous_strides(po_tensorbuf_t *t)
{
    Py_ssize_t s = t->itemsize;
    for (int d = t->ndim - 1; d >= 0; d--) {
        t->strides[d] = s;
        s *= t->shape[d] > 0 ? t->shape[d] : 1;
    }
}

/* A tuple of n Py_ssize_t values, or NULL with MemoryError. */
static PyObject *ssize_tuple(const Py_ssize_t *v, int n)
{
    PyObject *t = PyTuple_New(n);
    for (int d = 0; t && d < n; d++) {
        PyObject *x = PyLong_FromSsize_t(v[d]);
        if (!x) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, d, x);
    }
    return t;
}

#define TB(o) ((po_tensorbuf_t *)(o))

static PyObject *get_shape(PyObject *self, void *unused)
{
    (void)unused;
    return ssize_tuple(TB(self)->shape, TB(self)->ndim);
}

static PyObject *get_strides(PyObject *self, void *unused)
{
    (void)unused;
    return ssize_tuple(TB(self)->strides, TB(self)->ndim);
}

static PyObject *get_format(PyObject *self, void *unused)
{
    (void)unused;
    return PyUnicode_FromString(TB(self)->format);
}

static PyObject *get_readonly(PyObject *self, void *unused)
{
    (void)unused;
    return PyBool_FromLong(TB(self)->readonly);
}

static PyObject *get_exports(PyObject *self, void *unused)
{
    (void)unused;
    return PyLong_FromSsize_t(TB(self)->exports);
}

static PyObject *get_nbytes(PyObject *self, void *unused)
{
    (void)unused;
    return PyLong_FromSsize_t(po_nbytes(TB(self)));
}

static PyObject *get_base(PyObject *self, void *unused)
{
    (void)unused;
    return Py_NewRef(TB(self)->base ? (PyObject *)TB(self)->base : Py_None);
}

static PyGetSetDef tensorbuf_getset[] = {
    { "shape", get_shape, NULL, "the shape, a tuple of ints", NULL },
    { "strides", get_strides, NULL, "bytes between neighbours along each dimension", NULL },
    { "format", get_format, NULL, "the struct-module code of one element", NULL },
    { "readonly", get_readonly, NULL, "True if no writable buffer is handed out", NULL },
    { "exports", get_exports, NULL, "live buffer exports and views of this TensorBuf", NULL },
    { "nbytes", get_nbytes, NULL, "bytes of the elements", NULL },
    { "base", get_base, NULL, "the owner of a view's bytes, or None", NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

static PyMethodDef tensorbuf_methods[] = {
    { "resize", po_tensorbuf_resize, METH_O, "resize(shape): a new shape, in place" },
    { "transpose", po_tensorbuf_transpose, METH_NOARGS, "a view with the dimensions reversed" },
    { NULL, NULL, 0, NULL },
};

static PyBufferProcs tensorbuf_as_buffer = {
    .bf_getbuffer = po_tensorbuf_getbuffer,
    .bf_releasebuffer = po_tensorbuf_releasebuffer,
};

PyTypeObject po_tensorbuf_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pyobj.TensorBuf",
    .tp_doc = "TensorBuf(shape, format='f', readonly=False): zero-filled memory with a shape",
    .tp_basicsize = sizeof(po_tensorbuf_t),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = po_tensorbuf_new,
    .tp_dealloc = po_tensorbuf_dealloc,
    .tp_as_buffer = &tensorbuf_as_buffer,
    .tp_methods = tensorbuf_methods,
    .tp_getset = tensorbuf_getset,
};

PyTypeObject po_batches_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pyobj.batches",
    .tp_doc = "batches(iterable, n, drop_last=False): tuples of n items",
    .tp_basicsize = sizeof(po_batches_t),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = po_batches_new,
    .tp_dealloc = po_batches_dealloc,
    .tp_traverse = po_batches_traverse,
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = po_batches_next,
};

static PyMethodDef module_methods[] = {
    { "group_by", po_group_by, METH_VARARGS, "group_by(iterable, key) -> dict of lists" },
    { "collate", po_collate, METH_O, "collate(samples) -> TensorBuf of shape (k, *shape)" },
    { NULL, NULL, 0, NULL },
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, .m_name = "pyobj",
    .m_doc = "Lab 11: Python objects and the memory behind them", .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit_pyobj(void)
{
    if (PyType_Ready(&po_tensorbuf_type) < 0 || PyType_Ready(&po_batches_type) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m && (PyModule_AddObjectRef(m, "TensorBuf", (PyObject *)&po_tensorbuf_type) < 0 ||
              PyModule_AddObjectRef(m, "batches", (PyObject *)&po_batches_type) < 0))
        Py_CLEAR(m);
    return m;
}
