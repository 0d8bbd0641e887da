/* Lab 03, part C: the copies a view cannot avoid. contiguous() gathers any valid view into a
 * dense row-major buffer; the 2-D float32 transpose is its hardest case, done cache-blocked. */
#ifndef TV_COPY_H
#define TV_COPY_H
#include <stddef.h>
#include "view.h"

/* torch.contiguous into a buffer you provide: writes v's numel elements to dst in logical
 * (row-major) order, element k of that order at byte k * elem_size, so dst then holds the
 * storage of tv_init(dst, elem_size, ndim, shape). dst must not overlap v's storage.
 * Returns 0 (nothing is written if numel is 0; dst may then be NULL);
 *   tv_validate's errors;
 *   -EINVAL:  dst is NULL with elements to write;
 *   -ERANGE:  numel * elem_size overflows size_t;
 *   -ENOBUFS: dst_bytes < numel * elem_size (nothing written). */
int tv_contiguous(const tv_t *v, void *dst, size_t dst_bytes);

/* Transposes a rows x cols float32 matrix: dst[j * ld_dst + i] = src[i * ld_src + j] for every
 * i < rows, j < cols. ld_src / ld_dst are the leading dimensions (elements from one row to the
 * next). Nothing else of dst is written. src and dst must not overlap.
 * Processes the matrix in square tiles of `tile` x `tile` elements (README.md, section 2.5).
 * Returns 0 (src and dst may be NULL when rows or cols is 0);
 *   -EINVAL: tile is 0, ld_src < cols, ld_dst < rows, or src / dst is NULL with elements to
 *            move. */
int tv_transpose2d_f32_tiled(const float *src, size_t rows, size_t cols, size_t ld_src,
                             float *dst, size_t ld_dst, size_t tile);

/* tv_transpose2d_f32_tiled with the tile size you found fastest (the `blocking` plot). Same
 * contract otherwise. */
int tv_transpose2d_f32(const float *src, size_t rows, size_t cols, size_t ld_src, float *dst,
                       size_t ld_dst);

#endif
