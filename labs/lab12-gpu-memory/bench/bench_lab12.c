/* Lab 12 benchmark: your three kernels on the kernel emulator (kemu.h), scored by what it counts
 * for each warp's memory instructions (sectors per request, shared-memory wavefronts per
 * request, barriers per row): deterministic, the same on every machine. A kernel whose output
 * differs from the oracle's, or that touches memory outside its buffers, fails its metrics.
 * First, where a GPU is usable, the same kernels as nvcc built them are timed on it
 * (bench_gpu.c: device code only, loaded as data; no code of yours runs in this process).
 * The emulator runs your kernels in your own process (calls.toml) and appends every access to a
 * trace in memory shared with it; the counts that score are made here from that trace, once it
 * is checked against this process's own copies of the data (kemu_trace.h, gm_check.h): the
 * emulator's own counts are not used.
 * Prints one JSON object; the grader scores it with lab.toml's thresholds. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mm_aligned.h"
#include "gm_check.h"
#include "bench_gpu.h"
#include "cases.h"
#include "mm_bench.h"
#include "mm_call.h"
#include "gpu_memory.h"

#define T_BATCH 2
#define T_ROWS 128 /* channels */
#define T_COLS 192 /* H * W */
#define R_ROWS 64
#define R_COLS 1024
#define G_VOCAB 1000
#define G_DIM 128
#define G_IDS 128

/* in, want, ids: this process's; d_*: device-like memory shared with your process (page
 * aligned, as cudaMalloc's is 256-byte aligned: a row of 32 floats is then 4 whole sectors);
 * tr: the trace, with room for cap events (the most any of the three kernels gets). */
typedef struct {
    float *in, *out, *want;
    int *ids;
    float *d_in, *d_out;
    int *d_ids;
    kemu_trace_t *tr;
    size_t cap;
} buffers_t;

/* Why a run cannot be scored (its launch failed, its trace is not a consistent run that computed
 * the answer, or the output in memory differs from the oracle), into why; 0 if it can be.
 * checked: gm_check_*'s result, its words already in why. */
static int unusable(int rc, const kemu_stats_t *st, int checked, const float *dev,
                    const float *want, float *got, size_t n, char *why, size_t len)
{
    memcpy(got, dev, n * sizeof *got); /* the output, out of the shared memory first */
    if (rc && rc != -EFAULT) {
        snprintf(why, len, "the launch failed (%d): %s", rc, st->error);
        return 1;
    }
    if (checked)
        return 1;
    if (rc) {
        snprintf(why, len, "the launch failed (%d): %s", rc, st->error);
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            snprintf(why, len, "wrong result: element %zu is %g, expected %g", i,
                     (double)got[i], (double)want[i]);
            return 1;
        }
    return 0;
}

static void poison(float *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v[i] = NAN;
}

/* The counts of one run, as the detail of its metrics. */
static void counts(char *s, size_t n, const kemu_stats_t *st)
{
    snprintf(s, n,
             "global loads %llu requests / %llu sectors, stores %llu / %llu; shared loads %llu "
             "requests / %llu wavefronts, stores %llu / %llu; %llu barriers over %llu blocks",
             (unsigned long long)st->gld.requests, (unsigned long long)st->gld.sectors,
             (unsigned long long)st->gst.requests, (unsigned long long)st->gst.sectors,
             (unsigned long long)st->sld.requests, (unsigned long long)st->sld.wavefronts,
             (unsigned long long)st->sst.requests, (unsigned long long)st->sst.wavefronts,
             (unsigned long long)st->barriers, (unsigned long long)st->blocks);
}

static void bench_transpose(mm_json_t *j, buffers_t *b, kemu_stats_t *st)
{
    static const char *const names[] = {"transpose_sectors", "transpose_wavefronts", NULL};
    size_t n = (size_t)T_BATCH * T_ROWS * T_COLS;
    char why[400], detail[512];
    kemu_stats_t own;
    bench_fill(b->in, n, 1);
    oracle_transpose(b->in, b->want, T_BATCH, T_ROWS, T_COLS);
    memcpy(b->d_in, b->in, n * sizeof *b->in);
    poison(b->d_out, n);
    int rc = gm_run_transpose(b->d_in, b->d_out, T_BATCH, T_ROWS, T_COLS, &own, b->tr);
    int checked = gm_check_transpose(b->tr, b->cap, b->d_in, b->d_out, b->in, b->want, T_BATCH,
                                     T_ROWS, T_COLS, 1, st, why, sizeof why);
    if (unusable(rc, &own, checked, b->d_out, b->want, b->out, n, why, sizeof why)) {
        mm_bench_fail_all(j, names, "gm_transpose: %s", why);
        return;
    }
    counts(detail, sizeof detail, st);
    mm_bench_metricf(j, names[0], kemu_sectors_per_request(st), " sectors/request", "%s",
                     detail);
    if (st->sld.requests + st->sst.requests == 0)
        mm_bench_fail(j, names[1], "gm_transpose made no shared-memory request: no tile");
    else
        mm_bench_metricf(j, names[1], kemu_wavefronts_per_request(st), " wavefronts/request",
                         "%s", detail);
}

