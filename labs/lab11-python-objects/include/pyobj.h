/* Lab 11: the contract of the C code you write against CPython's C API (src/tensorbuf.c, part A;
 * src/refs.c, part B). src/module.c (provided) makes these functions the Python module `pyobj`:
 *
 *   pyobj.TensorBuf(shape, format="f", readonly=False)   part A: a tensor-like buffer
 *   pyobj.group_by(iterable, key) -> dict                  part B
 *   pyobj.batches(iterable, n, drop_last=False) -> iter    part B
 *   pyobj.collate(samples) -> TensorBuf                    part B (and the benchmark)
 *
 * Conventions of the C API, which every function here follows:
 *   - a function returning PyObject * returns a NEW reference, or NULL with an exception set;
 *     one returning int returns 0, or -1 with an exception set;
 *   - an argument is BORROWED: the function neither keeps nor drops the caller's reference
 *     unless its contract says so;
 *   - on every path that fails, everything the function made or took is released: no reference
 *     and no byte leaks, whichever allocation or call failed (the tests fail each allocation in
 *     turn, and count references with the debug interpreter's sys.gettotalrefcount()).
 * Memory: PyMem_Malloc/PyMem_Calloc/PyMem_Realloc/PyMem_Free for raw bytes (never malloc: the
 * tests see allocations through CPython's allocator), tp_alloc/tp_free for objects. */
#ifndef PO_PYOBJ_H
#define PO_PYOBJ_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define PO_MAX_DIMS 8

/* A TensorBuf: ndim dimensions of shape[] elements of `itemsize` bytes each, element
 * (i0, i1, ...) at data + i0 * strides[0] + i1 * strides[1] + ... (strides in bytes).
 * An owner (base == NULL) holds its bytes (PyMem_*), laid out C-contiguously, zero-filled when
 * made. A view (base != NULL) shares the bytes of its base, always an owner, and holds a strong
 * reference to it; it counts as one of the base's exports while it lives. */
typedef struct po_tensorbuf {
    PyObject_HEAD
    char *data;                          /* an owner's: NULL only while it has 0 bytes */
    int ndim;                            /* 0..PO_MAX_DIMS */
    Py_ssize_t shape[PO_MAX_DIMS];
    Py_ssize_t strides[PO_MAX_DIMS];
    Py_ssize_t itemsize;                 /* po_itemsize(format) */
    char format[2];                      /* one struct-module code and a NUL: "f", "d", "b", ... */
    int readonly;                        /* 1: no writable buffer is ever handed out */
    Py_ssize_t exports;                  /* live Py_buffer exports plus live views of this */
    struct po_tensorbuf *base;           /* NULL for an owner; the owner for a view */
} po_tensorbuf_t;

/* batches(iterable, n, drop_last): an iterator over tuples of n items of `it`. */
typedef struct po_batches {
    PyObject_HEAD
    PyObject *it;                        /* iter(iterable); NULL once exhausted */
    Py_ssize_t n;                        /* >= 1 */
    int drop_last;                       /* 1: a last tuple shorter than n is not yielded */
} po_batches_t;

/* Provided by src/module.c. */
extern PyTypeObject po_tensorbuf_type;
extern PyTypeObject po_batches_type;
/* The module's initialisation function (PyImport_AppendInittab("pyobj", PyInit_pyobj)). */
PyMODINIT_FUNC PyInit_pyobj(void);
/* The size in bytes of one element of `format` ("b" "B" "h" "H" "i" "I" "l" "L" "q" "Q"
 * "f" "d"), or 0
 * when format is NULL or not one of these. */
Py_ssize_t po_itemsize(const char *format);
/* Bytes of t's elements: the product of shape[] (1 for ndim 0) times itemsize. */
Py_ssize_t po_nbytes(const po_tensorbuf_t *t);
/* 1 if t's strides are those of a C-contiguous layout of its shape (dimensions of size 1 and
 * tensors of 0 elements are contiguous whatever their strides), else 0. */
int po_is_c_contiguous(const po_tensorbuf_t *t);
/* Sets t->strides[] to the C-contiguous strides of t->shape[] and t->itemsize. */
void po_set_contiguous_strides(po_tensorbuf_t *t);

/* ---- Part A (src/tensorbuf.c) ---------------------------------------------------------- */

/* Reads a shape: `shape` is a sequence (tuple, list, ...) of at most PO_MAX_DIMS ints >= 0;
 * writes them to dims[0..*ndim) and their count to *ndim. Returns 0, or -1 with:
 *   TypeError: shape is not a sequence, or an item is not an int;
 *   ValueError: an item is negative, there are more than PO_MAX_DIMS, or the total bytes of
 *               that shape with `itemsize`-byte elements would exceed PY_SSIZE_T_MAX;
 *   (or what iterating the sequence raised). */
int po_parse_shape(PyObject *shape, Py_ssize_t itemsize, Py_ssize_t *dims, int *ndim);

