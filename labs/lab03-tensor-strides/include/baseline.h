/* Lab 03: the naive copy the benchmark races your transpose against (src/baseline.c; do not
 * edit: the grader uses its own copy). Correct, and slow for the reason this lab is about. */
#ifndef TV_BASELINE_H
#define TV_BASELINE_H
#include <stddef.h>

/* dst[j * ld_dst + i] = src[i * ld_src + j], walking dst row by row: every write lands next to
 * the previous one, every read is ld_src elements past the previous one. No argument checks. */
void tv_naive_transpose2d_f32(const float *src, size_t rows, size_t cols, size_t ld_src,
                              float *dst, size_t ld_dst);

#endif