static void bench_row_sum(mm_json_t *j, buffers_t *b, kemu_stats_t *st)
{
    char why[400], detail[512];
    kemu_stats_t own;
    size_t n = (size_t)R_ROWS * R_COLS;
    bench_fill(b->in, n, 2);
    oracle_row_sum(b->in, b->want, R_ROWS, R_COLS);
    memcpy(b->d_in, b->in, n * sizeof *b->in);
    poison(b->d_out, R_ROWS);
    int rc = gm_run_row_sum(b->d_in, b->d_out, R_ROWS, R_COLS, &own, b->tr);
    int checked = gm_check_row_sum(b->tr, b->cap, b->d_in, b->d_out, b->in, b->want, R_ROWS,
                                   R_COLS, 1, st, why, sizeof why);
    if (unusable(rc, &own, checked, b->d_out, b->want, b->out, R_ROWS, why, sizeof why)) {
        mm_bench_failf(j, "reduce_barriers", "gm_row_sum: %s", why);
        return;
    }
    counts(detail, sizeof detail, st);
    mm_bench_metricf(j, "reduce_barriers", (double)st->barriers / R_ROWS,
                     " barriers/row", "%s; %llu warp shuffles", detail,
                     (unsigned long long)st->shuffles);
}

static void bench_gather(mm_json_t *j, buffers_t *b, kemu_stats_t *st)
{
    char why[400], detail[512];
    kemu_stats_t own;
    size_t n = (size_t)G_IDS * G_DIM;
    bench_fill(b->in, (size_t)G_VOCAB * G_DIM, 3);
    gather_case(b->in, G_VOCAB, G_DIM, b->ids, G_IDS, b->want);
    memcpy(b->d_in, b->in, (size_t)G_VOCAB * G_DIM * sizeof *b->in);
    memcpy(b->d_ids, b->ids, G_IDS * sizeof *b->ids);
    poison(b->d_out, n);
    int rc = gm_run_gather(b->d_in, G_VOCAB, b->d_ids, b->d_out, G_IDS, G_DIM, &own, b->tr);
    int checked = gm_check_gather(b->tr, b->cap, b->d_in, b->d_ids, b->d_out, b->in, b->ids,
                                  b->want, G_VOCAB, G_IDS, G_DIM, st, why, sizeof why);
    if (unusable(rc, &own, checked, b->d_out, b->want, b->out, n, why, sizeof why)) {
        mm_bench_failf(j, "gather_sectors", "gm_gather: %s", why);
        return;
    }
    counts(detail, sizeof detail, st);
    mm_bench_metricf(j, "gather_sectors", kemu_sectors_per_request(st), " sectors/request", "%s",
                     detail);
}

/* The model's traffic of one kernel, for the info object: at L2, at DRAM, and the least any
 * order could move (every input and output byte once). */
static void info_traffic(mm_json_t *j, const char *name, const kemu_stats_t *st, double least)
{
    mm_json_object(j, name);
    mm_json_int(j, "l2_bytes", (long long)st->l2_bytes);
    mm_json_int(j, "dram_bytes", (long long)st->dram_bytes);
    mm_json_int(j, "least_bytes", (long long)least);
    mm_json_close(j, '}');
}

/* Room for the longest trace of the three kernels. */
static size_t trace_cap(void)
{
    size_t t = gm_trace_cap_transpose(T_BATCH, T_ROWS, T_COLS);
    size_t r = gm_trace_cap_row_sum(R_ROWS, R_COLS), g = gm_trace_cap_gather(G_IDS, G_DIM);
    return t > r ? (t > g ? t : g) : (r > g ? r : g);
}

int main(void)
{
    int started = mm_call_setup();
    if (started != 0) {
        fprintf(stderr, "mlmem: cannot start the program that runs your code: %s\n",
                strerror(-started));
        return 2;
    }
    mm_json_t j;
    kemu_stats_t st[3];
    char gpu[400];
    memset(st, 0, sizeof st);
    mm_bench_open(&j, "12");
    bench_gpu(&j, gpu, sizeof gpu);
    size_t big = (size_t)G_VOCAB * G_DIM > (size_t)R_ROWS * R_COLS ? (size_t)G_VOCAB * G_DIM
                                                                  : (size_t)R_ROWS * R_COLS;
    buffers_t b = {mm_aligned_alloc(256, big * sizeof(float)),
                   mm_aligned_alloc(256, big * sizeof(float)),
                   mm_aligned_alloc(256, big * sizeof(float)),
                   mm_aligned_alloc(256, G_IDS * sizeof(int)),
                   mm_shared_alloc(big * sizeof(float)), mm_shared_alloc(big * sizeof(float)),
                   mm_shared_alloc(4096), NULL, trace_cap()};
    b.tr = mm_shared_alloc(kemu_trace_bytes(b.cap));
    b.tr->cap = b.cap;
    if (!b.in || !b.out || !b.want || !b.ids) {
        static const char *const all[] = {"transpose_sectors", "transpose_wavefronts",
                                          "reduce_barriers", "gather_sectors", NULL};
        mm_bench_fail_all(&j, all, "out of memory for the benchmark's buffers");
    } else {
        bench_transpose(&j, &b, &st[0]);
        bench_row_sum(&j, &b, &st[1]);
        bench_gather(&j, &b, &st[2]);
    }
    mm_bench_end_metrics(&j);
    mm_json_object(&j, "info");
    mm_json_str(&j, "gpu", gpu);
    info_traffic(&j, "transpose", &st[0], 2.0 * T_BATCH * T_ROWS * T_COLS * sizeof(float));
    info_traffic(&j, "row_sum", &st[1], (double)R_ROWS * (R_COLS + 1) * sizeof(float));
    info_traffic(&j, "gather", &st[2], (double)G_IDS * (2 * G_DIM + 1) * sizeof(float));
    mm_json_end(&j);
    mm_aligned_free(b.in), mm_aligned_free(b.out), mm_aligned_free(b.want);
    mm_aligned_free(b.ids);
    return 0;
}
