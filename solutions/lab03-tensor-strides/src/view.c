/* Lab 03, part A: strided views and the operations that only rewrite shape, strides and offset
 * (contract in include/view.h). Background and hints: README.md, `make hint LAB=03`. */
#include "view.h"
#include <errno.h>
#include <string.h>

/* The product of max(shape[k], 1) over k in [0, ndim) into *prod: 0, or -ERANGE on overflow. */
static int padded_product(unsigned ndim, const int64_t *shape, int64_t *prod)
{
    int64_t p = 1;
    for (unsigned k = 0; k < ndim; k++)
        if (__builtin_mul_overflow(p, shape[k] > 1 ? shape[k] : 1, &p))
            return -ERANGE;
    *prod = p;
    return 0;
}

/* The largest storage element v reaches (v has elements): 0, or -ERANGE on overflow. */
static int max_reach(const tv_t *v, int64_t *last)
{
    int64_t r = v->offset, step;
    for (unsigned k = 0; k < v->ndim; k++)
        if (__builtin_mul_overflow(v->shape[k] - 1, v->strides[k], &step) ||
            __builtin_add_overflow(r, step, &r))
            return -ERANGE;
    *last = r;
    return 0;
}

int tv_validate(const tv_t *v)
{
    if (!v || v->ndim > TV_MAX_DIMS || v->elem_size == 0 || v->offset < 0 || v->storage_elems < 0)
        return -EINVAL;
    int has_elems = 1;
    for (unsigned k = 0; k < v->ndim; k++) {
        if (v->shape[k] < 0 || v->strides[k] < 0)
            return -EINVAL;
        has_elems &= v->shape[k] > 0;
    }
    int64_t prod, last;
    if (padded_product(v->ndim, v->shape, &prod) != 0)
        return -ERANGE;
    if (!has_elems)
        return 0;
    if (!v->data)
        return -EINVAL;
    return max_reach(v, &last) != 0 || last >= v->storage_elems ? -ERANGE : 0;
}

int tv_contiguous_strides(unsigned ndim, const int64_t *shape, int64_t *strides)
{
    if (ndim > TV_MAX_DIMS || (ndim > 0 && (!shape || !strides)))
        return -EINVAL;
    int64_t prod, s[TV_MAX_DIMS];
    for (unsigned k = 0; k < ndim; k++)
        if (shape[k] < 0)
            return -EINVAL;
    if (padded_product(ndim, shape, &prod) != 0)
        return -ERANGE;
    int64_t expected = 1;
    for (unsigned k = ndim; k-- > 0;) {
        s[k] = expected;
        expected *= shape[k] > 1 ? shape[k] : 1; /* cannot overflow: checked above */
    }
    if (ndim > 0)
        memcpy(strides, s, ndim * sizeof *s);
    return 0;
}

int tv_init(tv_t *out, void *data, size_t elem_size, unsigned ndim, const int64_t *shape)
{
    if (!out || elem_size == 0)
        return -EINVAL;
    tv_t v = { .data = data, .elem_size = elem_size, .ndim = ndim };
    int rc = tv_contiguous_strides(ndim, shape, v.strides);
    if (rc != 0)
        return rc;
    if (ndim > 0)
        memcpy(v.shape, shape, ndim * sizeof *shape);
    v.storage_elems = 1;
    for (unsigned k = 0; k < ndim; k++)
        v.storage_elems *= shape[k]; /* <= the padded product: no overflow */
    if (v.storage_elems > 0 && !data)
        return -EINVAL;
    *out = v;
    return 0;
}

int64_t tv_numel(const tv_t *v)
{
    int rc = tv_validate(v);
    if (rc != 0)
        return rc;
    int64_t n = 1;
    for (unsigned k = 0; k < v->ndim; k++)
        n *= v->shape[k];
    return n;
}

int tv_offset(const tv_t *v, const int64_t *index, int64_t *off)
{
    int rc = tv_validate(v);
    if (rc != 0)
        return rc;
    if (!off || (v->ndim > 0 && !index))
        return -EINVAL;
    int64_t o = v->offset;
    for (unsigned k = 0; k < v->ndim; k++) {
        if (index[k] < 0 || index[k] >= v->shape[k])
            return -ERANGE;
        o += index[k] * v->strides[k]; /* inside the storage: validated */
    }
    *off = o;
    return 0;
}

