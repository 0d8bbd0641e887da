/* Lab 03, part B: view (a new shape over the same storage, or an error when no strides can
 * describe it) and reshape (a view when one exists, else a copy), with PyTorch's rules. */
#ifndef TV_RESHAPE_H
#define TV_RESHAPE_H
#include "view.h"

/* torch.view: a view of v's elements, in v's logical (row-major) order, with the new `shape`,
 * over the same storage and offset, with strides from PyTorch's computeStride rule (README.md,
 * section 2.4): the README's oracle cases must come out exactly. One entry of shape may be -1:
 * it is inferred so that the element counts match. out may be v.
 * Returns 0;
 *   tv_validate's error for v;
 *   -EINVAL:  shape (ndim > 0) or out is NULL, ndim > TV_MAX_DIMS, a size is negative (other
 *             than one -1), more than one -1 is given, -1 cannot be inferred (the other sizes
 *             multiply to 0), or the element counts differ;
 *   -ERANGE:  the new sizes overflow (see tv_validate);
 *   -ENOTSUP: no strides can give that shape over this storage (the elements would have to
 *             move: use tv_reshape). */
int tv_view(const tv_t *v, unsigned ndim, const int64_t *shape, tv_t *out);

/* torch.reshape: tv_view when a view exists (*copy = NULL). Otherwise copies v's elements, in
 * logical order, into a new malloc'ed buffer of numel * elem_size bytes (at least 1 byte),
 * makes *out a contiguous view of `shape` at offset 0 over it, and sets *copy to that buffer:
 * the caller frees it with free(). out may be v.
 * Returns 0;
 *   -EINVAL: copy is NULL;
 *   tv_view's errors other than -ENOTSUP;
 *   -ENOMEM: out of memory (nothing leaked, outputs untouched);
 *   the errors of tv_contiguous. */
int tv_reshape(const tv_t *v, unsigned ndim, const int64_t *shape, tv_t *out, void **copy);

#endif
