/* Lab 03 tests: the model of a view (see model.h) and random views to test with. */
#include "model.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../serve/inplace.h"

static int64_t product(unsigned ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (unsigned k = 0; k < ndim; k++)
        n *= shape[k];
    return n;
}

static model_t model_new(unsigned ndim, const int64_t *shape)
{
    model_t m = { .ndim = ndim, .n = product(ndim, shape) };
    memcpy(m.shape, shape, ndim * sizeof *shape);
    m.at = malloc((size_t)(m.n ? m.n : 1) * sizeof *m.at);
    ck_assert_ptr_nonnull(m.at);
    return m;
}

/* Row-major index of element `lin` of shape. */
static void unravel(unsigned ndim, const int64_t *shape, int64_t lin, int64_t *idx)
{
    for (unsigned k = ndim; k-- > 0;) {
        idx[k] = lin % shape[k];
        lin /= shape[k];
    }
}

static int64_t ravel(unsigned ndim, const int64_t *shape, const int64_t *idx)
{
    int64_t lin = 0;
    for (unsigned k = 0; k < ndim; k++)
        lin = lin * shape[k] + idx[k];
    return lin;
}

model_t model_of(const tv_t *v)
{
    model_t m = model_new(v->ndim, v->shape);
    int64_t idx[TV_MAX_DIMS];
    for (int64_t e = 0; e < m.n; e++) {
        unravel(v->ndim, v->shape, e, idx);
        m.at[e] = v->offset;
        for (unsigned k = 0; k < v->ndim; k++)
            m.at[e] += idx[k] * v->strides[k];
    }
    return m;
}

model_t model_permute(const model_t *m, const unsigned *perm)
{
    int64_t shape[TV_MAX_DIMS], idx[TV_MAX_DIMS], old[TV_MAX_DIMS];
    for (unsigned k = 0; k < m->ndim; k++)
        shape[k] = m->shape[perm[k]];
    model_t p = model_new(m->ndim, shape);
    for (int64_t e = 0; e < p.n; e++) {
        unravel(p.ndim, p.shape, e, idx);
        for (unsigned k = 0; k < m->ndim; k++)
            old[perm[k]] = idx[k];
        p.at[e] = m->at[ravel(m->ndim, m->shape, old)];
    }
    return p;
}

model_t model_slice(const model_t *m, unsigned dim, int64_t start, int64_t stop, int64_t step)
{
    int64_t shape[TV_MAX_DIMS], idx[TV_MAX_DIMS];
    memcpy(shape, m->shape, sizeof shape);
    if (stop > shape[dim])
        stop = shape[dim];
    shape[dim] = 0;
    for (int64_t i = start; i < stop; i += step)
        shape[dim]++;
    model_t s = model_new(m->ndim, shape);
    for (int64_t e = 0; e < s.n; e++) {
        unravel(s.ndim, s.shape, e, idx);
        idx[dim] = start + idx[dim] * step;
        s.at[e] = m->at[ravel(m->ndim, m->shape, idx)];
    }
    return s;
}

model_t model_expand(const model_t *m, unsigned ndim, const int64_t *shape)
{
    int64_t full[TV_MAX_DIMS], idx[TV_MAX_DIMS], old[TV_MAX_DIMS];
    unsigned lead = ndim - m->ndim;
    for (unsigned k = 0; k < ndim; k++)
        full[k] = shape[k] == -1 ? m->shape[k - lead] : shape[k];
    model_t x = model_new(ndim, full);
    for (int64_t e = 0; e < x.n; e++) {
        unravel(ndim, full, e, idx);
        for (unsigned k = 0; k < m->ndim; k++)
            old[k] = m->shape[k] == 1 ? 0 : idx[k + lead];
        x.at[e] = m->at[ravel(m->ndim, m->shape, old)];
    }
    return x;
}

model_t model_reshape(const model_t *m, unsigned ndim, const int64_t *shape)
{
    model_t x = model_new(ndim, shape);
    ck_assert_msg(x.n == m->n, "test bug: reshape changes the element count");
    memcpy(x.at, m->at, (size_t)m->n * sizeof *m->at);
    return x;
}

void model_free(model_t *m)
{
    free(m->at);
    m->at = NULL;
}

