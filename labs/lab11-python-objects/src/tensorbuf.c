/* Lab 11, part A: TensorBuf, a tensor-like buffer that Python sees through the buffer protocol
 * (PEP 3118): numpy.asarray and memoryview read and write its memory in place, it counts its
 * exports, and it refuses to move its memory while anyone holds a view of it.
 * The contract of each function is in include/pyobj.h. */
#include "pyobj.h"

/* Raises NotImplementedError naming `what`; returns NULL. */
static PyObject *todo(const char *what)
{
    PyErr_Format(PyExc_NotImplementedError, "%s: not written yet", what);
    return NULL;
}

int po_parse_shape(PyObject *shape, Py_ssize_t itemsize, Py_ssize_t *dims, int *ndim)
{
    /* YOUR CODE HERE: PySequence_Fast gives a list or tuple you own a reference to; each item
     * must be an int >= 0 (PyLong_Check, PyLong_AsSsize_t). */
    (void)shape, (void)itemsize, (void)dims, (void)ndim;
    todo("po_parse_shape");
    return -1;
}

PyObject *po_tensorbuf_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    /* YOUR CODE HERE: parse the arguments (PyArg_ParseTupleAndKeywords, format "O|sp"), make
     * the object with the type's own allocation slot, then its bytes with PyMem_Calloc. */
    (void)type, (void)args, (void)kwds;
    return todo("TensorBuf()");
}

void po_tensorbuf_dealloc(PyObject *self)
{
    /* YOUR CODE HERE: an owner frees its bytes; a view gives back its export and its base. */
    Py_TYPE(self)->tp_free(self);
}

int po_tensorbuf_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    /* YOUR CODE HERE: refuse what flags ask that self cannot give (BufferError), else fill in
     * every field of *view and count the export. */
    (void)self, (void)flags;
    view->obj = NULL;
    PyErr_SetString(PyExc_BufferError, "po_tensorbuf_getbuffer: not written yet");
    return -1;
}

void po_tensorbuf_releasebuffer(PyObject *self, Py_buffer *view)
{
    /* YOUR CODE HERE */
    (void)self, (void)view;
}

PyObject *po_tensorbuf_resize(PyObject *self, PyObject *shape)
{
    /* YOUR CODE HERE: refuse while exported; PyMem_Realloc keeps the old bytes. */
    (void)self, (void)shape;
    return todo("TensorBuf.resize");
}

PyObject *po_tensorbuf_transpose(PyObject *self, PyObject *unused)
{
    /* YOUR CODE HERE: a new TensorBuf sharing self's bytes, holding its owner. */
    (void)self, (void)unused;
    return todo("TensorBuf.transpose");
}
