/* Lab 03: the transpose_batch workload's request (serve/batch.c), as the benchmark sends it. */
#ifndef TV_SERVE_BATCH_H
#define TV_SERVE_BATCH_H
#include <stdint.h>

/* `count` tiled transposes: matrix n is rows x cols at src + n * src_step (elements), into
 * dst + n * dst_step. src and dst are shared memory (the harness's mm_shared_alloc). */
typedef struct {
    uint64_t src, dst;               /* float addresses */
    uint64_t rows, cols, ld_src, ld_dst, tile;
    uint64_t count, src_step, dst_step;
} tv_batch_t;

#endif
