/* `stream`: STREAM's four kernels on 1, 2, ... up to every core (threads pinned with hwloc, arrays
 * 4 x the caches of the cores used), reported as STREAM reports them through your rl_stream_bytes
 * and rl_stream_summary, then this machine's roofline through your rl_ridge. As in STREAM, each
 * pass runs copy, scale, add and triad in turn, and the first pass is left out; unlike STREAM
 * (double, 16 and 24 bytes per element), the arrays hold floats (8 and 12 bytes). Usage: stream
 * [passes] (default 10; STREAM's NTIMES). Build: make lab10 (build/labs/lab10-roofline/stream). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../bench/measure.h"
#include "mm_hw.h"
#include "roofline.h"

#define MAX_PASSES 100

static const char *const NAMES[] = { "Copy:", "Scale:", "Add:", "Triad:" };

/* secs[op][p]: pass p of each kernel, the four kernels in turn in every pass as STREAM runs them.
 * 0 or -errno. */
static int time_passes(float *a, float *b, float *c, size_t n, unsigned threads, int passes,
                       double secs[4][MAX_PASSES])
{
    for (int p = 0; p < passes; p++)
        for (int op = RL_COPY; op <= RL_TRIAD; op++)
            if ((secs[op][p] = ms_stream_pass((rl_stream_op_t)op, a, b, c, n, threads)) < 0)
                return (int)secs[op][p];
    return 0;
}

/* One STREAM table for `threads` threads; the triad's best rate in *triad_mbs. 0 or -errno. */
static int table(float *a, float *b, float *c, size_t n, unsigned threads, int passes,
                 double *triad_mbs)
{
    double secs[4][MAX_PASSES];
    int rc = time_passes(a, b, c, n, threads, passes, secs);
    if (rc != 0)
        return rc;
    printf("\n%u thread%s\nFunction    Best Rate MB/s  Avg time     Min time     Max time\n",
           threads, threads == 1 ? "" : "s");
    for (int op = RL_COPY; op <= RL_TRIAD; op++) {
        uint64_t bytes;
        rl_stream_row_t row;
        rc = rl_stream_bytes((rl_stream_op_t)op, n, sizeof(float), &bytes);
        if (rc == 0)
            rc = rl_stream_summary(secs[op], passes, bytes, &row);
        if (rc != 0) {
            printf("%-12syour rl_stream_bytes / rl_stream_summary returned %d (%s)\n",
                   NAMES[op], rc, strerror(-rc));
            continue;
        }
        printf("%-12s%14.1f  %11.6f  %11.6f  %11.6f%s\n", NAMES[op], row.best_mbs, row.avg_s,
               row.min_s, row.max_s, row.max_s > 1.5 * row.min_s ? "  (noisy: max > 1.5 x min; "
               "another program shares these cores?)" : "");
        if (op == RL_TRIAD)
            *triad_mbs = row.best_mbs;
    }
    return 0;
}

/* The arrays' size against the caches, and whether STREAM's rule holds. */
static void say_size(size_t n, const ms_size_t *sz, unsigned cores, int passes)
{
    double mib = (double)(n * sizeof(float)) / (1 << 20), cmib = (double)sz->caches / (1 << 20);
    printf("STREAM-style, float arrays of %zu elements (%.0f MiB each), %d passes per kernel, the "
           "first not counted; %u cores, thread k pinned to core k\n", n, mib, passes, cores);
    if (!sz->caches)
        printf("the caches' sizes are unknown (hwloc reports none): arrays of %.0f MiB\n", mib);
    else
        printf("arrays %.1f x the %.1f MiB of caches of the %u cores (STREAM asks for at least "
               "4 x)%s\n", mib / cmib, cmib, cores, sz->below_rule ? ": BELOW STREAM'S RULE, held "
               "at the cap of 1 GiB per array; part of each pass may come from a cache" : "");
}

int main(int argc, char **argv)
{
    int passes = argc > 1 ? atoi(argv[1]) : 10;
    unsigned cores = mm_hw_cores();
    ms_size_t sz;
    size_t n = ms_array_floats(cores, &sz);
    if (passes < 2 || passes > MAX_PASSES) {
        fprintf(stderr, "usage: %s [passes: 2..%d]\n", argv[0], MAX_PASSES);
        return 2;
    }
    mm_hw_try_pin(0); /* the one-thread table runs here, on core 0 */
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    if (!a || !b || !c || ms_fill(a, b, c, n, cores) != 0) {
        fprintf(stderr, "stream: out of memory for 3 arrays of %zu MiB\n", n * 4 >> 20);
        return 1;
    }
    say_size(n, &sz, cores, passes);
    double triad1 = 0, triad = 0;
    for (unsigned t = 1; t <= cores; t = t * 2 <= cores || t == cores ? t * 2 : cores) {
        if (table(a, b, c, n, t, passes, &triad) != 0)
            break;
        if (t == 1)
            triad1 = triad;
        if (t == cores)
            break;
    }
    rl_roof_t roof = { ms_fma_gflops(5), triad1 / 1e3 };
    double ridge;
    printf("\nOne core's roofline: FMA peak %.1f GFLOP/s, triad %.1f GB/s\n", roof.peak_gflops,
           roof.peak_gbs);
    int rc = roof.peak_gbs > 0 ? rl_ridge(&roof, &ridge) : -EINVAL;
    if (rc == 0)
        printf("ridge point (your rl_ridge): %.2f FLOP/byte: below it, memory-bound\n", ridge);
    else
        printf("ridge point: your rl_ridge returned %d (%s)\n", rc, strerror(-rc));
    free(a);
    free(b);
    free(c);
    return 0;
}
