/* Lab 09 benchmark: replays the three shipped request traces through your scheduler and paged
 * cache, and through this file's own contiguous allocator (each sequence reserves the model's
 * whole context, as servers did before paging), on the same memory budget. Prints one JSON
 * object: peak concurrent sequences against the contiguous allocator, KV memory wasted, the
 * prefix-cache hit rate and the blocks parallel sampling saves by sharing. Every figure is a
 * count: the same on any machine. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kvcache.h"
#include "mm_bench.h"
#include "scheduler.h"
#include "trace.h"

/* The serving budget: Llama-2-7B in fp16 keeps 2 x 32 layers x 32 heads x 128 x 2 bytes =
 * 512 KiB of KV cache per token; 8 GiB of KV cache is 16384 tokens: 1024 blocks of 16. */
#define BLOCK_SIZE 16
#define NUM_BLOCKS 1024
#define MAX_LEN 4096   /* the model's context: what the contiguous allocator reserves */
#define MAX_SEQS 256   /* vLLM's default max_num_seqs */
#define MAX_STEPS 200000
#define SAMPLE_EVERY 16 /* steps between two points of the plotted series */

typedef struct {
    uint64_t steps, peak_seqs, preempted, decoded;
    double reserved, used;        /* token slots, summed over steps */
    double physical, logical;     /* blocks in use / in the tables, summed over steps */
    uint64_t queries, hits, evictions, cow_copies;
} run_t;

typedef struct {
    double *v[6]; /* step, used, shared, cached, free blocks; reserved-used slots (mix) */
    size_t n, cap;
} series_t;

static int series_add(series_t *s, const double x[6])
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        for (int k = 0; k < 6; k++) {
            double *p = realloc(s->v[k], cap * sizeof *p);
            if (!p)
                return -ENOMEM;
            s->v[k] = p;
        }
        s->cap = cap;
    }
    for (int k = 0; k < 6; k++)
        s->v[k][s->n] = x[k];
    s->n++;
    return 0;
}

static char why[300];

/* Replays t through your scheduler on a fresh cache. Returns NULL or what went wrong. */
static const char *replay(const kv_trace_t *t, run_t *run, series_t *ser)
{
    kv_cache_t *c = NULL;
    kv_sched_t *s = NULL;
    kv_config_t cfg = { NUM_BLOCKS, BLOCK_SIZE, true, NULL };
    kv_sched_config_t sc = { MAX_SEQS };
    kv_stats_t st;
    int rc;
    memset(run, 0, sizeof *run);
    if ((rc = kv_create(&c, &cfg)) || !c) {
        snprintf(why, sizeof why, "kv_create returned %d (%s)", rc, strerror(-rc));
        return why;
    }
    if ((rc = kv_sched_create(&s, c, &sc)) || !s) {
        snprintf(why, sizeof why, "kv_sched_create returned %d (%s)", rc, strerror(-rc));
        kv_destroy(c);
        return why;
    }
    const char *err = NULL;
    size_t next = 0, finished = 0;
    while (!err && (next < t->n || !kv_sched_idle(s))) {
        while (!err && next < t->n && t->arrival[next] <= run->steps)
            if ((rc = kv_sched_submit(s, &t->req[next++])))
                err = "kv_sched_submit refused a request of the trace";
        kv_step_t r;
        if (!err && (rc = kv_sched_step(s, &r)))
            err = "kv_sched_step failed";
        if (!err && (rc = kv_get_stats(c, &st)))
            err = "kv_get_stats failed";
        if (err) {
            snprintf(why, sizeof why, "%s (%d, %s) at step %llu of trace %s", err, rc,
                     strerror(-rc), (unsigned long long)run->steps, t->name);
            err = why;
            break;
        }
        finished += r.finished;
        run->preempted += r.preempted;
        run->decoded += r.decoded;
        run->peak_seqs = r.running_seqs > run->peak_seqs ? r.running_seqs : run->peak_seqs;
        run->reserved += (double)st.slots_reserved;
        run->used += (double)st.slots_used;
        run->physical += st.used_blocks;
        run->logical += (double)st.logical_blocks;
        if (ser && run->steps % SAMPLE_EVERY == 0 &&
            series_add(ser, (double[6]){ (double)run->steps, st.used_blocks, st.shared_blocks,
                                         st.cached_blocks, st.free_blocks,
                                         (double)(st.slots_reserved - st.slots_used) }))
            err = "out of host memory for the series";
        if (++run->steps >= MAX_STEPS) {
            snprintf(why, sizeof why, "trace %s did not finish in %d scheduler steps", t->name,
                     MAX_STEPS);
            err = why;
        }
    }
    if (!err && finished != t->n) {
        snprintf(why, sizeof why, "trace %s: %zu requests finished of %zu", t->name, finished,
                 t->n);
        err = why;
    }
    if (!err && !kv_get_stats(c, &st) && (st.used_blocks || st.seqs)) {
        snprintf(why, sizeof why, "trace %s: %u blocks still in use at the end", t->name,
                 st.used_blocks);
        err = why;
    }
    run->queries = st.prefix_queries;
    run->hits = st.prefix_hits;
    run->evictions = st.evictions;
    run->cow_copies = st.cow_copies;
    kv_sched_destroy(s);
    kv_destroy(c);
    return err;
}

