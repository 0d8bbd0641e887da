/* Lab 03: the naive strided transpose used as the benchmark's baseline (see baseline.h). Not
 * yours to edit: the grader always builds this file from its own copy. */
#include "baseline.h"

void tv_naive_transpose2d_f32(const float *src, size_t rows, size_t cols, size_t ld_src,
                              float *dst, size_t ld_dst)
{
    for (size_t j = 0; j < cols; j++)
        for (size_t i = 0; i < rows; i++)
            dst[j * ld_dst + i] = src[i * ld_src + j];
}
