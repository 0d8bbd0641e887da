/* Lab 03, part A: a strided view of a tensor (storage, offset, shape, strides) and the
 * operations that make a new view of the same storage without moving a byte: permute, transpose,
 * slice with a step, expand. Strides count elements, not bytes, as in PyTorch. */
#ifndef TV_VIEW_H
#define TV_VIEW_H
#include <stddef.h>
#include <stdint.h>

#define TV_MAX_DIMS 8 /* rank limit: more dimensions -> -EINVAL */

/* Element [i0, ..., i(ndim-1)] of the view is storage element
 *     offset + i0 * strides[0] + ... + i(ndim-1) * strides[ndim-1]
 * i.e. it lives at byte (offset + sum of i_k * strides[k]) * elem_size from data.
 *
 * A view is VALID when: ndim <= TV_MAX_DIMS; elem_size >= 1; every shape[k] >= 0; every
 * strides[k] >= 0 (negative strides are rejected, as PyTorch does; 0 means the dimension is
 * expanded: all its elements are one storage element); offset >= 0; storage_elems >= 0; the
 * product of the sizes, counting a size 0 as 1, fits in int64_t; and, when the view has
 * elements, data is not NULL and the largest storage element it reaches,
 * offset + sum of (shape[k] - 1) * strides[k], is below storage_elems. A view with no elements
 * reaches nothing: any offset >= 0 is fine and data may be NULL. Entries at k >= ndim are
 * ignored. */
typedef struct {
    void *data;            /* the storage: its element 0 */
    int64_t storage_elems; /* how many elements the storage holds */
    size_t elem_size;      /* bytes per element (4 for float32) */
    int64_t offset;        /* storage element of element [0, ..., 0] (PyTorch: storage_offset) */
    unsigned ndim;         /* 0 (a scalar: one element) .. TV_MAX_DIMS */
    int64_t shape[TV_MAX_DIMS];
    int64_t strides[TV_MAX_DIMS];
} tv_t;

/* Every function below that takes a view checks it with tv_validate first and returns what
 * tv_validate returned when it is not valid; outputs are written only on success. */

/* Returns 0 if v is a valid view (see tv_t);
 *   -EINVAL: v is NULL or malformed (rank too high, elem_size 0, a negative size, stride, offset
 *            or storage_elems, data NULL while the view has elements);
 *   -ERANGE: the product of the sizes overflows or the view reaches outside its storage. */
int tv_validate(const tv_t *v);

/* Row-major (C-order) strides for `shape`, PyTorch's rule: the last stride is 1 and
 * strides[k] = strides[k + 1] * max(shape[k + 1], 1), so torch.empty(3, 0).stride() == (1, 1).
 * Writes strides[0..ndim). Returns 0;
 *   -EINVAL: ndim > TV_MAX_DIMS, shape or strides is NULL (ndim > 0), or a size is negative;
 *   -ERANGE: the product of max(size, 1) overflows int64_t. */
int tv_contiguous_strides(unsigned ndim, const int64_t *shape, int64_t *strides);

/* Makes *out a contiguous view at offset 0 over `data`, a storage of exactly numel elements of
 * elem_size bytes (storage_elems = numel). data may be NULL only if numel is 0.
 * Returns 0;
 *   -EINVAL: out is NULL, elem_size is 0, data is NULL with elements, or shape is bad as in
 *            tv_contiguous_strides;
 *   -ERANGE: the sizes overflow as there. */
int tv_init(tv_t *out, void *data, size_t elem_size, unsigned ndim, const int64_t *shape);

/* The number of elements: the product of the sizes (1 for ndim 0, 0 if any size is 0).
 * Returns it (>= 0), or tv_validate's error (< 0). */
int64_t tv_numel(const tv_t *v);

/* The storage element of element [index[0], ..., index[ndim-1]]: writes it to *off. Returns 0;
 *   tv_validate's error for v;
 *   -EINVAL: index / off is NULL (index may be NULL when ndim is 0);
 *   -ERANGE: some index[k] is outside [0, shape[k]). */
int tv_offset(const tv_t *v, const int64_t *index, int64_t *off);

/* The index of the linear-th element in row-major (logical) order, the last dimension varying
 * fastest: for shape (2, 3), linear 4 is [1, 1]. Writes index[0..ndim). Returns 0;
 *   tv_validate's error for v;
 *   -EINVAL: index is NULL (ndim > 0);
 *   -ERANGE: linear is outside [0, numel). */
int tv_unravel(const tv_t *v, int64_t linear, int64_t *index);

/* PyTorch's is_contiguous (c10 _compute_contiguous): a view with no elements is contiguous;
 * otherwise walk the dimensions from the last, skip those of size 1 (their stride never
 * matters), and require strides[k] == expected, starting from expected = 1 and multiplying
 * expected by shape[k] after each dimension. The offset does not matter.
 * Returns 1 (contiguous), 0 (not), or tv_validate's error. */
int tv_is_contiguous(const tv_t *v);

/* The view with its dimensions reordered: out dimension k is v's dimension perm[k] (size and
 * stride), as torch.permute. perm[0..ndim) must hold each of 0..ndim-1 exactly once. out may be
 * v. Returns 0;
 *   tv_validate's error for v;
 *   -EINVAL: perm (ndim > 0) or out is NULL, or perm is not a permutation. */
int tv_permute(const tv_t *v, const unsigned *perm, tv_t *out);

/* The view with dimensions d0 and d1 swapped (d0 == d1 is allowed: a copy of the view), as
 * torch.transpose. out may be v. Returns 0;
 *   tv_validate's error for v;
 *   -EINVAL: out is NULL, or d0 / d1 >= ndim. */
int tv_transpose(const tv_t *v, unsigned d0, unsigned d1, tv_t *out);

/* v[..., start:stop:step, ...] along dimension `dim`, as a Python slice with step >= 1: the
 * elements start, start + step, ... that are below min(stop, shape[dim]). A stop beyond the end
 * is clamped (x[2:100] is x[2:]); start == stop, or start == shape[dim], gives an empty
 * dimension. As in PyTorch, only three numbers change: the offset grows by
 * start * strides[dim], shape[dim] becomes the number of elements taken, strides[dim] is
 * multiplied by step. out may be v.
 * Returns 0;
 *   tv_validate's error for v;
 *   -EINVAL: out is NULL, dim >= ndim or step < 1;
 *   -ERANGE: start < 0, start > shape[dim] or stop < start (negative indices are not supported),
 *            or the new offset or stride overflows int64_t. */
int tv_slice(const tv_t *v, unsigned dim, int64_t start, int64_t stop, int64_t step, tv_t *out);

/* torch.expand: the view broadcast to `shape` (ndim >= v->ndim dimensions) without copying. v's
 * dimensions line up with the LAST v->ndim entries of shape; each keeps its size and stride if
 * shape gives the same size or -1, and a dimension of size 1 may take any size >= 0 with stride 0.
 * The ndim - v->ndim new leading dimensions get their sizes from shape (>= 0; -1 is not allowed
 * there) and stride 0. out may be v.
 * Returns 0;
 *   tv_validate's error for v;
 *   -EINVAL: shape (ndim > 0) or out is NULL, ndim > TV_MAX_DIMS or ndim < v->ndim, or a size
 *            cannot be expanded (e.g. 3 -> 4);
 *   -ERANGE: the new sizes overflow (see tv_validate). */
int tv_expand(const tv_t *v, unsigned ndim, const int64_t *shape, tv_t *out);

#endif
