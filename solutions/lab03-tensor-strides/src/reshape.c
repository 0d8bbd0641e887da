/* Lab 03, part B: view and reshape (contract in include/reshape.h). The view rule is
 * PyTorch's computeStride (aten/src/ATen/TensorUtils.cpp), explained in README.md 2.4. */
#include "reshape.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "copy.h"

/* Copies shape into out with its one -1 (if any) replaced so that the sizes multiply to numel.
 * Returns 0 or -EINVAL (bad size, two -1s, -1 not inferable, counts differ). */
static int infer_shape(unsigned ndim, const int64_t *shape, int64_t numel, int64_t *out)
{
    int64_t known = 1;
    int infer = -1;
    for (unsigned k = 0; k < ndim; k++) {
        if (shape[k] == -1 && infer < 0) {
            infer = (int)k;
            continue;
        }
        if (shape[k] < 0 || __builtin_mul_overflow(known, shape[k], &known))
            return -EINVAL;
        out[k] = shape[k];
    }
    if (infer >= 0) {
        if (known == 0 || numel % known != 0)
            return -EINVAL;
        out[infer] = numel / known;
        known = numel;
    }
    return known == numel ? 0 : -EINVAL;
}

/* The strides of one run of new dimensions [*d down to where view_numel reaches chunk_numel],
 * each a multiple of base (computeStride's inner loop). Returns 0, or -ENOTSUP when the new
 * dimensions do not exactly cover the chunk. */
static int fill_chunk(const int64_t *shape, int64_t *strides, int *d, int64_t chunk_numel,
                      int64_t base)
{
    int64_t view_numel = 1;
    while (*d >= 0 && (view_numel < chunk_numel || shape[*d] == 1)) {
        /* overflows only for a dimension of size 1, whose stride never matters */
        if (__builtin_mul_overflow(view_numel, base, &strides[*d]))
            strides[*d] = INT64_MAX;
        view_numel *= shape[*d];
        (*d)--;
    }
    return view_numel == chunk_numel ? 0 : -ENOTSUP;
}

/* computeStride for a view with elements: walk v's dimensions from the last, cutting them into
 * chunks that are contiguous among themselves; each chunk must be covered by whole new
 * dimensions. Returns 0 or -ENOTSUP. */
static int compute_strides(const tv_t *v, unsigned ndim, const int64_t *shape, int64_t *strides)
{
    int d = (int)ndim - 1;
    int64_t base = v->strides[v->ndim - 1], chunk = 1, next;
    for (unsigned k = v->ndim; k-- > 0;) {
        chunk *= v->shape[k];
        if (k > 0 && (v->shape[k - 1] == 1 ||
                      (!__builtin_mul_overflow(chunk, base, &next) && v->strides[k - 1] == next)))
            continue; /* dimension k-1 continues this chunk */
        if (fill_chunk(shape, strides, &d, chunk, base) != 0)
            return -ENOTSUP;
        if (k > 0) {
            base = v->strides[k - 1];
            chunk = 1;
        }
    }
    return d == -1 ? 0 : -ENOTSUP;
}

/* The new strides, or -ENOTSUP. Shapes are checked; numel is v's element count. */
static int view_strides(const tv_t *v, int64_t numel, unsigned ndim, const int64_t *shape,
                        int64_t *strides)
{
    if (v->ndim == 0) {
        for (unsigned k = 0; k < ndim; k++)
            strides[k] = 1;
        return 0;
    }
    if (numel == 0 && ndim == v->ndim && memcmp(shape, v->shape, ndim * sizeof *shape) == 0) {
        memcpy(strides, v->strides, ndim * sizeof *strides);
        return 0;
    }
    if (numel == 0)
        return tv_contiguous_strides(ndim, shape, strides);
    return compute_strides(v, ndim, shape, strides);
}

int tv_view(const tv_t *v, unsigned ndim, const int64_t *shape, tv_t *out)
{
    int64_t numel = tv_numel(v);
    if (numel < 0)
        return (int)numel;
    if (!out || ndim > TV_MAX_DIMS || (ndim > 0 && !shape))
        return -EINVAL;
    tv_t r = *v;
    r.ndim = ndim;
    int rc = infer_shape(ndim, shape, numel, r.shape);
    if (rc == 0)
        rc = view_strides(v, numel, ndim, r.shape, r.strides);
    if (rc == 0)
        rc = tv_validate(&r);
    if (rc == 0)
        *out = r;
    return rc;
}

int tv_reshape(const tv_t *v, unsigned ndim, const int64_t *shape, tv_t *out, void **copy)
{
    if (!copy)
        return -EINVAL;
    int rc = tv_view(v, ndim, shape, out);
    if (rc != -ENOTSUP) {
        if (rc == 0)
            *copy = NULL;
        return rc;
    }
    int64_t numel = tv_numel(v), sizes[TV_MAX_DIMS];
    size_t bytes;
    infer_shape(ndim, shape, numel, sizes); /* succeeded inside tv_view */
    if (__builtin_mul_overflow((size_t)numel, v->elem_size, &bytes))
        return -ERANGE;
    void *buf = malloc(bytes ? bytes : 1);
    if (!buf)
        return -ENOMEM;
    tv_t r;
    if ((rc = tv_contiguous(v, buf, bytes)) == 0)
        rc = tv_init(&r, buf, v->elem_size, ndim, sizes);
    if (rc != 0) {
        free(buf);
        return rc;
    }
    *out = r;
    *copy = buf;
    return 0;
}
