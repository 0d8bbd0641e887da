/* Lab 03, part A: strided views and the operations that only rewrite shape, strides and offset
 * (contract in include/view.h). Background and hints: README.md, `make hint LAB=03`. */
#include "view.h"
#include <errno.h>
#include <string.h>

int tv_validate(const tv_t *v)
{
    /* ===== YOUR CODE HERE =====
     * Check every field (tv_t's comment lists the rules), then, if the view has elements, that
     * its largest storage element offset + sum of (shape[k] - 1) * strides[k] is below
     * storage_elems. __builtin_mul_overflow / __builtin_add_overflow catch int64_t overflow. */
    (void)v;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int tv_contiguous_strides(unsigned ndim, const int64_t *shape, int64_t *strides)
{
    /* ===== YOUR CODE HERE: from the last dimension to the first; sizes 0 count as 1 ===== */
    (void)ndim, (void)shape, (void)strides;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int tv_init(tv_t *out, void *data, size_t elem_size, unsigned ndim, const int64_t *shape)
{
    /* ===== YOUR CODE HERE: shape, contiguous strides, offset 0, storage_elems = numel ===== */
    (void)out, (void)data, (void)elem_size, (void)ndim, (void)shape;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int64_t tv_numel(const tv_t *v)
{
    /* ===== YOUR CODE HERE ===== */
    (void)v;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int tv_offset(const tv_t *v, const int64_t *index, int64_t *off)
{
    /* ===== YOUR CODE HERE: offset + sum of index[k] * strides[k], each index in range ===== */
    (void)v, (void)index, (void)off;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int tv_unravel(const tv_t *v, int64_t linear, int64_t *index)
{
    /* ===== YOUR CODE HERE: the last dimension varies fastest (% and /) ===== */
    (void)v, (void)linear, (void)index;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int tv_is_contiguous(const tv_t *v)
{
    /* ===== YOUR CODE HERE: PyTorch's rule, word for word from view.h ===== */
    (void)v;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int tv_permute(const tv_t *v, const unsigned *perm, tv_t *out)
{
    /* ===== YOUR CODE HERE =====
     * Check that perm is a permutation (each dimension once), then build the result in a local
     * tv_t and copy it to *out last: out may be v. */
    (void)v, (void)perm, (void)out;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int tv_transpose(const tv_t *v, unsigned d0, unsigned d1, tv_t *out)
{
    /* ===== YOUR CODE HERE: a permutation that swaps two dimensions ===== */
    (void)v, (void)d0, (void)d1, (void)out;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int tv_slice(const tv_t *v, unsigned dim, int64_t start, int64_t stop, int64_t step, tv_t *out)
{
    /* ===== YOUR CODE HERE: three numbers change (offset, shape[dim], strides[dim]) ===== */
    (void)v, (void)dim, (void)start, (void)stop, (void)step, (void)out;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int tv_expand(const tv_t *v, unsigned ndim, const int64_t *shape, tv_t *out)
{
    /* ===== YOUR CODE HERE =====
     * Line v's dimensions up with the LAST entries of shape; new leading dimensions and
     * expanded size-1 dimensions get stride 0. */
    (void)v, (void)ndim, (void)shape, (void)out;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}
