/* Lab 09: `sweep` replays the three shipped traces through your scheduler and cache at several
 * block sizes, on the benchmark's budget (16384 token slots), and prints one line per block
 * size: what a block size buys and costs (handout, section 2.3).
 *     build/labs/lab09-paged-kv-cache/sweep [block sizes...]      (default 1 4 8 16 32 64 256)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kvcache.h"
#include "scheduler.h"
#include "trace.h"

#define BUDGET 16384 /* token slots, as the benchmark */

typedef struct {
    unsigned long long steps, peak, preempted;
    double reserved, used, physical, logical;
    kv_stats_t end;
} sweep_t;

/* Replays t with the given block size; returns 0 or prints why not and returns -1. */
static int run(const kv_trace_t *t, uint32_t bs, sweep_t *r)
{
    kv_cache_t *c = NULL;
    kv_sched_t *s = NULL;
    kv_config_t cfg = { BUDGET / bs, bs, true, NULL };
    kv_sched_config_t sc = { 256 };
    memset(r, 0, sizeof *r);
    if (kv_create(&c, &cfg) || kv_sched_create(&s, c, &sc)) {
        fprintf(stderr, "sweep: kv_create or kv_sched_create failed\n");
        kv_destroy(c);
        return -1;
    }
    size_t next = 0;
    while ((next < t->n || !kv_sched_idle(s)) && r->steps < 200000) {
        while (next < t->n && t->arrival[next] <= r->steps)
            if (kv_sched_submit(s, &t->req[next++]))
                fprintf(stderr, "sweep: kv_sched_submit refused request %zu\n", next - 1);
        kv_step_t st;
        if (kv_sched_step(s, &st) || kv_get_stats(c, &r->end)) {
            fprintf(stderr, "sweep: block size %u, trace %s: step %llu failed\n", bs, t->name,
                    r->steps);
            break;
        }
        r->peak = st.running_seqs > r->peak ? st.running_seqs : r->peak;
        r->preempted += st.preempted;
        r->reserved += (double)r->end.slots_reserved;
        r->used += (double)r->end.slots_used;
        r->physical += r->end.used_blocks;
        r->logical += (double)r->end.logical_blocks;
        r->steps++;
    }
    kv_sched_destroy(s);
    kv_destroy(c);
    return 0;
}

static double pct(double a, double b)
{
    return b > 0 ? 100.0 * a / b : 0;
}

int main(int argc, char **argv)
{
    static const uint32_t dflt[] = { 1, 4, 8, 16, 32, 64, 256 };
    kv_trace_t t[KV_NTRACES];
    for (unsigned k = 0; k < KV_NTRACES; k++)
        if (kv_trace_load(k, &t[k])) {
            fprintf(stderr, "sweep: could not load trace %s\n", kv_trace_name(k));
            return 1;
        }
    printf("%5s %9s %10s %10s %9s %9s %11s %11s\n", "block", "mix peak", "waste all",
           "chat hits", "parallel", "chat", "chat", "mix");
    printf("%5s %9s %10s %10s %9s %9s %11s %11s\n", "size", "seqs", "traces", "", "saved",
           "steps", "preemptions", "preemptions");
    int n = argc > 1 ? argc - 1 : (int)(sizeof dflt / sizeof dflt[0]);
    for (int i = 0; i < n; i++) {
        uint32_t bs = argc > 1 ? (uint32_t)strtoul(argv[i + 1], NULL, 10) : dflt[i];
        sweep_t r[KV_NTRACES];
        double res = 0, used = 0;
        if (bs == 0 || bs > BUDGET)
            continue;
        for (unsigned k = 0; k < KV_NTRACES; k++) {
            if (run(&t[k], bs, &r[k]))
                return 1;
            res += r[k].reserved;
            used += r[k].used;
        }
        printf("%5u %9llu %9.1f%% %9.1f%% %8.1f%% %9llu %11llu %11llu\n", bs, r[2].peak,
               pct(res - used, res),
               pct((double)r[0].end.prefix_hits, (double)r[0].end.prefix_queries),
               100.0 - pct(r[1].physical, r[1].logical), r[0].steps, r[0].preempted,
               r[2].preempted);
    }
    for (unsigned k = 0; k < KV_NTRACES; k++)
        kv_trace_free(&t[k]);
    return 0;
}
