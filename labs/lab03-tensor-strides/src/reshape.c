/* Lab 03, part B: view and reshape (contract in include/reshape.h). The view rule is
 * PyTorch's computeStride (aten/src/ATen/TensorUtils.cpp), explained in README.md 2.4. */
#include "reshape.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "copy.h"

int tv_view(const tv_t *v, unsigned ndim, const int64_t *shape, tv_t *out)
{
    /* ===== YOUR CODE HERE =====
     * 1. Check the arguments and replace a -1 in shape by the size that makes the counts match.
     * 2. Special cases: v is a scalar (every new stride 1); v has no elements (same shape: keep
     *    the strides, else contiguous strides).
     * 3. Otherwise computeStride: walk v's dimensions from the last, grouping them into chunks
     *    that are contiguous among themselves; cover each chunk with whole new dimensions, or
     *    return -ENOTSUP. */
    (void)v, (void)ndim, (void)shape, (void)out;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int tv_reshape(const tv_t *v, unsigned ndim, const int64_t *shape, tv_t *out, void **copy)
{
    /* ===== YOUR CODE HERE: tv_view; on -ENOTSUP, malloc + tv_contiguous + tv_init ===== */
    (void)v, (void)ndim, (void)shape, (void)out, (void)copy;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}
