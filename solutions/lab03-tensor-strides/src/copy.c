/* Lab 03, part C: contiguous() and the cache-blocked float32 transpose (contract in
 * include/copy.h). The benchmark races these against memcpy and src/baseline.c. */
#include "copy.h"
#include <errno.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE__)
#include <xmmintrin.h>
#elif defined(__ARM_NEON)
#include <arm_neon.h>
#endif

#define TV_TILE 256/* tile edge of tv_transpose2d_f32, from the `blocking` plot */

/* A view's dimensions with the size-1 ones dropped and each pair merged where the outer one
 * steps exactly over the inner one: the same elements in the same order, in fewer loops. */
typedef struct {
    unsigned n;
    int64_t shape[TV_MAX_DIMS], strides[TV_MAX_DIMS];
} dims_t;

static void collapse(const tv_t *v, dims_t *d)
{
    d->n = 0;
    for (unsigned k = 0; k < v->ndim; k++) {
        int64_t span;
        if (v->shape[k] == 1)
            continue;
        if (d->n > 0 && !__builtin_mul_overflow(v->strides[k], v->shape[k], &span) &&
            d->strides[d->n - 1] == span) {
            d->shape[d->n - 1] *= v->shape[k];
            d->strides[d->n - 1] = v->strides[k];
            continue;
        }
        d->shape[d->n] = v->shape[k];
        d->strides[d->n] = v->strides[k];
        d->n++;
    }
}

/* Advances the row-major index idx over the first nd dimensions of d, keeping *off (in
 * elements) in step. Returns 0 after the last index. */
static int next_index(const dims_t *d, unsigned nd, int64_t *idx, int64_t *off)
{
    for (unsigned k = nd; k-- > 0;) {
        if (++idx[k] < d->shape[k]) {
            *off += d->strides[k];
            return 1;
        }
        *off -= (d->shape[k] - 1) * d->strides[k];
        idx[k] = 0;
    }
    return 0;
}

/* Innermost dimension contiguous: one memcpy per run. */
static void copy_runs(const dims_t *d, const char *src, size_t esz, char *dst)
{
    size_t run = (size_t)d->shape[d->n - 1] * esz;
    int64_t idx[TV_MAX_DIMS] = { 0 }, off = 0;
    do {
        memcpy(dst, src + off * (int64_t)esz, run);
        dst += run;
    } while (next_index(d, d->n - 1, idx, &off));
}

/* True when the last two dimensions are a transposed float32 matrix: the second-last
 * dimension is the contiguous one and rows of the source do not overlap. */
static int is_transpose(const dims_t *d, const char *src, size_t esz, const char *dst)
{
    return esz == sizeof(float) && d->n >= 2 && d->strides[d->n - 2] == 1 &&
           d->strides[d->n - 1] >= d->shape[d->n - 2] &&
           (uintptr_t)src % _Alignof(float) == 0 && (uintptr_t)dst % _Alignof(float) == 0;
}

/* One blocked transpose per index of the outer dimensions: element (a, b) of the last two
 * sits at a + b * ld in the source, and goes to a * B + b. */
static void copy_transposes(const dims_t *d, const char *src, char *dst)
{
    size_t rows = (size_t)d->shape[d->n - 1], cols = (size_t)d->shape[d->n - 2];
    size_t ld = (size_t)d->strides[d->n - 1];
    int64_t idx[TV_MAX_DIMS] = { 0 }, off = 0;
    do {
        tv_transpose2d_f32((const float *)src + off, rows, cols, ld, (float *)dst, rows);
        dst += rows * cols * sizeof(float);
    } while (next_index(d, d->n - 2, idx, &off));
}

/* n elements, `stride` elements apart in src, packed into dst; memcpy of a constant size
 * compiles to one load and one store. */
static void gather(char *dst, const char *src, int64_t n, int64_t stride, size_t esz)
{
    switch (esz) {
    case 4:
        for (int64_t i = 0; i < n; i++)
            memcpy(dst + i * 4, src + i * stride * 4, 4);
        break;
    case 8:
        for (int64_t i = 0; i < n; i++)
            memcpy(dst + i * 8, src + i * stride * 8, 8);
        break;
    default:
        for (int64_t i = 0; i < n; i++)
            memcpy(dst + i * (int64_t)esz, src + i * stride * (int64_t)esz, esz);
    }
}

/* Any layout: walk the outer dimensions, gather the innermost one element by element. */
static void copy_elements(const dims_t *d, const char *src, size_t esz, char *dst)
{
    if (d->n == 0) {
        memcpy(dst, src, esz);
        return;
    }
    int64_t n = d->shape[d->n - 1], idx[TV_MAX_DIMS] = { 0 }, off = 0;
    do {
        gather(dst, src + off * (int64_t)esz, n, d->strides[d->n - 1], esz);
        dst += n * (int64_t)esz;
    } while (next_index(d, d->n - 1, idx, &off));
}

