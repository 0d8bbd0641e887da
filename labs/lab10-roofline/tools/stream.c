/* `stream`: STREAM's four kernels on 1, 2, ... up to every core (threads pinned with hwloc, arrays
 * 4 x the last-level cache), reported as STREAM reports them through your rl_stream_bytes and
 * rl_stream_summary, then this machine's roofline through your rl_ridge. Usage: stream [passes]
 * (default 10; STREAM's NTIMES). Build: make lab10 (build/labs/lab10-roofline/stream). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../bench/measure.h"
#include "mm_hw.h"
#include "roofline.h"

#define MAX_PASSES 100

static const char *const NAMES[] = { "Copy:", "Scale:", "Add:", "Triad:" };

/* One STREAM table for `threads` threads; the triad's best rate in *triad_mbs. 0 or -errno. */
static int table(float *a, float *b, float *c, size_t n, unsigned threads, int passes,
                 double *triad_mbs)
{
    printf("\n%u thread%s\nFunction    Best Rate MB/s  Avg time     Min time     Max time\n",
           threads, threads == 1 ? "" : "s");
    for (int op = RL_COPY; op <= RL_TRIAD; op++) {
        double secs[MAX_PASSES];
        uint64_t bytes;
        rl_stream_row_t row;
        for (int p = 0; p < passes; p++)
            if ((secs[p] = ms_stream_pass((rl_stream_op_t)op, a, b, c, n, threads)) < 0)
                return (int)secs[p];
        int rc = rl_stream_bytes((rl_stream_op_t)op, n, sizeof(float), &bytes);
        if (rc == 0)
            rc = rl_stream_summary(secs, passes, bytes, &row);
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

int main(int argc, char **argv)
{
    int passes = argc > 1 ? atoi(argv[1]) : 10;
    size_t llc = 0, n = ms_array_floats(&llc);
    unsigned cores = mm_hw_cores();
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
    printf("STREAM-style, float arrays of %zu elements (%zu MiB each; last-level cache %zu MiB)\n"
           "%d passes per kernel, the first not counted; %u cores, thread k pinned to core k\n",
           n, n * sizeof(float) >> 20, llc >> 20, passes, cores);
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
