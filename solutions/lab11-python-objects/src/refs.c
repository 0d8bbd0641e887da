/* Lab 11, part B: functions and an iterator that own exactly the references they should, on
 * every path: group_by (bucketing samples), batches (a batch sampler) and collate (stacking
 * samples into one TensorBuf through the buffer protocol, as a DataLoader's collate does). */
#include "pyobj.h"

/* Appends item to the list d[k] (made if absent). 0, or -1 with the exception set. */
static int append_to_group(PyObject *d, PyObject *k, PyObject *item)
{
    PyObject *group = PyDict_GetItemWithError(d, k);   /* borrowed */
    if (group)
        return PyList_Append(group, item);
    if (PyErr_Occurred())
        return -1;
    group = PyList_New(0);
    if (!group)
        return -1;
    int rc = PyList_Append(group, item) < 0 ? -1 : PyDict_SetItem(d, k, group);
    Py_DECREF(group);
    return rc;
}

/* Files every item of `it` under key(item) in d. 0, or -1 with the exception set. */
static int fill_groups(PyObject *d, PyObject *it, PyObject *key)
{
    PyObject *item;
    while ((item = PyIter_Next(it))) {
        PyObject *k = PyObject_CallOneArg(key, item);
        int rc = k ? append_to_group(d, k, item) : -1;
        Py_XDECREF(k);
        Py_DECREF(item);
        if (rc < 0)
            return -1;
    }
    return PyErr_Occurred() ? -1 : 0;
}

PyObject *po_group_by(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *iterable, *key;
    if (!PyArg_ParseTuple(args, "OO:group_by", &iterable, &key))
        return NULL;
    PyObject *it = PyObject_GetIter(iterable);
    if (!it)
        return NULL;
    PyObject *d = PyDict_New();
    if (d && fill_groups(d, it, key) < 0)
        Py_CLEAR(d);
    Py_DECREF(it);
    return d;
}

PyObject *po_batches_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = { "iterable", "n", "drop_last", NULL };
    PyObject *iterable;
    Py_ssize_t n;
    int drop_last = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "On|p:batches", kwlist, &iterable, &n,
                                     &drop_last))
        return NULL;
    if (n < 1)
        return PyErr_Format(PyExc_ValueError, "a batch holds at least 1 item, not %zd", n);
    PyObject *it = PyObject_GetIter(iterable);
    if (!it)
        return NULL;
    po_batches_t *b = (po_batches_t *)type->tp_alloc(type, 0);
    if (!b) {
        Py_DECREF(it);
        return NULL;
    }
    b->it = it;
    b->n = n;
    b->drop_last = drop_last;
    return (PyObject *)b;
}

void po_batches_dealloc(PyObject *self)
{
    PyObject_GC_UnTrack(self);
    Py_CLEAR(((po_batches_t *)self)->it);
    Py_TYPE(self)->tp_free(self);
}

int po_batches_traverse(PyObject *self, visitproc visit, void *arg)
{
    Py_VISIT(((po_batches_t *)self)->it);
    return 0;
}

/* The first k items of `full` (a tuple of b->n slots) as a tuple of their own. */
static PyObject *shorter(PyObject *full, Py_ssize_t k)
{
    PyObject *t = PyTuple_GetSlice(full, 0, k);
    Py_DECREF(full);
    return t;
}

PyObject *po_batches_next(PyObject *self)
{
    po_batches_t *b = (po_batches_t *)self;
    if (!b->it)
        return NULL;
    PyObject *batch = PyTuple_New(b->n);
    if (!batch)
        return NULL;
    Py_ssize_t k = 0;
    for (; k < b->n; k++) {
        PyObject *item = PyIter_Next(b->it);
        if (!item)
            break;
        PyTuple_SET_ITEM(batch, k, item);
    }
    if (PyErr_Occurred()) {
        Py_DECREF(batch);   /* drops the items taken so far; empty slots are NULL */
        return NULL;
    }
    if (k == b->n)
        return batch;
    Py_CLEAR(b->it);   /* the source is exhausted: so are the batches */
    if (k == 0 || b->drop_last) {
        Py_DECREF(batch);
        return NULL;
    }
    return shorter(batch, k);
}

/* The collated tensor's header from the first sample's buffer: shape (k, *shape). */
static po_tensorbuf_t *stacked_for(const Py_buffer *first, Py_ssize_t k)
{
    Py_ssize_t itemsize = po_itemsize(first->format);
    if (itemsize == 0 || itemsize != first->itemsize || first->ndim >= PO_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "cannot collate samples of format '%.10s' and %d "
                     "dimensions", first->format ? first->format : "?", first->ndim);
        return NULL;
    }
    Py_ssize_t dims[PO_MAX_DIMS];
    dims[0] = k;
    for (int d = 0; d < first->ndim; d++)
        dims[d + 1] = first->shape[d];
    PyObject *shape = PyTuple_New(first->ndim + 1);
    for (int d = 0; shape && d <= first->ndim; d++) {
        PyObject *x = PyLong_FromSsize_t(dims[d]);
        if (!x) {
            Py_CLEAR(shape);
            break;
        }
        PyTuple_SET_ITEM(shape, d, x);
    }
    if (!shape)
        return NULL;
    PyObject *args = Py_BuildValue("(Os)", shape, first->format);
    Py_DECREF(shape);
    if (!args)
        return NULL;
    PyObject *t = po_tensorbuf_new(&po_tensorbuf_type, args, NULL);
    Py_DECREF(args);
    return (po_tensorbuf_t *)t;
}

/* 1 if a and b have the same format and shape. */
static int same_layout(const Py_buffer *a, const Py_buffer *b)
{
    if (a->ndim != b->ndim || a->itemsize != b->itemsize || strcmp(a->format, b->format) != 0)
        return 0;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d])
            return 0;
    return 1;
}

/* Copies sample i into out's slot i (first: sample 0's buffer). 0, or -1 with the exception. */
static int copy_sample(po_tensorbuf_t *out, PyObject *sample, Py_ssize_t i, const Py_buffer *first)
{
    Py_buffer b;
    if (PyObject_GetBuffer(sample, &b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    int rc = 0;
    if (!same_layout(first, &b)) {
        PyErr_Format(PyExc_ValueError, "sample %zd's shape or format differs from sample 0's", i);
        rc = -1;
    } else if (b.len) {
        memcpy(out->data + i * b.len, b.buf, (size_t)b.len);
    }
    PyBuffer_Release(&b);
    return rc;
}

PyObject *po_collate(PyObject *module, PyObject *samples)
{
    (void)module;
    if (!PyList_Check(samples) && !PyTuple_Check(samples))
        return PyErr_Format(PyExc_TypeError, "collate takes a list or tuple, not %.100s",
                            Py_TYPE(samples)->tp_name);
    Py_ssize_t k = PySequence_Fast_GET_SIZE(samples);
    if (k == 0)
        return PyErr_Format(PyExc_ValueError, "collate needs at least one sample");
    PyObject **items = PySequence_Fast_ITEMS(samples);
    Py_buffer first;
    if (PyObject_GetBuffer(items[0], &first, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    po_tensorbuf_t *out = stacked_for(&first, k);
    for (Py_ssize_t i = 0; out && i < k; i++)
        if (copy_sample(out, items[i], i, &first) < 0)
            Py_CLEAR(out);
    PyBuffer_Release(&first);
    return (PyObject *)out;
}