int model_view_exists(const model_t *m, unsigned ndim, const int64_t *shape)
{
    int64_t stride[TV_MAX_DIMS] = { 0 }, idx[TV_MAX_DIMS] = { 0 };
    if (m->n == 0)
        return 1;
    for (unsigned k = 0; k < ndim; k++) {
        if (shape[k] < 2)
            continue;
        idx[k] = 1;
        stride[k] = m->at[ravel(ndim, shape, idx)] - m->at[0];
        idx[k] = 0;
    }
    for (int64_t e = 0; e < m->n; e++) {
        int64_t off = m->at[0];
        unravel(ndim, shape, e, idx);
        for (unsigned k = 0; k < ndim; k++)
            off += idx[k] * stride[k];
        if (off != m->at[e])
            return 0;
    }
    for (unsigned k = 0; k < ndim; k++)
        if (stride[k] < 0)
            return 0; /* only non-negative strides are allowed */
    return 1;
}

void assert_view_is(const tv_t *v, const model_t *m, const char *what)
{
    ck_assert_msg(v->ndim == m->ndim && memcmp(v->shape, m->shape, m->ndim * sizeof *m->shape) == 0,
                  "%s: shape %s, expected %s", what, shape_str(v->ndim, v->shape),
                  shape_str(m->ndim, m->shape));
    int64_t idx[TV_MAX_DIMS], e, off = 0;
    for (e = 0; e < m->n; e++) { /* find a mismatch first: Check records every assertion */
        unravel(m->ndim, m->shape, e, idx);
        off = v->offset;
        for (unsigned k = 0; k < m->ndim; k++)
            off += idx[k] * v->strides[k];
        if (off != m->at[e])
            break;
    }
    ck_assert_msg(e == m->n, "%s: element %lld of shape %s (offset %lld, strides %s) is storage "
                  "element %lld, expected %lld", what, (long long)e, shape_str(m->ndim, m->shape),
                  (long long)v->offset, shape_str(v->ndim, v->strides), (long long)off,
                  (long long)(e < m->n ? m->at[e] : 0));
}

unsigned char pattern_byte(int64_t e, size_t b)
{
    uint64_t h = ((uint64_t)e + 1) * 0x9E3779B97F4A7C15ull + b * 0xBF58476D1CE4E5B9ull;
    return (unsigned char)(h >> 56 ^ h >> 29);
}

void fill_pattern(const tv_t *v)
{
    unsigned char *p = v->data;
    for (int64_t e = 0; e < v->storage_elems; e++)
        for (size_t b = 0; b < v->elem_size; b++)
            p[(size_t)e * v->elem_size + b] = pattern_byte(e, b);
}

tv_t random_strided(mm_rng_t *r, size_t esz, unsigned max_rank, int64_t max_size, int allow_empty)
{
    tv_t v = { .elem_size = esz, .ndim = (unsigned)mm_rng_range(r, 1, max_rank) };
    int64_t reach = 0;
    v.offset = (int64_t)mm_rng_range(r, 0, 20);
    for (unsigned k = 0; k < v.ndim; k++) {
        v.shape[k] = (int64_t)mm_rng_range(r, allow_empty ? 0 : 1, (uint64_t)max_size);
        v.strides[k] = mm_rng_range(r, 0, 5) == 0 ? 0 : (int64_t)mm_rng_range(r, 1, 40);
        reach += (v.shape[k] > 0 ? v.shape[k] - 1 : 0) * v.strides[k];
    }
    v.storage_elems = v.offset + reach + 1;
    v.data = mm_shared_alloc((size_t)v.storage_elems * esz);
    fill_pattern(&v);
    return v;
}

void random_perm(mm_rng_t *r, unsigned n, unsigned *perm)
{
    for (unsigned k = 0; k < n; k++)
        perm[k] = k;
    for (unsigned k = n; k-- > 1;) { /* Fisher-Yates */
        unsigned j = (unsigned)mm_rng_range(r, 0, k), t = perm[k];
        perm[k] = perm[j], perm[j] = t;
    }
}

/* Runs a->op on *v with out == v in your process; *v becomes the result on success. */
static int inplace(tv_t *v, tv_inplace_t *a)
{
    tv_t after;
    a->v = *v;
    int rc = mm_call_work("inplace", a, sizeof *a, &after, sizeof after);
    if (rc == 0)
        *v = after;
    return rc;
}

int inplace_permute(tv_t *v, const unsigned *perm)
{
    tv_inplace_t a = { .op = TV_IP_PERMUTE };
    memcpy(a.perm, perm, (v->ndim < TV_MAX_DIMS ? v->ndim : TV_MAX_DIMS) * sizeof *perm);
    return inplace(v, &a);
}