/* ---- the contiguous allocator: each sequence reserves MAX_LEN slots when admitted ---------- */

typedef struct {
    uint32_t req, produced[KV_MAX_SAMPLES], live;
} contig_req_t;

/* One step of decoding; returns the sequences that finished. */
static uint32_t contig_decode(const kv_trace_t *t, contig_req_t *run, size_t *nrun,
                              uint64_t *used)
{
    uint32_t done = 0;
    size_t kept = 0;
    *used = 0;
    for (size_t i = 0; i < *nrun; i++) {
        const kv_request_t *r = &t->req[run[i].req];
        for (uint32_t k = 0; k < r->n; k++) {
            if (run[i].produced[k] == r->out_len[k])
                continue;
            if (++run[i].produced[k] == r->out_len[k]) {
                run[i].live--;
                done++;
            } else {
                *used += r->prompt_len + run[i].produced[k];
            }
        }
        if (run[i].live)
            run[kept++] = run[i];
    }
    *nrun = kept;
    return done;
}

static void contiguous(const kv_trace_t *t, run_t *run)
{
    contig_req_t *live = calloc(t->n + 1, sizeof *live);
    size_t nrun = 0, next = 0, head = 0;
    uint64_t seqs = 0, used, budget = (uint64_t)NUM_BLOCKS * BLOCK_SIZE;
    memset(run, 0, sizeof *run);
    while (live && (head < t->n || nrun > 0) && run->steps < MAX_STEPS) {
        seqs -= contig_decode(t, live, &nrun, &used);
        while (next < t->n && t->arrival[next] <= run->steps)
            next++; /* submitted: waiting in [head, next) */
        while (head < next && seqs + t->req[head].n <= MAX_SEQS &&
               (seqs + t->req[head].n) * MAX_LEN <= budget) {
            const kv_request_t *r = &t->req[head];
            live[nrun] = (contig_req_t){ .req = (uint32_t)head, .live = r->n };
            nrun++;
            seqs += r->n;
            used += (uint64_t)r->n * r->prompt_len;
            head++;
        }
        run->peak_seqs = seqs > run->peak_seqs ? seqs : run->peak_seqs;
        run->reserved += (double)(seqs * MAX_LEN);
        run->used += (double)used;
        run->physical += (double)seqs;
        run->logical += (double)seqs;
        run->steps++;
    }
    free(live);
}

/* ---- the report ---------------------------------------------------------------------------- */

static const char *const METRICS[] = { "concurrency_gain", "kv_waste_pct", "prefix_hit_rate",
                                       "sharing_saved_pct", NULL };

static double pct(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : 0;
}

static void report(mm_json_t *j, const run_t yours[KV_NTRACES], const run_t base[KV_NTRACES])
{
    double res = 0, used = 0, bres = 0, bused = 0;
    for (int k = 0; k < KV_NTRACES; k++) {
        res += yours[k].reserved;
        used += yours[k].used;
        bres += base[k].reserved;
        bused += base[k].used;
    }
    mm_bench_metricf(j, METRICS[0], base[2].peak_seqs ? (double)yours[2].peak_seqs /
                     (double)base[2].peak_seqs : 0, "x", "mix trace: %llu sequences at once at "
                     "the peak, the contiguous allocator %llu (same %d-token budget, %d reserved "
                     "per sequence)", (unsigned long long)yours[2].peak_seqs,
                     (unsigned long long)base[2].peak_seqs, NUM_BLOCKS * BLOCK_SIZE, MAX_LEN);
    mm_bench_metricf(j, METRICS[1], pct(res - used, res), "%", "reserved but unused token "
                     "slots, all three traces, every step; the contiguous allocator wastes %.1f%%",
                     pct(bres - bused, bres));
    mm_bench_metricf(j, METRICS[2], pct((double)yours[0].hits, (double)yours[0].queries), "%",
                     "chat trace: %llu of %llu full prompt blocks found in the cache",
                     (unsigned long long)yours[0].hits, (unsigned long long)yours[0].queries);
    mm_bench_metricf(j, METRICS[3], 100.0 - pct(yours[1].physical, yours[1].logical), "%",
                     "parallel trace (n = 4): blocks in use vs blocks in the tables, summed over "
                     "%llu steps", (unsigned long long)yours[1].steps);
}

