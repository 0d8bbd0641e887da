/* Lab 11, part B: functions and an iterator that own exactly the references they should, on
 * every path: group_by (bucketing samples), batches (a batch sampler) and collate (stacking
 * samples into one TensorBuf through the buffer protocol, as a DataLoader's collate does).
 * The contract of each function is in include/pyobj.h. */
#include "pyobj.h"

/* Raises NotImplementedError naming `what`; returns NULL. */
static PyObject *todo(const char *what)
{
    PyErr_Format(PyExc_NotImplementedError, "%s: not written yet", what);
    return NULL;
}

PyObject *po_group_by(PyObject *module, PyObject *args)
{
    /* YOUR CODE HERE: PyObject_GetIter, then PyIter_Next until it returns NULL (then check
     * PyErr_Occurred). Know which calls give you a reference and which lend you one. */
    (void)module, (void)args;
    return todo("group_by");
}

PyObject *po_batches_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    /* YOUR CODE HERE */
    (void)type, (void)args, (void)kwds;
    return todo("batches()");
}

void po_batches_dealloc(PyObject *self)
{
    /* YOUR CODE HERE: untrack from the GC, drop what the iterator holds. */
    PyObject_GC_UnTrack(self);
    Py_TYPE(self)->tp_free(self);
}

int po_batches_traverse(PyObject *self, visitproc visit, void *arg)
{
    /* YOUR CODE HERE: Py_VISIT every object held. */
    (void)self, (void)visit, (void)arg;
    return 0;
}

PyObject *po_batches_next(PyObject *self)
{
    /* YOUR CODE HERE */
    (void)self;
    return todo("next(batches)");
}

PyObject *po_collate(PyObject *module, PyObject *samples)
{
    /* YOUR CODE HERE: PyObject_GetBuffer each sample (PyBUF_C_CONTIGUOUS | PyBUF_FORMAT), one
     * memcpy into the new TensorBuf, PyBuffer_Release on every path. */
    (void)module, (void)samples;
    return todo("collate");
}