int tv_unravel(const tv_t *v, int64_t linear, int64_t *index)
{
    int64_t n = tv_numel(v);
    if (n < 0)
        return (int)n;
    if (v->ndim > 0 && !index)
        return -EINVAL;
    if (linear < 0 || linear >= n)
        return -ERANGE;
    for (unsigned k = v->ndim; k-- > 0;) {
        index[k] = linear % v->shape[k];
        linear /= v->shape[k];
    }
    return 0;
}

int tv_is_contiguous(const tv_t *v)
{
    int64_t n = tv_numel(v);
    if (n <= 0)
        return n == 0 ? 1 : (int)n;
    int64_t expected = 1;
    for (unsigned k = v->ndim; k-- > 0;) {
        if (v->shape[k] == 1)
            continue;
        if (v->strides[k] != expected)
            return 0;
        expected *= v->shape[k];
    }
    return 1;
}

int tv_permute(const tv_t *v, const unsigned *perm, tv_t *out)
{
    int rc = tv_validate(v);
    if (rc != 0)
        return rc;
    if (!out || (v->ndim > 0 && !perm))
        return -EINVAL;
    unsigned seen = 0;
    for (unsigned k = 0; k < v->ndim; k++) {
        if (perm[k] >= v->ndim || (seen & (1u << perm[k])))
            return -EINVAL;
        seen |= 1u << perm[k];
    }
    tv_t r = *v;
    for (unsigned k = 0; k < v->ndim; k++) {
        r.shape[k] = v->shape[perm[k]];
        r.strides[k] = v->strides[perm[k]];
    }
    *out = r;
    return 0;
}

int tv_transpose(const tv_t *v, unsigned d0, unsigned d1, tv_t *out)
{
    int rc = tv_validate(v);
    if (rc != 0)
        return rc;
    if (!out || d0 >= v->ndim || d1 >= v->ndim)
        return -EINVAL;
    unsigned perm[TV_MAX_DIMS];
    for (unsigned k = 0; k < v->ndim; k++)
        perm[k] = k;
    perm[d0] = d1;
    perm[d1] = d0;
    return tv_permute(v, perm, out);
}

int tv_slice(const tv_t *v, unsigned dim, int64_t start, int64_t stop, int64_t step, tv_t *out)
{
    int rc = tv_validate(v);
    if (rc != 0)
        return rc;
    if (!out || dim >= v->ndim || step < 1)
        return -EINVAL;
    int64_t size = v->shape[dim];
    if (start < 0 || start > size || stop < start)
        return -ERANGE;
    if (stop > size)
        stop = size;
    tv_t r = *v;
    r.shape[dim] = (stop - start + step - 1) / step; /* ceil; no overflow: both <= size */
    if (__builtin_mul_overflow(start, v->strides[dim], &start) ||
        __builtin_add_overflow(r.offset, start, &r.offset) ||
        __builtin_mul_overflow(v->strides[dim], step, &r.strides[dim]))
        return -ERANGE;
    *out = r;
    return 0;
}

/* Size and stride of one output dimension of tv_expand, where the input has (size, stride):
 * 0, or -EINVAL when `want` cannot be reached. */
static int expand_dim(int64_t size, int64_t stride, int64_t want, int64_t *osize, int64_t *ostride)
{
    if (want == -1 || want == size) {
        *osize = size;
        *ostride = stride;
        return 0;
    }
    if (size != 1 || want < 0)
        return -EINVAL;
    *osize = want;
    *ostride = 0;
    return 0;
}

int tv_expand(const tv_t *v, unsigned ndim, const int64_t *shape, tv_t *out)
{
    int rc = tv_validate(v);
    if (rc != 0)
        return rc;
    if (!out || (ndim > 0 && !shape) || ndim > TV_MAX_DIMS || ndim < v->ndim)
        return -EINVAL;
    unsigned lead = ndim - v->ndim;
    tv_t r = *v;
    r.ndim = ndim;
    for (unsigned k = 0; k < ndim; k++) {
        if (k < lead && shape[k] < 0)
            return -EINVAL;
        int64_t size = k < lead ? 1 : v->shape[k - lead], stride = k < lead ? 0 : v->strides[k - lead];
        if (expand_dim(size, stride, shape[k], &r.shape[k], &r.strides[k]) != 0)
            return -EINVAL;
    }
    if ((rc = tv_validate(&r)) != 0)
        return rc;
    *out = r;
    return 0;
}
