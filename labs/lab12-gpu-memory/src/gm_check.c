/* Lab 12: each kernel's trace checked and counted by the grader (gm_check.h): its launch shape
 * (as src/launch.c sets it) and its buffers, for kemu_trace_check. Provided: not yours to edit. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "gm_check.h"
#include "gpu_memory.h"

/* Slack per block for barriers, shuffles and shared-memory traffic beyond the elements'. */
#define GM_BLOCK_EVENTS 4096

static unsigned ceil_div(int n, int d)
{
    return (unsigned)((n + d - 1) / d);
}

size_t gm_trace_cap_transpose(int batch, int rows, int cols)
{
    size_t n = (size_t)batch * rows * cols;
    return 16 * n + (size_t)GM_BLOCK_EVENTS / 4 * batch * ceil_div(rows, GM_TILE) *
                        ceil_div(cols, GM_TILE);
}

size_t gm_trace_cap_row_sum(int rows, int cols)
{
    return 8 * ((size_t)rows * cols + rows) + (size_t)GM_BLOCK_EVENTS * rows;
}

size_t gm_trace_cap_gather(int n_ids, int dim)
{
    return 16 * ((size_t)n_ids * dim + n_ids) +
           (size_t)GM_BLOCK_EVENTS / 4 * gm_gather_blocks(n_ids, dim);
}

int gm_check_transpose(const kemu_trace_t *tr, size_t cap, const float *d_in, const float *d_out,
                       const float *in, const float *want, int batch, int rows, int cols,
                       int shared_read, kemu_stats_t *st, char *why, size_t len)
{
    if (batch < 1 || rows < 1 || cols < 1)
        return -EINVAL;
    size_t bytes = (size_t)batch * rows * cols * sizeof(float);
    kemu_tbuf_t bufs[2] = {{d_in, bytes, in, NULL, NULL}, {d_out, bytes, NULL, want, NULL}};
    kemu_tcheck_t c = {{ceil_div(cols, GM_TILE), ceil_div(rows, GM_TILE), (unsigned)batch},
                       {GM_TILE, GM_TILE_ROWS, 1}, bufs, 2, shared_read};
    return kemu_trace_check(tr, cap, &c, st, why, len);
}

int gm_check_row_sum(const kemu_trace_t *tr, size_t cap, const float *d_in, const float *d_out,
                     const float *in, const float *want, int rows, int cols, int shared_read,
                     kemu_stats_t *st, char *why, size_t len)
{
    if (rows < 1 || cols < 1)
        return -EINVAL;
    kemu_tbuf_t bufs[2] = {{d_in, (size_t)rows * cols * sizeof(float), in, NULL, NULL},
                           {d_out, (size_t)rows * sizeof(float), NULL, want, NULL}};
    kemu_tcheck_t c = {{(unsigned)rows, 1, 1}, {GM_REDUCE_THREADS, 1, 1}, bufs, 2,
                       shared_read};
    return kemu_trace_check(tr, cap, &c, st, why, len);
}

int gm_check_gather(const kemu_trace_t *tr, size_t cap, const float *d_table, const int *d_ids,
                    const float *d_out, const float *table, const int *ids, const float *want,
                    int vocab, int n_ids, int dim, kemu_stats_t *st, char *why, size_t len)
{
    if (!ids || vocab < 1 || n_ids < 0 || dim < 1)
        return -EINVAL;
    size_t row = (size_t)dim * sizeof(float);
    uint8_t *need = calloc((size_t)vocab * row, 1);
    if (!need)
        return -ENOMEM;
    for (int i = 0; i < n_ids; i++)
        if (ids[i] >= 0 && ids[i] < vocab)
            memset(need + (size_t)ids[i] * row, 1, row);
    kemu_tbuf_t bufs[3] = {{d_table, (size_t)vocab * row, table, NULL, need},
                           {d_ids, (size_t)n_ids * sizeof(int), ids, NULL, NULL},
                           {d_out, (size_t)n_ids * row, NULL, want, NULL}};
    kemu_tcheck_t c = {{gm_gather_blocks(n_ids, dim), 1, 1}, {GM_GATHER_THREADS, 1, 1}, bufs, 3,
                       0};
    int rc = kemu_trace_check(tr, cap, &c, st, why, len);
    free(need);
    return rc;
}
