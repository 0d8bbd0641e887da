/* Lab 09 benchmark: replays the three shipped request traces through your scheduler and paged
 * cache, and through this file's own contiguous allocator (each sequence reserves the model's
 * whole context, as servers did before paging), on the same memory budget. Prints one JSON
 * object: peak concurrent sequences against the contiguous allocator, KV memory wasted, the
 * prefix-cache hit rate and the blocks parallel sampling saves by sharing. Every figure is a
 * count: the same on any machine. Each trace is replayed on its own: one that fails (an error,
 * a scheduler that never finishes, a log that does not check) fails only the metrics that use
 * it, with its own reason.
 *
 * Your code runs in a process of its own: the replay is the kv_replay workload there, which
 * logs every step's block tables and tokens; kv_check.c rebuilds and checks them here, and
 * every scored figure is counted from them, never taken from your statistics. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kv_check.h"
#include "kvcache.h"
#include "mm_bench.h"
#include "mm_call.h"
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
#define LOG_BYTES ((size_t)32 << 20) /* one chunk of the replay's log, in shared memory */
#define CHUNK_STEPS 2048              /* steps a kv_replay call runs at most */

/* What one trace's replay measured; err is NULL when the trace ran to its end, else why it did
 * not (then none of its figures is reported). */
typedef struct {
    const char *err;
    char why[400];
    uint64_t steps, peak_seqs, preempted, decoded;
    double reserved, used;        /* token slots, summed over steps */
    double physical, logical;     /* blocks in use / in the tables, summed over steps */
    uint64_t queries, hits, evictions, cow_copies;
    uint64_t peak_step;           /* the first step that reached peak_seqs, and after it: */
    uint32_t peak_waiting;        /* requests in the waiting queue */
    uint32_t peak_room;           /* free + cached blocks */
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

/* Marks the run failed with a reason (printf's format); returns -1. */
static int fail(run_t *run, const char *fmt, ...) MM_BENCH_PRINTF(2, 3);
static int fail(run_t *run, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(run->why, sizeof run->why, fmt, ap);
    va_end(ap);
    run->err = run->why;
    return -1;
}

/* Adds one step's figures to the run: c as counted from the checked log, h as the student's
 * scheduler and cache said (the preemptions and decoded tokens shown, the cached blocks
 * plotted: never scored). */
static int account(run_t *run, series_t *ser, const kv_rec_step_t *h, const kv_count_t *c)
{
    run->preempted += h->res.preempted;
    run->decoded += h->res.decoded;
    if (c->seqs > run->peak_seqs) {
        run->peak_seqs = c->seqs;
        run->peak_step = run->steps;
        run->peak_waiting = h->res.waiting;
        run->peak_room = NUM_BLOCKS - c->used;
    }
    run->reserved += (double)c->used * BLOCK_SIZE;
    run->used += (double)c->slots_used;
    run->physical += c->used;
    run->logical += (double)c->logical;
    uint32_t cached = h->st.cached_blocks < NUM_BLOCKS - c->used ? h->st.cached_blocks
                                                                 : NUM_BLOCKS - c->used;
    if (run->steps % SAMPLE_EVERY == 0 &&
        series_add(ser, (double[6]){ (double)run->steps, c->used, c->shared, cached,
                                     NUM_BLOCKS - c->used - cached,
                                     (double)c->used * BLOCK_SIZE - (double)c->slots_used }))
        return -ENOMEM;
    return 0;
}

/* A failure of the call boundary (the student's process died) during a replay: back to it. */
static jmp_buf boundary_jmp;
static int in_replay;
static char boundary_why[600];

static void boundary_failed(const char *msg)
{
    snprintf(boundary_why, sizeof boundary_why, "%s", msg);
    if (in_replay)
        longjmp(boundary_jmp, 1);
    fprintf(stderr, "mlmem: %s\n", msg);
    exit(3);
}

static const char *const WHERE[] = { "", "kv_sched_submit", "kv_sched_step",
                                     "a query of the cache" };

/* Checks and counts the `steps` records of log[0..len) (a private copy). 0, or -1 (run->err). */
static int check_chunk(const kv_trace_t *t, kv_check_t *chk, const unsigned char *log,
                       size_t len, int steps, run_t *run, series_t *ser)
{
    char why[400];
    kv_rec_step_t h;
    kv_count_t c;
    size_t at = 0;
    for (int i = 0; i < steps; i++) {
        long n = kv_check_step(chk, log + at, len - at, &h, &c, why, sizeof why);
        if (n < 0)
            return fail(run, "trace %s: %s", t->name, why);
        at += (size_t)n;
        if (account(run, ser, &h, &c))
            return fail(run, "trace %s: out of host memory for the series", t->name);
        if (++run->steps >= MAX_STEPS)
            return fail(run, "trace %s did not finish in %d scheduler steps (after the last: "
                        "%u sequences live, %u blocks in use of %d)", t->name, MAX_STEPS,
                        c.seqs, c.used, NUM_BLOCKS);
    }
    run->queries = c.queries;
    run->hits = c.hits;
    run->evictions = h.st.evictions;
    run->cow_copies = h.st.cow_copies;
    return 0;
}

/* Runs the kv_replay workload of trace k to its end, checking each chunk of steps it logs. */
static void drive(unsigned k, const kv_trace_t *t, kv_check_t *chk, unsigned char *copy,
                  run_t *run, series_t *ser)
{
    unsigned char *log = mm_shared_alloc(LOG_BYTES);
    kv_replay_in_t in = { k, 1, NUM_BLOCKS, BLOCK_SIZE, MAX_SEQS, CHUNK_STEPS, SAMPLE_EVERY, 0,
                          (uint64_t)(uintptr_t)log, LOG_BYTES };
    kv_replay_out_t out;
    for (;;) {
        int rc = mm_call_work("kv_replay", &in, sizeof in, &out, sizeof out);
        in.begin = 0;
        if (rc < 0) {
            fail(run, "trace %s: the replay stopped at step %llu: %s%s%d (%s)", t->name,
                 (unsigned long long)run->steps, WHERE[out.where >= 1 && out.where <= 3 ?
                 out.where : 0], out.where >= 1 && out.where <= 3 ? " returned " : "error ",
                 rc, strerror(-rc));
            return;
        }
        if (out.used > LOG_BYTES || (rc == 0 && !out.done)) {
            fail(run, "trace %s: the replay's log is malformed", t->name);
            return;
        }
        memcpy(copy, log, out.used); /* ours now: the student's process cannot change it */
        if (check_chunk(t, chk, copy, out.used, rc, run, ser) || out.done)
            return;
    }
}

/* Replays trace k (t, loaded here too) through your scheduler on a fresh cache in your process
 * (the kv_replay workload), and counts every figure from the checked log; run->err says why if
 * it could not. */
static void replay(unsigned k, const kv_trace_t *t, run_t *run, series_t *ser)
{
    kv_check_t *chk = NULL;
    unsigned char *copy = malloc(LOG_BYTES);
    memset(run, 0, sizeof *run);
    if (!copy || kv_check_new(&chk, t, NUM_BLOCKS, BLOCK_SIZE)) {
        fail(run, "trace %s: out of host memory for the checker", t->name);
    } else if (setjmp(boundary_jmp) == 0) {
        in_replay = 1;
        drive(k, t, chk, copy, run, ser);
        if (!run->err && kv_check_end(chk, run->why, sizeof run->why))
            run->err = run->why;
    } else {
        fail(run, "trace %s: %s", t->name, boundary_why);
    }
    in_replay = 0;
    kv_check_free(chk);
    free(copy);
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

/* Replays t through the contiguous allocator; run->err says why if it could not. */
static void contiguous(const kv_trace_t *t, run_t *run)
{
    contig_req_t *live = calloc(t->n + 1, sizeof *live);
    size_t nrun = 0, next = 0, head = 0;
    uint64_t seqs = 0, used, budget = (uint64_t)NUM_BLOCKS * BLOCK_SIZE;
    memset(run, 0, sizeof *run);
    if (!live) {
        fail(run, "trace %s: out of host memory for the contiguous allocator", t->name);
        return;
    }
    while ((head < t->n || nrun > 0) && run->steps < MAX_STEPS) {
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
    if (head < t->n || nrun > 0)
        fail(run, "trace %s: the contiguous allocator did not finish in %d steps", t->name,
             MAX_STEPS);
    free(live);
}

/* ---- the report ---------------------------------------------------------------------------- */

static const char *const METRICS[] = { "concurrency_gain", "kv_waste_pct", "prefix_hit_rate",
                                       "sharing_saved_pct", NULL };

static double pct(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : 0;
}

/* Why the traces `mask` names (bit k: trace k) could not be measured, for a failed metric;
 * NULL when they all were. */
static const char *why_not(const run_t runs[KV_NTRACES], unsigned mask, char *buf, size_t cap)
{
    size_t used = 0;
    for (int k = 0; k < KV_NTRACES; k++)
        if ((mask >> k & 1u) && runs[k].err && used + 1 < cap) {
            int w = snprintf(buf + used, cap - used, "%s%s", used ? "; " : "", runs[k].err);
            used += w > 0 ? (size_t)w : 0;
        }
    return used ? buf : NULL;
}

/* concurrency_gain (mix) and kv_waste_pct (all three traces). */
static void report_memory(mm_json_t *j, const run_t yours[KV_NTRACES],
                          const run_t base[KV_NTRACES])
{
    char buf[1300];
    const char *err = why_not(yours, 4u, buf, sizeof buf);
    if (err || (err = why_not(base, 4u, buf, sizeof buf)))
        mm_bench_fail(j, METRICS[0], err);
    else
        mm_bench_metricf(j, METRICS[0], base[2].peak_seqs ? (double)yours[2].peak_seqs /
                         (double)base[2].peak_seqs : 0, "x", "mix trace: %llu sequences at "
                         "once at the peak, the contiguous allocator %llu (same %d-token budget, "
                         "%d reserved per sequence)", (unsigned long long)yours[2].peak_seqs,
                         (unsigned long long)base[2].peak_seqs, NUM_BLOCKS * BLOCK_SIZE,
                         MAX_LEN);
    double res = 0, used = 0, bres = 0, bused = 0;
    for (int k = 0; k < KV_NTRACES; k++) {
        res += yours[k].reserved;
        used += yours[k].used;
        bres += base[k].reserved;
        bused += base[k].used;
    }
    if ((err = why_not(yours, 7u, buf, sizeof buf)) || (err = why_not(base, 7u, buf, sizeof buf)))
        mm_bench_fail(j, METRICS[1], err);
    else
        mm_bench_metricf(j, METRICS[1], pct(res - used, res), "%", "reserved but unused token "
                         "slots, all three traces, every step; the contiguous allocator wastes "
                         "%.1f%%", pct(bres - bused, bres));
}

/* prefix_hit_rate (chat) and sharing_saved_pct (parallel). */
static void report_sharing(mm_json_t *j, const run_t yours[KV_NTRACES])
{
    if (yours[0].err)
        mm_bench_fail(j, METRICS[2], yours[0].err);
    else
        mm_bench_metricf(j, METRICS[2], pct((double)yours[0].hits, (double)yours[0].queries),
                         "%", "chat trace: %llu of %llu full prompt blocks found in the cache",
                         (unsigned long long)yours[0].hits, (unsigned long long)yours[0].queries);
    if (yours[1].err)
        mm_bench_fail(j, METRICS[3], yours[1].err);
    else
        mm_bench_metricf(j, METRICS[3], 100.0 - pct(yours[1].physical, yours[1].logical), "%",
                         "parallel trace (n = 4): blocks in use vs blocks in the tables, summed "
                         "over %llu steps", (unsigned long long)yours[1].steps);
}

/* The series of the traces that ran to their end (none if neither did). */
static void write_series(mm_json_t *j, const series_t *chat, const series_t *mix,
                         const run_t yours[KV_NTRACES])
{
    static const char *const KEYS[5] = { "step", "used_blocks", "shared_blocks",
                                         "cached_blocks", "free_blocks" };
    if (yours[0].err && yours[2].err)
        return;
    mm_json_object(j, "series");
    if (!yours[0].err) {
        mm_json_object(j, "chat_blocks");
        for (int k = 0; k < 5; k++)
            mm_json_nums(j, KEYS[k], chat->v[k], chat->n);
        mm_json_close(j, '}');
    }
    if (!yours[2].err) {
        mm_json_object(j, "mix_unused_slots");
        mm_json_nums(j, "step", mix->v[0], mix->n);
        mm_json_nums(j, "unused_slots", mix->v[5], mix->n);
        mm_json_close(j, '}');
    }
    mm_json_close(j, '}');
}

/* The trace's tokens: prompts (each request once), full prompt blocks (what its first
 * admissions look up; a re-admission looks up the full blocks of prompt + output so far),
 * outputs (every sample's). */
static void trace_sizes(const kv_trace_t *t, uint64_t *prompt, uint64_t *blocks, uint64_t *out)
{
    *prompt = *blocks = *out = 0;
    for (size_t i = 0; i < t->n; i++) {
        *prompt += t->req[i].prompt_len;
        *blocks += t->req[i].prompt_len / BLOCK_SIZE;
        for (uint32_t k = 0; k < t->req[i].n; k++)
            *out += t->req[i].out_len[k];
    }
}

/* Your figures on one trace that ran to its end. */
static void write_yours(mm_json_t *j, const kv_trace_t *t, const run_t *y)
{
    uint64_t prompt, blocks, out;
    trace_sizes(t, &prompt, &blocks, &out);
    mm_json_int(j, "steps", (long long)y->steps);
    mm_json_int(j, "peak_seqs", (long long)y->peak_seqs);
    mm_json_int(j, "peak_step", (long long)y->peak_step);
    mm_json_int(j, "waiting_at_peak", (long long)y->peak_waiting);
    mm_json_int(j, "free_cached_blocks_at_peak", (long long)y->peak_room);
    mm_json_int(j, "preemptions", (long long)y->preempted);
    mm_json_int(j, "prompt_tokens", (long long)prompt);
    mm_json_int(j, "output_tokens", (long long)out);
    mm_json_int(j, "decoded_tokens", (long long)y->decoded);
    mm_json_int(j, "prefix_queries", (long long)y->queries);
    mm_json_int(j, "prefix_hits", (long long)y->hits);
    mm_json_int(j, "readmitted_blocks", (long long)y->queries - (long long)blocks);
    mm_json_int(j, "evictions", (long long)y->evictions);
    mm_json_int(j, "cow_copies", (long long)y->cow_copies);
    mm_json_num(j, "waste_pct", pct(y->reserved - y->used, y->reserved));
    mm_json_num(j, "prefix_hit_pct", pct((double)y->hits, (double)y->queries));
    mm_json_num(j, "saved_by_sharing_pct", 100.0 - pct(y->physical, y->logical));
}

/* What each trace is and what was measured on it; a trace that did not run to its end says
 * why instead of its figures. */
static void write_info(mm_json_t *j, const kv_trace_t *t, const run_t *yours,
                       const run_t *base)
{
    mm_json_object(j, "info");
    mm_json_str(j, "budget", "1024 blocks of 16 tokens = 16384 tokens (8 GiB of Llama-2-7B "
                "fp16 KV cache); contiguous: 4096 tokens reserved per sequence; max_seqs 256");
    for (int k = 0; k < KV_NTRACES; k++) {
        mm_json_object(j, kv_trace_name((unsigned)k));
        if (t[k].req) {
            mm_json_str(j, "about", t[k].about);
            mm_json_int(j, "requests", (long long)t[k].n);
        }
        if (yours[k].err)
            mm_json_str(j, "not_measured", yours[k].err);
        else
            write_yours(j, &t[k], &yours[k]);
        if (base[k].err) {
            mm_json_str(j, "contiguous_not_measured", base[k].err);
        } else {
            mm_json_int(j, "contiguous_steps", (long long)base[k].steps);
            mm_json_int(j, "contiguous_peak_seqs", (long long)base[k].peak_seqs);
            mm_json_num(j, "contiguous_waste_pct", pct(base[k].reserved - base[k].used,
                                                       base[k].reserved));
        }
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
    memset(t, 0, sizeof t);
    memset(ser, 0, sizeof ser);
    mm_call_on_fail(boundary_failed);
    int setup = mm_call_setup(), rc;
    for (unsigned k = 0; k < KV_NTRACES; k++) { /* each trace on its own: one failing fails */
        rc = kv_trace_load(k, &t[k]);          /* only the metrics that use it */
        if (rc) {
            memset(&yours[k], 0, sizeof yours[k]);
            memset(&base[k], 0, sizeof base[k]);
            fail(&yours[k], "could not load trace %s (%d, %s)", kv_trace_name(k), rc,
                 strerror(-rc));
            fail(&base[k], "could not load trace %s", kv_trace_name(k));
            continue;
        }
        contiguous(&t[k], &base[k]);
        if (setup)
            fail(&yours[k], "your code's program could not be started (%s)", strerror(-setup));
        else
            replay(k, &t[k], &yours[k], &ser[k]);
    }
    report_memory(&j, yours, base);
    report_sharing(&j, yours);
    mm_bench_end_metrics(&j);
    write_series(&j, &ser[0], &ser[2], yours);
    write_info(&j, t, yours, base);
    for (int k = 0; k < KV_NTRACES; k++) {
        for (int m = 0; m < 6; m++)
            free(ser[k].v[m]);
        kv_trace_free(&t[k]);
    }
    return 0;
}
