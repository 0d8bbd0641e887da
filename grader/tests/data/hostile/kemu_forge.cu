
/* Hostile epilogue (lab 12, appended to the naive kernels): this file defines the launchers
 * itself, with C linkage from inside a namespace (gpu_memory.h declares them, so the student's
 * object may export them; src/launch.c's are then never linked), runs the kernels on the emulator as launch.c does, and forges what the grader reads:
 * the emulator's counts rewritten to the reference's figures, and the trace doctored the cheap
 * ways (the transpose's conflicted shared loads left out, the row sum's barriers but one per
 * block left out, the gather's table loads moved to consecutive addresses). Where the counts
 * that score are the harness's, from a trace it checks, none of it scores. */
/* The bodies read their arguments outside the kernel's buffers: left uninstrumented (as
 * src/launch.c, plain C, is), or the emulator would count those reads as faults. */
struct hostile_targs {
    const float *in;
    float *out;
    int rows, cols;
};
struct hostile_gargs {
    const float *table;
    const int *ids;
    float *out;
    int n_ids, dim;
};

[[gnu::no_sanitize("thread")]] static void hostile_transpose_body(void *p)
{
    const hostile_targs *a = (const hostile_targs *)p;
    gm_transpose(a->in, a->out, a->rows, a->cols);
}

[[gnu::no_sanitize("thread")]] static void hostile_row_sum_body(void *p)
{
    const hostile_targs *a = (const hostile_targs *)p;
    gm_row_sum(a->in, a->out, a->cols);
}

[[gnu::no_sanitize("thread")]] static void hostile_gather_body(void *p)
{
    const hostile_gargs *a = (const hostile_gargs *)p;
    gm_gather(a->table, a->ids, a->out, a->n_ids, a->dim);
}

/* Drops the trace's events of kind op (barriers: all but the first of each block), word by word
 * (no struct copy: it could become a memcpy call, which this object may not make). */
static void hostile_drop(kemu_trace_t *tr, unsigned op)
{
    if (!tr)
        return;
    uint64_t n = tr->n < tr->cap ? tr->n : tr->cap, kept = 0;
    uint32_t seen = 0xffffffffu;
    for (uint64_t i = 0; i < n; i++) {
        unsigned kind = tr->ev[i].op;
        uint32_t block = tr->ev[i].block;
        if (kind == op && !(op == KEMU_EV_BARRIER && block != seen))
            continue;
        if (kind == KEMU_EV_BARRIER)
            seen = block;
        uint64_t *to = (uint64_t *)&tr->ev[kept++], *from = (uint64_t *)&tr->ev[i];
        for (int w = 0; w < 4; w++)
            to[w] = from[w];
    }
    tr->n = kept;
}

/* Moves every load from [base, base + bytes) to 32 consecutive floats at base, by lane. */
static void hostile_coalesce(kemu_trace_t *tr, const void *base, size_t bytes)
{
    uint64_t lo = (uint64_t)(uintptr_t)base, n = tr ? (tr->n < tr->cap ? tr->n : tr->cap) : 0;
    for (uint64_t i = 0; i < n; i++)
        if (tr->ev[i].op == KEMU_EV_GLD && tr->ev[i].addr >= lo && tr->ev[i].addr < lo + bytes)
            tr->ev[i].addr = lo + 4u * (tr->ev[i].thread % 32u);
}

namespace hostile {
extern "C" {
int gm_run_transpose(const float *in, float *out, int batch, int rows, int cols,
                     kemu_stats_t *st, kemu_trace_t *tr)
{
    size_t bytes = (size_t)batch * rows * cols * sizeof(float);
    hostile_targs a = {in, out, rows, cols};
    kemu_span_t spans[2] = {{in, bytes, 0}, {out, bytes, 1}};
    kemu_launch_t l = {{(unsigned)(cols + 31) / 32, (unsigned)(rows + 31) / 32, (unsigned)batch},
                       {GM_TILE, GM_TILE_ROWS, 1}, hostile_transpose_body, &a, spans, 2, tr};
    int rc = kemu_run(&l, st);
    st->sld.wavefronts = st->sld.requests;
    hostile_drop(tr, KEMU_EV_SLD);
    return rc;
}

int gm_run_row_sum(const float *in, float *out, int rows, int cols, kemu_stats_t *st,
                   kemu_trace_t *tr)
{
    hostile_targs a = {in, out, rows, cols};
    kemu_span_t spans[2] = {{in, (size_t)rows * cols * sizeof(float), 0},
                            {out, (size_t)rows * sizeof(float), 1}};
    kemu_launch_t l = {{(unsigned)rows, 1, 1}, {GM_REDUCE_THREADS, 1, 1}, hostile_row_sum_body,
                       &a, spans, 2, tr};
    int rc = kemu_run(&l, st);
    st->barriers = st->blocks;
    hostile_drop(tr, KEMU_EV_BARRIER);
    return rc;
}

int gm_run_gather(const float *table, int vocab, const int *ids, float *out, int n_ids, int dim,
                  kemu_stats_t *st, kemu_trace_t *tr)
{
    hostile_gargs a = {table, ids, out, n_ids, dim};
    kemu_span_t spans[3] = {{table, (size_t)vocab * dim * sizeof(float), 0},
                            {ids, (size_t)n_ids * sizeof(int), 0},
                            {out, (size_t)n_ids * dim * sizeof(float), 1}};
    long long blocks = ((long long)n_ids * dim + GM_GATHER_THREADS - 1) / GM_GATHER_THREADS;
    blocks = blocks < 1 ? 1 : blocks > GM_GATHER_MAX_BLOCKS ? GM_GATHER_MAX_BLOCKS : blocks;
    kemu_launch_t l = {{(unsigned)blocks, 1, 1}, {GM_GATHER_THREADS, 1, 1},
                       hostile_gather_body, &a, spans, 3, tr};
    int rc = kemu_run(&l, st);
    st->gld.sectors = 4 * st->gld.requests;
    st->gst.sectors = 4 * st->gst.requests;
    hostile_coalesce(tr, table, (size_t)vocab * dim * sizeof(float));
    return rc;
}
}
}
