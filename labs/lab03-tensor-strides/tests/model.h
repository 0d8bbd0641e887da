/* Lab 03 tests: an independent model of a view, used as the oracle. A model lists, in row-major
 * order, the storage element of every element of a view; the operations below rearrange that
 * list directly, without strides, so they check your stride arithmetic from the outside. */
#ifndef TV_TEST_MODEL_H
#define TV_TEST_MODEL_H
#include <stdint.h>
#include "mm_call.h"
#include "mm_check.h"
#include "view.h"

typedef struct {
    unsigned ndim;
    int64_t shape[TV_MAX_DIMS];
    int64_t n;   /* element count */
    int64_t *at; /* at[k]: storage element of the k-th element in row-major order */
} model_t;

/* The test's own walk: the model of a hand-made view (its shape, strides and offset). */
model_t model_of(const tv_t *v);
model_t model_permute(const model_t *m, const unsigned *perm);
model_t model_slice(const model_t *m, unsigned dim, int64_t start, int64_t stop, int64_t step);
model_t model_expand(const model_t *m, unsigned ndim, const int64_t *shape);
model_t model_reshape(const model_t *m, unsigned ndim, const int64_t *shape);
void model_free(model_t *m);

/* Whether some strides give `shape` over m's elements in order (a view exists): the stride of
 * each dimension of size > 1 can only be the distance from element 0 to the next element along
 * it; check that those strides reproduce every element. */
int model_view_exists(const model_t *m, unsigned ndim, const int64_t *shape);

/* Asserts that v has m's shape and that its offset and strides address m's elements in order. */
void assert_view_is(const tv_t *v, const model_t *m, const char *what);

/* A hand-made view over `storage`: random rank 1..max_rank, sizes 0..max_size (0 only if
 * allow_empty), strides and offset random (strides 0 sometimes); storage_elems is exactly what
 * the view reaches (at least 1). Its storage is shared memory (mm_shared_alloc: your code reads
 * it through v->data); the caller frees it with mm_shared_free. */
tv_t random_strided(mm_rng_t *r, size_t esz, unsigned max_rank, int64_t max_size, int allow_empty);

/* A random permutation of 0..n-1. */
void random_perm(mm_rng_t *r, unsigned n, unsigned *perm);

/* A random view made by applying `ops` random operations (permute, transpose, slice, expand)
 * with YOUR functions, each with out == v, to a contiguous tensor in shared memory, and its
 * model built alongside. The caller frees v.data with mm_shared_free. */
tv_t random_chain(mm_rng_t *r, size_t esz, int ops, int allow_empty, model_t *m);

/* YOUR view operations called with out == v ("out may be v"), in your process (the inplace
 * workload, serve/inplace.c): tv_permute(v, perm, v) and so on. Return what it returned; *v is
 * the view afterwards when it returned 0, else unchanged. */
int inplace_permute(tv_t *v, const unsigned *perm);
int inplace_transpose(tv_t *v, unsigned d0, unsigned d1);
int inplace_slice(tv_t *v, unsigned dim, int64_t start, int64_t stop, int64_t step);
int inplace_expand(tv_t *v, unsigned ndim, const int64_t *shape);

/* Fills the storage of v (storage_elems elements) with bytes that identify each element. */
void fill_pattern(const tv_t *v);
/* Byte b of storage element e in that pattern. */
unsigned char pattern_byte(int64_t e, size_t b);

/* "(2, 3, 4)" of a shape, into a static buffer (for messages). */
const char *shape_str(unsigned ndim, const int64_t *shape);

#endif
