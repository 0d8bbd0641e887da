/* Lab 12: the provided launchers (see gpu_memory.h): each fixes its kernel's launch shape and the
 * buffers it may touch, and runs it on the kernel emulator. Provided: not yours to edit. */
#include <errno.h>
#include <limits.h>
#include "gpu_memory.h"

typedef struct {
    const float *in;
    float *out;
    int rows, cols;
} transpose_args_t;

typedef struct {
    const float *table;
    const int *ids;
    float *out;
    int n_ids, dim;
} gather_args_t;

static void transpose_body(void *p)
{
    const transpose_args_t *a = p;
    gm_transpose(a->in, a->out, a->rows, a->cols);
}

static void row_sum_body(void *p)
{
    const transpose_args_t *a = p;
    gm_row_sum(a->in, a->out, a->cols);
}

static void gather_body(void *p)
{
    const gather_args_t *a = p;
    gm_gather(a->table, a->ids, a->out, a->n_ids, a->dim);
}

static unsigned ceil_div(int n, int d)
{
    return (unsigned)((n + d - 1) / d);
}

/* 1 if a * b * c fits an int (all >= 0). */
static int fits(int a, int b, int c)
{
    return (long long)a * b * c <= INT_MAX;
}

int gm_run_transpose(const float *in, float *out, int batch, int rows, int cols,
                     kemu_stats_t *st, kemu_trace_t *tr)
{
    if (!in || !out || !st || batch < 1 || rows < 1 || cols < 1 || !fits(batch, rows, cols))
        return -EINVAL;
    size_t bytes = (size_t)batch * rows * cols * sizeof(float);
    transpose_args_t a = {in, out, rows, cols};
    kemu_span_t spans[2] = {{in, bytes, 0}, {out, bytes, 1}};
    kemu_launch_t l = {{ceil_div(cols, GM_TILE), ceil_div(rows, GM_TILE), (unsigned)batch},
                       {GM_TILE, GM_TILE_ROWS, 1}, transpose_body, &a, spans, 2, tr};
    return kemu_run(&l, st);
}

int gm_run_row_sum(const float *in, float *out, int rows, int cols, kemu_stats_t *st,
                   kemu_trace_t *tr)
{
    if (!in || !out || !st || rows < 1 || cols < 1 || !fits(rows, cols, 1))
        return -EINVAL;
    transpose_args_t a = {in, out, rows, cols};
    kemu_span_t spans[2] = {{in, (size_t)rows * cols * sizeof(float), 0},
                            {out, (size_t)rows * sizeof(float), 1}};
    kemu_launch_t l = {{(unsigned)rows, 1, 1}, {GM_REDUCE_THREADS, 1, 1}, row_sum_body, &a,
                       spans, 2, tr};
    return kemu_run(&l, st);
}

int gm_run_gather(const float *table, int vocab, const int *ids, float *out, int n_ids, int dim,
                  kemu_stats_t *st, kemu_trace_t *tr)
{
    if (!table || !ids || !out || !st || vocab < 1 || n_ids < 0 || dim < 1 ||
        !fits(vocab, dim, 1) || !fits(n_ids, dim, 1))
        return -EINVAL;
    gather_args_t a = {table, ids, out, n_ids, dim};
    kemu_span_t spans[3] = {{table, (size_t)vocab * dim * sizeof(float), 0},
                            {ids, (size_t)n_ids * sizeof(int), 0},
                            {out, (size_t)n_ids * dim * sizeof(float), 1}};
    kemu_launch_t l = {{gm_gather_blocks(n_ids, dim), 1, 1}, {GM_GATHER_THREADS, 1, 1},
                       gather_body, &a, spans, 3, tr};
    return kemu_run(&l, st);
}