static void write_series(mm_json_t *j, const series_t *chat, const series_t *mix)
{
    static const char *const KEYS[5] = { "step", "used_blocks", "shared_blocks",
                                         "cached_blocks", "free_blocks" };
    mm_json_object(j, "series");
    mm_json_object(j, "chat_blocks");
    for (int k = 0; k < 5; k++)
        mm_json_nums(j, KEYS[k], chat->v[k], chat->n);
    mm_json_close(j, '}');
    mm_json_object(j, "mix_unused_slots");
    mm_json_nums(j, "step", mix->v[0], mix->n);
    mm_json_nums(j, "unused_slots", mix->v[5], mix->n);
    mm_json_close(j, '}');
    mm_json_close(j, '}');
}

/* The tokens the trace asks to decode (every sample's output). */
static uint64_t output_tokens(const kv_trace_t *t)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < t->n; i++)
        for (uint32_t k = 0; k < t->req[i].n; k++)
            sum += t->req[i].out_len[k];
    return sum;
}

static void write_info(mm_json_t *j, const kv_trace_t *t, const run_t *yours,
                       const run_t *base, int ok)
{
    mm_json_object(j, "info");
    mm_json_str(j, "budget", "1024 blocks of 16 tokens = 16384 tokens (8 GiB of Llama-2-7B "
                "fp16 KV cache); contiguous: 4096 tokens reserved per sequence; max_seqs 256");
    for (int k = 0; k < KV_NTRACES; k++) {
        mm_json_object(j, t[k].name ? t[k].name : kv_trace_name((unsigned)k));
        mm_json_str(j, "about", t[k].about);
        mm_json_int(j, "requests", (long long)t[k].n);
        if (ok) {
            mm_json_int(j, "steps", (long long)yours[k].steps);
            mm_json_int(j, "peak_seqs", (long long)yours[k].peak_seqs);
            mm_json_int(j, "preemptions", (long long)yours[k].preempted);
            mm_json_int(j, "output_tokens", (long long)output_tokens(&t[k]));
            mm_json_int(j, "decoded_tokens", (long long)yours[k].decoded);
            mm_json_int(j, "evictions", (long long)yours[k].evictions);
            mm_json_int(j, "cow_copies", (long long)yours[k].cow_copies);
            mm_json_num(j, "waste_pct", pct(yours[k].reserved - yours[k].used,
                                            yours[k].reserved));
            mm_json_num(j, "prefix_hit_pct", pct((double)yours[k].hits,
                                                 (double)yours[k].queries));
            mm_json_num(j, "saved_by_sharing_pct", 100.0 - pct(yours[k].physical,
                                                               yours[k].logical));
        }
        mm_json_int(j, "contiguous_steps", (long long)base[k].steps);
        mm_json_int(j, "contiguous_peak_seqs", (long long)base[k].peak_seqs);
        mm_json_num(j, "contiguous_waste_pct", pct(base[k].reserved - base[k].used,
                                                   base[k].reserved));
        mm_json_close(j, '}');
    }
    mm_json_end(j);
}

int main(void)
{
    mm_json_t j;
    mm_bench_open(&j, "09");
    kv_trace_t t[KV_NTRACES];
    run_t yours[KV_NTRACES], base[KV_NTRACES];
    series_t ser[KV_NTRACES];
    const char *err = NULL;
    memset(t, 0, sizeof t);
    memset(ser, 0, sizeof ser);
    memset(yours, 0, sizeof yours);
    for (unsigned k = 0; k < KV_NTRACES && !err; k++) {
        if (kv_trace_load(k, &t[k])) {
            snprintf(why, sizeof why, "could not load trace %s", kv_trace_name(k));
            err = why;
            break;
        }
        contiguous(&t[k], &base[k]);
        err = replay(&t[k], &yours[k], &ser[k]);
    }
    if (err)
        mm_bench_fail_all(&j, METRICS, "%s", err);
    else
        report(&j, yours, base);
    mm_bench_end_metrics(&j);
    if (!err)
        write_series(&j, &ser[0], &ser[2]);
    write_info(&j, t, yours, base, !err);
    for (int k = 0; k < KV_NTRACES; k++) {
        for (int m = 0; m < 6; m++)
            free(ser[k].v[m]);
        kv_trace_free(&t[k]);
    }
    return 0;
}