int inplace_transpose(tv_t *v, unsigned d0, unsigned d1)
{
    tv_inplace_t a = { .op = TV_IP_TRANSPOSE, .d0 = d0, .d1 = d1 };
    return inplace(v, &a);
}

int inplace_slice(tv_t *v, unsigned dim, int64_t start, int64_t stop, int64_t step)
{
    tv_inplace_t a = { .op = TV_IP_SLICE, .d0 = dim, .start = start, .stop = stop, .step = step };
    return inplace(v, &a);
}

int inplace_expand(tv_t *v, unsigned ndim, const int64_t *shape)
{
    tv_inplace_t a = { .op = TV_IP_EXPAND, .ndim = ndim };
    if (ndim > TV_MAX_DIMS)
        return -EINVAL;
    memcpy(a.shape, shape, ndim * sizeof *shape);
    return inplace(v, &a);
}

/* One random operation on (v, m), done with your functions and on the model. */
static void random_op(mm_rng_t *r, tv_t *v, model_t *m)
{
    model_t next;
    unsigned d = (unsigned)mm_rng_range(r, 0, v->ndim - 1), perm[TV_MAX_DIMS];
    switch (mm_rng_range(r, 0, 3)) {
    case 0: /* permute */
        random_perm(r, v->ndim, perm);
        MM_ASSERT_OK(inplace_permute(v, perm));
        next = model_permute(m, perm);
        break;
    case 1: { /* transpose two dimensions */
        unsigned e = (unsigned)mm_rng_range(r, 0, v->ndim - 1);
        for (unsigned k = 0; k < v->ndim; k++)
            perm[k] = k == d ? e : k == e ? d : k;
        MM_ASSERT_OK(inplace_transpose(v, d, e));
        next = model_permute(m, perm);
        break;
    }
    case 2: { /* slice with a step */
        int64_t size = v->shape[d], start = (int64_t)mm_rng_range(r, 0, (uint64_t)size / 2);
        int64_t stop = (int64_t)mm_rng_range(r, (uint64_t)start, (uint64_t)size + 2);
        int64_t step = (int64_t)mm_rng_range(r, 1, 3);
        MM_ASSERT_OK(inplace_slice(v, d, start, stop, step));
        next = model_slice(m, d, start, stop, step);
        break;
    }
    default: { /* expand the size-1 dimensions, sometimes add a leading one */
        int64_t shape[TV_MAX_DIMS];
        unsigned lead = v->ndim < 5 ? (unsigned)mm_rng_range(r, 0, 1) : 0;
        for (unsigned k = 0; k < lead; k++)
            shape[k] = (int64_t)mm_rng_range(r, 1, 3);
        for (unsigned k = 0; k < v->ndim; k++)
            shape[lead + k] = v->shape[k] == 1 ? (int64_t)mm_rng_range(r, 1, 3) : -1;
        MM_ASSERT_OK(inplace_expand(v, v->ndim + lead, shape));
        next = model_expand(m, v->ndim, shape);
    }
    }
    model_free(m);
    *m = next;
}

tv_t random_chain(mm_rng_t *r, size_t esz, int ops, int allow_empty, model_t *m)
{
    tv_t v = { .elem_size = esz, .ndim = (unsigned)mm_rng_range(r, 1, 4) };
    int64_t n = 1;
    for (unsigned k = v.ndim; k-- > 0;) {
        v.shape[k] = (int64_t)mm_rng_range(r, allow_empty ? 0 : 1, 6);
        v.strides[k] = n;
        n *= v.shape[k] > 1 ? v.shape[k] : 1;
    }
    v.offset = (int64_t)mm_rng_range(r, 0, 7);
    v.storage_elems = v.offset + n + (int64_t)mm_rng_range(r, 0, 3);
    v.data = mm_shared_alloc((size_t)v.storage_elems * esz);
    fill_pattern(&v);
    *m = model_of(&v);
    for (int i = 0; i < ops; i++)
        random_op(r, &v, m);
    return v;
}

const char *shape_str(unsigned ndim, const int64_t *shape)
{
    static char buf[4][160];
    static unsigned next;
    char *s = buf[next++ % 4];
    size_t len = (size_t)snprintf(s, sizeof buf[0], "(");
    for (unsigned k = 0; k < ndim && len < sizeof buf[0]; k++)
        len += (size_t)snprintf(s + len, sizeof buf[0] - len, "%s%lld", k ? ", " : "",
                                (long long)shape[k]);
    if (len < sizeof buf[0])
        snprintf(s + len, sizeof buf[0] - len, ")");
    return s;
}