int tv_contiguous(const tv_t *v, void *dst, size_t dst_bytes)
{
    int64_t numel = tv_numel(v);
    size_t bytes;
    if (numel < 0)
        return (int)numel;
    if (__builtin_mul_overflow((size_t)numel, v->elem_size, &bytes))
        return -ERANGE;
    if (numel == 0)
        return 0;
    if (!dst)
        return -EINVAL;
    if (dst_bytes < bytes)
        return -ENOBUFS;
    dims_t d;
    collapse(v, &d);
    const char *src = (const char *)v->data + v->offset * (int64_t)v->elem_size;
    if (d.n > 0 && d.strides[d.n - 1] == 1)
        copy_runs(&d, src, v->elem_size, dst);
    else if (is_transpose(&d, src, v->elem_size, dst))
        copy_transposes(&d, src, dst);
    else
        copy_elements(&d, src, v->elem_size, dst);
    return 0;
}

/* dst[j][i] = src[i][j] for i in [i0, i1), j in [j0, j1), one element at a time. */
static void transpose_scalar(const float *src, size_t ls, float *dst, size_t ld, size_t i0,
                             size_t i1, size_t j0, size_t j1)
{
    for (size_t j = j0; j < j1; j++)
        for (size_t i = i0; i < i1; i++)
            dst[j * ld + i] = src[i * ls + j];
}

/* A 4 x 4 block through registers: four row loads, four column stores (SSE on x86-64, NEON on
 * Arm64, else one element at a time). */
static inline void transpose4x4(const float *s, size_t ls, float *d, size_t ld)
{
#if defined(__SSE__)
    __m128 r0 = _mm_loadu_ps(s), r1 = _mm_loadu_ps(s + ls);
    __m128 r2 = _mm_loadu_ps(s + 2 * ls), r3 = _mm_loadu_ps(s + 3 * ls);
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    _mm_storeu_ps(d, r0);
    _mm_storeu_ps(d + ld, r1);
    _mm_storeu_ps(d + 2 * ld, r2);
    _mm_storeu_ps(d + 3 * ld, r3);
#elif defined(__ARM_NEON)
    /* vtrnq pairs rows 0/1 and 2/3 (a0 b0 a2 b2 | a1 b1 a3 b3); the halves then make columns. */
    float32x4x2_t ab = vtrnq_f32(vld1q_f32(s), vld1q_f32(s + ls));
    float32x4x2_t cd = vtrnq_f32(vld1q_f32(s + 2 * ls), vld1q_f32(s + 3 * ls));
    vst1q_f32(d, vcombine_f32(vget_low_f32(ab.val[0]), vget_low_f32(cd.val[0])));
    vst1q_f32(d + ld, vcombine_f32(vget_low_f32(ab.val[1]), vget_low_f32(cd.val[1])));
    vst1q_f32(d + 2 * ld, vcombine_f32(vget_high_f32(ab.val[0]), vget_high_f32(cd.val[0])));
    vst1q_f32(d + 3 * ld, vcombine_f32(vget_high_f32(ab.val[1]), vget_high_f32(cd.val[1])));
#else
    transpose_scalar(s, ls, d, ld, 0, 4, 0, 4);
#endif
}

/* One tile [i0, i1) x [j0, j1): its full 4 x 4 blocks through registers, the edges scalar. */
static void transpose_tile(const float *src, size_t ls, float *dst, size_t ld, size_t i0,
                           size_t i1, size_t j0, size_t j1)
{
    size_t ie = i0 + (i1 - i0) / 4 * 4, je = j0 + (j1 - j0) / 4 * 4;
    for (size_t j = j0; j < je; j += 4)
        for (size_t i = i0; i < ie; i += 4)
            transpose4x4(src + i * ls + j, ls, dst + j * ld + i, ld);
    transpose_scalar(src, ls, dst, ld, ie, i1, j0, j1);
    transpose_scalar(src, ls, dst, ld, i0, ie, je, j1);
}

int tv_transpose2d_f32_tiled(const float *src, size_t rows, size_t cols, size_t ld_src,
                             float *dst, size_t ld_dst, size_t tile)
{
    if (tile == 0 || ld_src < cols || ld_dst < rows)
        return -EINVAL;
    if (rows == 0 || cols == 0)
        return 0;
    if (!src || !dst)
        return -EINVAL;
    for (size_t i0 = 0; i0 < rows; i0 += tile) {
        size_t i1 = rows - i0 < tile ? rows : i0 + tile;
        for (size_t j0 = 0; j0 < cols; j0 += tile) {
            size_t j1 = cols - j0 < tile ? cols : j0 + tile;
            transpose_tile(src, ld_src, dst, ld_dst, i0, i1, j0, j1);
        }
    }
    return 0;
}

int tv_transpose2d_f32(const float *src, size_t rows, size_t cols, size_t ld_src, float *dst,
                       size_t ld_dst)
{
    return tv_transpose2d_f32_tiled(src, rows, cols, ld_src, dst, ld_dst, TV_TILE);
}