/* tp_new of TensorBuf: TensorBuf(shape, format="f", readonly=False) makes an owner of that
 * shape, zero-filled, C-contiguous, with no exports. Returns a new reference, or NULL with:
 *   TypeError / ValueError: as po_parse_shape, or a bad argument list;
 *   ValueError: format is not one po_itemsize knows;
 *   MemoryError: an allocation failed. */
PyObject *po_tensorbuf_new(PyTypeObject *type, PyObject *args, PyObject *kwds);

/* tp_dealloc: frees an owner's bytes; a view gives back its place among its base's exports and
 * drops its reference to the base. Then the object itself (tp_free). */
void po_tensorbuf_dealloc(PyObject *self);

/* bf_getbuffer: fills *view with self's memory as PEP 3118 asks for `flags`, and counts one
 * export. On success view->obj is a new reference to self, buf/len/itemsize/readonly/ndim are
 * set, format is self's format if flags has PyBUF_FORMAT (else NULL), shape if PyBUF_ND (else
 * NULL), strides if PyBUF_STRIDES (else NULL), suboffsets and internal NULL. Returns 0, or -1
 * with BufferError (view->obj set to NULL, nothing counted) when:
 *   flags asks for PyBUF_WRITABLE and self is read-only;
 *   flags asks for PyBUF_C_CONTIGUOUS (or omits PyBUF_STRIDES, or omits PyBUF_ND) and self is
 *   not C-contiguous; flags asks for PyBUF_F_CONTIGUOUS and self is not Fortran-contiguous
 *   (for ndim <= 1 the two are the same). */
int po_tensorbuf_getbuffer(PyObject *self, Py_buffer *view, int flags);

/* bf_releasebuffer: the export counted by po_tensorbuf_getbuffer is over. */
void po_tensorbuf_releasebuffer(PyObject *self, Py_buffer *view);

/* TensorBuf.resize(shape): gives an owner a new shape of the same format; the first
 * min(old, new) bytes keep their values, bytes beyond the old size are zero; strides become
 * C-contiguous. Returns None (a new reference), or NULL with:
 *   BufferError: self has live exports (a memoryview, a numpy array, a view of it) or is a view;
 *   TypeError / ValueError: as po_parse_shape;
 *   MemoryError: the allocation failed (self is then unchanged). */
PyObject *po_tensorbuf_resize(PyObject *self, PyObject *shape);

/* TensorBuf.transpose(): a view of the same bytes with shape and strides reversed, as
 * readonly as self. Its base is self's owner (self, or self's base), whose exports count it.
 * Returns a new reference, or NULL with MemoryError. */
PyObject *po_tensorbuf_transpose(PyObject *self, PyObject *unused);

/* ---- Part B (src/refs.c) --------------------------------------------------------------- */

/* group_by(iterable, key): a new dict mapping key(item) to the list of items, in the order
 * iteration gave them (the DataLoader's bucketing of samples by length). args is the argument
 * tuple. Returns a new reference, or NULL with what failed raised: TypeError for a bad argument
 * list or an unhashable key, or whatever iterating, calling key, or allocating raised. */
PyObject *po_group_by(PyObject *module, PyObject *args);

/* tp_new of batches: batches(iterable, n, drop_last=False). Returns a new reference (tracked by
 * the cyclic GC), or NULL with: TypeError (not iterable, bad arguments), ValueError (n < 1),
 * MemoryError. */
PyObject *po_batches_new(PyTypeObject *type, PyObject *args, PyObject *kwds);

/* tp_dealloc of batches (untracks it from the GC first). */
void po_batches_dealloc(PyObject *self);

/* tp_traverse of batches: visits every object it holds a reference to. */
int po_batches_traverse(PyObject *self, visitproc visit, void *arg);

/* tp_iternext of batches: the next tuple of n items; the last one shorter if the items run out
 * (unless drop_last, or if it would be empty). Returns a new reference, or NULL with no exception
 * when the batches are over (and ever after), or NULL with the exception that iterating the
 * source or allocating raised (the items already taken for that batch are dropped). */
PyObject *po_batches_next(PyObject *self);

/* collate(samples): stacks `samples`, a list or tuple of k >= 1 objects that export buffers of
 * the same shape and format, into a new owner TensorBuf of shape (k, *shape) holding their
 * elements in order: one memcpy per sample, reading each sample's memory in place through the
 * buffer protocol (any C-contiguous exporter: numpy arrays, TensorBufs, bytes, memoryviews).
 * Returns a new reference, or NULL with:
 *   TypeError: samples is not a list or tuple, or a sample exports no buffer;
 *   ValueError: no samples, a sample's shape or format differs from the first's, a shape has
 *               PO_MAX_DIMS dimensions already, or a sample is not C-contiguous (BufferError,
 *               as the exporter raises it, is also accepted);
 *   MemoryError: an allocation failed.
 * Every buffer it obtained is released on every path. */
PyObject *po_collate(PyObject *module, PyObject *samples);

#endif
