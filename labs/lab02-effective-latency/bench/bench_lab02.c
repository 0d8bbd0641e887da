/* Lab 02 benchmark: your latency staircase and its knees against hwloc's cache sizes, and your
 * prediction of the random-walk kernel's time per step against the measured time, in one run.
 * Prints one JSON object (common/mm_bench.h); the grader scores it with lab.toml's thresholds.
 *
 * Your code runs in a process of its own (common/harness/mm_call.h). Every time that scores is
 * measured here, with this program's clock: your el_chase_ns runs there (the chase_chain
 * workload) and hands back the chain it linked; this program checks that the chain is one cycle
 * through all the nodes and times a chase over the same chain in memory of its own. The walk
 * kernel is given code and runs here too. While this program measures, your process must be
 * idle (mm_idle_*: its CPU time is read before and after); if it ran, no metric is scored.
 * knees_found's gate (past_l2_rise) times its two points again after the staircase, GATE_TIMES
 * times each, and compares their lowest.
 * The prediction's inputs are measured in each round, before and after the kernel's timing: a
 * round counts only when every level's latency stayed within NOISE of the lowest the run
 * measured for it (the staircase's, every round's), and the metric needs
 * MIN_ROUNDS such rounds (of at most MAX_ROUNDS), else it is skipped with the figures. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "amat.h"
#include "cachesim.h"
#include "chase.h"
#include "mm_bench.h"
#include "mm_call.h"
#include "mm_hw.h"
#include "mm_timer.h"
#include "predict.h"
#include "walk.h"
#include "../serve/chase_chain.h"

#define LINE 64
#define MS_PER_POINT 25.0
#define MIN_TOP ((size_t)64 << 20) /* the staircase goes to >= 4 x LLC, at least this far */
#define MAX_TOP EL_WALK_MAX_TIER   /* ... but no further (the kernel's cold tier has its size) */
#define MAX_POINTS 64
#define MAX_KNEES 16
#define ROUNDS 7 /* kernel time vs prediction: the median error of this many steady rounds */
#define MIN_ROUNDS 5  /* ... at least this many steady rounds, or the metric is skipped */
#define MAX_ROUNDS 15 /* ... of at most this many tries */
#define NOISE 0.25    /* a steady round: each level's latency within 25 % of the run's lowest */
#define LEVEL_MS 10.0 /* each level's latency, timed before and after the kernel in a round */
#define WALK_WARMUP ((size_t)1 << 19) /* steps before the timed ones (simulated, not counted) */
#define WALK_STEPS ((size_t)1 << 21)  /* timed / counted steps */
#define WALK_SEED 2024 /* round k walks from seed WALK_SEED + k */
#define OBSERVABLE 3.0 /* memory must be this much slower than L1 for the run to mean anything */
#define PAST_L2 3.0    /* your chase just past L2 must be this much slower than in L1 (score_knees) */
#define GATE_TIMES 5   /* ... the lowest of this many timings of each of the two points (time_gate) */
#define STUDENT_MS 1.0 /* how long your el_chase_ns times its own chase (its number is not used) */
#define BATCH 4096     /* loads between two reads of this program's clock */
#define MAX_BATCHES 65536
static const el_walk_mix_t MIX = { 12, 3 }; /* 75 % hot, 18.75 % warm, 6.25 % cold */
static const char *const METRICS[] = { "knees_found", "prediction_error", NULL };

typedef struct {
    mm_cache_t cache[MM_HW_MAX_CACHES];
    int ncaches;
    size_t sizes[MAX_POINTS], top;
    double ns[MAX_POINTS];
    size_t npoints;
    char *chain[MAX_POINTS]; /* your chase's chains kept for the prediction and the gate of
                                knees_found (keep[i]), linked here (link_chain); the top's always */
    unsigned char keep[MAX_POINTS];
    double gate_ns[2]; /* the gate's two points (gate_points), each the lowest of GATE_TIMES */
    mm_idle_t idle; /* your process, while this program timed anything */
} run_t;

/* Follows `steps` pointers from p: every load's address is the value of the load before. */
static void *chase(void *p, size_t steps)
{
    void **q = p;
    for (size_t i = 0; i < steps; i++)
        q = (void **)*q;
    return q;
}

/* Times this program's chase over a linked chain (link_chain) of n nodes: a warm-up (at most
 * 2^16 steps), then batches for `ms`; the median over batches of the time per load (ns).
 * Returns 0 or -ENOMEM. */
static int time_chain(char *buf, size_t n, double ms, double *ns)
{
    double *per_load = malloc(MAX_BATCHES * sizeof *per_load);
    if (!per_load)
        return -ENOMEM;
    void *volatile at = chase(buf, n < 65536 ? n : 65536);
    uint64_t stop = mm_now_ns() + (uint64_t)(ms * 1e6);
    size_t rounds = 0;
    do { /* one round: BATCH dependent loads, between two reads of the clock */
        uint64_t before = mm_now_ns();
        at = chase(at, BATCH);
        per_load[rounds++] = (double)(mm_now_ns() - before) / BATCH;
    } while (rounds < MAX_BATCHES && mm_now_ns() < stop);
    *ns = mm_median(per_load, rounds);
    free(per_load);
    return 0;
}

/* Steps from node 0 until the chain comes back to it (at most n + 1). */
static size_t lap_length(char *buf, size_t n)
{
    void **q = (void **)buf;
    size_t steps = 0;
    do {
        q = (void **)*q;
        steps++;
    } while ((char *)q != buf && steps <= n);
    return steps;
}

/* Links your chain next[0..n) (shared memory, each entry read once: what is linked is this
 * program's copy) in pages of this program's own, node i (LINE bytes) to node next[i], and
 * checks that it is one cycle through all n nodes: a permutation whose lap from node 0 comes
 * back after exactly n steps. Returns the buffer (el_pages_free it), or NULL with why[]. */
static char *link_chain(const uint64_t *next, size_t n, char *why, size_t len)
{
    char *buf = el_pages_alloc(n * LINE);
    unsigned char *seen = calloc(n / 8 + 1, 1);
    if (!buf || !seen) {
        snprintf(why, len, "out of memory for the chase over %zu KiB", n * LINE >> 10);
        goto err;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t to = next[i];
        if (to >= n || (seen[to / 8] >> (to % 8)) & 1) {
            snprintf(why, len, "in the chain your chase linked over %zu nodes, node %zu points "
                     "%s", n, i, to >= n ? "outside the buffer or into a node's middle" :
                     "to a node that another one points to already");
            goto err;
        }
        seen[to / 8] |= (unsigned char)(1u << (to % 8));
        *(void **)(buf + i * LINE) = buf + to * LINE;
    }
    size_t lap = lap_length(buf, n);
    if (lap == n) {
        free(seen);
        return buf;
    }
    snprintf(why, len, "the chain your chase linked over %zu nodes comes back to node 0 after "
             "%zu of them: not one cycle (Sattolo)", n, lap);
err:
    free(seen);
    el_pages_free(buf);
    return NULL;
}

/* Runs your el_chase_ns over `bytes` (the chase_chain workload) and links the chain it made
 * here (link_chain). Returns the buffer, or NULL with why[] filled. */
static char *student_chain(size_t bytes, uint64_t *shared, char *why, size_t len)
{
    el_chain_in_t in = { bytes, LINE, STUDENT_MS, (uint64_t)(uintptr_t)shared };
    el_chain_out_t out = { -1, 0, 0 };
    if (mm_call_work("chase_chain", &in, sizeof in, &out, sizeof out) != 0 || out.rc != 0) {
        snprintf(why, len, "el_chase_ns(%zu KiB) failed: %s", bytes >> 10,
                 strerror(out.rc < 0 ? -out.rc : EIO));
        return NULL;
    }
    if (!out.found) {
        snprintf(why, len, "el_chase_ns(%zu KiB) freed no buffer from el_pages_alloc whose "
                 "first node points into it (chase.h: link the nodes there, free it with "
                 "el_pages_free)", bytes >> 10);
        return NULL;
    }
    return link_chain(shared, bytes / LINE, why, len);
}

/* One point of the staircase: your chase's chain over sizes[i], timed here. Keeps the chain
 * linked in r->chain[i] where r->keep[i] (the prediction's points). Returns 0, or -1 with why[]
 * filled. */
static int staircase_point(run_t *r, size_t i, uint64_t *shared, char *why, size_t len)
{
    char *buf = student_chain(r->sizes[i], shared, why, len);
    if (!buf)
        return -1;
    mm_idle_start(&r->idle);
    int rc = time_chain(buf, r->sizes[i] / LINE, MS_PER_POINT, &r->ns[i]);
    mm_idle_stop(&r->idle);
    if (rc != 0)
        snprintf(why, len, "out of memory for the chase over %zu KiB", r->sizes[i] >> 10);
    if (rc == 0 && r->keep[i])
        r->chain[i] = buf;
    else
        el_pages_free(buf);
    return rc;
}

/* 16 KiB, 24 KiB, 32 KiB, 48 KiB ... up to the first power of two >= `top`. */
static size_t staircase_sizes(size_t top, size_t *sizes)
{
    size_t n = 0;
    for (size_t s = (size_t)16 << 10; n + 2 <= MAX_POINTS; s *= 2) {
        sizes[n++] = s;
        if (s >= top)
            break;
        sizes[n++] = s + s / 2;
    }
    return n;
}

static size_t pow2_floor(size_t x)
{
    size_t p = 1;
    while (p <= x / 2)
        p *= 2;
    return p;
}

/* hwloc's cache as a simulator geometry: unknown ways count as 16, sets rounded down to 2^k. */
static el_geom_t geom_of(const mm_cache_t *c)
{
    size_t line = c->line ? c->line : LINE;
    size_t ways = c->ways >= 1 && c->ways <= EL_MAX_WAYS ? (size_t)c->ways : 16;
    size_t sets = c->size / (ways * line);
    return (el_geom_t){ pow2_floor(sets ? sets : 1), ways, line };
}

/* The point of the staircase that stands for cache `level`: L1's is the largest size that fills
 * at most half of it; a lower level's is the first size at least twice the level above it (the
 * working set has just left that level behind: the least blurred by TLB misses, and right even
 * when the level's real share is smaller than hwloc says). */
static size_t level_point(const run_t *r, int level)
{
    size_t i = 0;
    if (level == 0) {
        while (i + 1 < r->npoints && r->sizes[i + 1] <= r->cache[0].size / 2)
            i++;
    } else {
        while (i + 1 < r->npoints && r->sizes[i] < 2 * r->cache[level - 1].size)
            i++;
    }
    return i;
}

static double level_latency(const run_t *r, int level)
{
    return r->ns[level_point(r, level)];
}

/* The two staircase points past_l2_rise compares: L1's, then the one that stands for L3 (or for
 * the level below the last one hwloc reports, where it reports fewer than three). */
static void gate_points(const run_t *r, size_t point[2])
{
    point[0] = level_point(r, 0);
    point[1] = level_point(r, r->ncaches > 2 ? 2 : r->ncaches);
}

/* Times the gate's two points again (their chains kept by the staircase), GATE_TIMES times each
 * in turn, and keeps each one's lowest in r->gate_ns. A neighbour's burst only adds latency: one
 * disturbed timing of the far point cannot lift a chain the prefetchers serve over PAST_L2, nor
 * one of L1's pull a random chain under it. 0 or -ENOMEM. */
static int time_gate(run_t *r)
{
    size_t point[2];
    gate_points(r, point);
    r->gate_ns[0] = r->gate_ns[1] = INFINITY;
    int rc = 0;
    for (int t = 0; t < GATE_TIMES && rc == 0; t++) {
        for (size_t i = 0; i < 2 && rc == 0; i++) {
            double ns = INFINITY;
            rc = time_chain(r->chain[point[i]], r->sizes[point[i]] / LINE, LEVEL_MS, &ns);
            r->gate_ns[i] = fmin(r->gate_ns[i], ns);
        }
    }
    return rc;
}

static void json_sizes(mm_json_t *j, const char *key, const size_t *v, size_t n)
{
    mm_json_array(j, key);
    for (size_t i = 0; i < n; i++)
        mm_json_int(j, NULL, (long long)v[i]);
    mm_json_close(j, ']');
}

/* Does level i (L3 or beyond) show a plateau of its own in this run? Not when the staircase just
 * past the level above is already half as slow as memory: the share of a shared L3 that one core
 * gets, on a busy host or in a VM, can be close to nothing. */
static int level_visible(const run_t *r, int i)
{
    return i < 2 || level_latency(r, i) < r->ns[r->npoints - 1] / 2;
}

/* Matches hwloc's levels to your boundaries, in order: L1 and L2 within a factor of 2 of their
 * size; L3 and beyond anywhere above the level before, up to 2x their size (hwloc's L3 size is
 * the whole cache, not the share one core gets). A knee in L3's window counts even when L2 has
 * none: on the VM of the handout the reference's climb out of L2 sometimes comes as steps of
 * 1.4x, 1.2x, 1.4x, none of them a boundary, while its L3 knee is plain. (What keeps a chase
 * the prefetchers serve from scoring a far-out TLB knee there is past_l2_rise.) Returns the
 * matched levels; *scored: the levels that count (those with a plateau of their own). */
static size_t match_knees(const run_t *r, const size_t *knee, size_t nk, size_t *scored,
                          char *detail, size_t len)
{
    size_t matched = 0, k = 0;
    *scored = 0;
    detail[0] = '\0';
    for (int i = 0; i < r->ncaches; i++) {
        size_t c = r->cache[i].size, used = strlen(detail);
        size_t lo = i < 2 ? c / 2 : r->cache[i - 1].size + 1, hi = 2 * c;
        while (k < nk && knee[k] < lo)
            k++;
        int ok = k < nk && knee[k] <= hi, seen = level_visible(r, i);
        char what[64];
        if (ok)
            snprintf(what, sizeof what, "knee at %zu KiB", knee[k++] >> 10);
        else
            snprintf(what, sizeof what, "%s",
                     seen ? "no knee" : "no plateau in this run, not scored");
        snprintf(detail + used, len - used, "%sL%u %zu KiB: %s", i ? "; " : "", r->cache[i].level,
                 c >> 10, what);
        matched += ok;
        *scored += ok || seen;
    }
    return matched;
}

/* The gate of knees_found: your chase at the point that stands for L3 (the first size >= 2 x L2;
 * 2 x L1 where hwloc reports no L2) against its L1 point. A random single cycle misses L2 on most
 * loads there and pays at least L3's latency (12x L1's on the VM of the handout); a chain the
 * prefetchers can follow still pays about L1's (1.1x there). The top of the staircase is no such
 * test: where hwloc reports a huge L3 (a VM sees the host's), the top lies far beyond the TLB's
 * reach, and page walks make even a sequential chain climb 3x there. Returns the ratio of the
 * two points' lowest timings (time_gate); at[]: their sizes, L1's first. */
static double past_l2_rise(const run_t *r, size_t at[2])
{
    size_t point[2];
    gate_points(r, point);
    at[0] = r->sizes[point[0]];
    at[1] = r->sizes[point[1]];
    return r->gate_ns[1] / r->gate_ns[0];
}

static void score_knees(mm_json_t *j, const run_t *r)
{
    size_t knee[MAX_KNEES], at[2];
    int nk = el_find_knees(r->sizes, r->ns, r->npoints, knee, MAX_KNEES);
    double rise = past_l2_rise(r, at);
    if (nk < 0) {
        mm_bench_failf(j, "knees_found", "el_find_knees failed: %s", strerror(-nk));
    } else if (!(rise >= PAST_L2)) {
        unsigned below = r->cache[r->ncaches > 2 ? 1 : r->ncaches - 1].level;
        mm_bench_metricf(j, "knees_found", 0.0, "", "your chase at %zu KiB (twice L%u) is only "
                         "%.1fx its latency at %zu KiB (in L1; the lowest of %d timings of each), "
                         "where a random chain pays %.0fx or more: the prefetchers are serving "
                         "your chase. Is it a random single cycle, each load's address the value "
                         "of the load before?", at[1] >> 10, below, rise, at[0] >> 10, GATE_TIMES,
                         PAST_L2);
    } else {
        char detail[512]; /* one clause per cache level */
        size_t scored, matched = match_knees(r, knee, (size_t)nk, &scored, detail, sizeof detail);
        mm_bench_metric(j, "knees_found", (double)matched / (double)scored, "", detail);
    }
}

/* The machine's own contrast, measured with the given kernel (not your code): a walk that stays
 * in the hot tier against one that jumps around the cold tier. */
static double observable(run_t *r, const el_walk_t *w)
{
    double hot = 0, cold = 0;
    mm_idle_start(&r->idle);
    int rc = el_walk_time(w, (el_walk_mix_t){ 16, 0 }, 1, 1 << 16, 1 << 20, &hot);
    if (rc == 0)
        rc = el_walk_time(w, (el_walk_mix_t){ 0, 0 }, 1, 1 << 12, 1 << 16, &cold);
    mm_idle_stop(&r->idle);
    return rc != 0 || hot <= 0 ? 0 : cold / hot;
}

typedef struct {
    el_geom_t geom[EL_MAX_LEVELS];
    size_t point[EL_MAX_LEVELS + 1]; /* the staircase point each level's latency is timed at */
    double lat[EL_MAX_LEVELS + 1], hit[EL_MAX_LEVELS]; /* the last steady round's */
    double pred[ROUNDS], meas[ROUNDS], err[ROUNDS];
    size_t nlevels;
    int steady, tries;           /* steady rounds (the first `steady` of pred, meas, err), tries */
    double best[EL_MAX_LEVELS + 1];         /* each level's lowest latency in this run */
    double hi[ROUNDS][EL_MAX_LEVELS + 1];   /* each steady round's highest, per level */
    double worst, worst_best, worst_hi; /* the input furthest above its best: level, best, it */
} predict_t;

/* What el_amat gives for the hit rates your el_predict_ns reported (amat.h's model, bottom up);
 * NAN if one of them is not a rate. */
static double amat_of(const predict_t *p)
{
    double below = p->lat[p->nlevels];
    for (size_t i = p->nlevels; i-- > 0;) {
        if (!(p->hit[i] >= 0 && p->hit[i] <= 1))
            return NAN;
        below = p->hit[i] * p->lat[i] + (1 - p->hit[i]) * below;
    }
    return below;
}

/* Every level's latency (this program's chase over your chain at that level's point), into
 * lat[0..nlevels]. 0 or -ENOMEM. */
static int time_levels(const run_t *r, const predict_t *p, double *lat)
{
    int rc = 0;
    for (size_t i = 0; i <= p->nlevels && rc == 0; i++)
        rc = time_chain(r->chain[p->point[i]], r->sizes[p->point[i]] / LINE, LEVEL_MS, &lat[i]);
    return rc;
}

/* Whether every level's highest latency of a round, hi[], is within NOISE of the lowest this
 * run measured for it (p->best): 1, or 0 with the level furthest above kept in p->worst* when
 * it is further than any seen so far. A burst between the figures of a round shows as their
 * spread; a neighbour busy for the whole round shows against the run's quieter moments. */
static int steady(predict_t *p, const double *hi)
{
    int ok = 1;
    for (size_t i = 0; i <= p->nlevels; i++) {
        if (hi[i] <= (1 + NOISE) * p->best[i])
            continue;
        ok = 0;
        if (!(p->worst_hi / p->worst_best >= hi[i] / p->best[i])) { /* NaN before the first */
            p->worst = (double)i;
            p->worst_best = p->best[i];
            p->worst_hi = hi[i];
        }
    }
    return ok;
}

/* Keeps, in order, only the steady rounds still steady against p->best (it only falls). */
static void refilter(predict_t *p)
{
    int kept = 0;
    for (int k = 0; k < p->steady; k++) {
        if (!steady(p, p->hi[k]))
            continue;
        p->pred[kept] = p->pred[k];
        p->meas[kept] = p->meas[k];
        p->err[kept] = p->err[k];
        memcpy(p->hi[kept++], p->hi[k], sizeof p->hi[k]);
    }
    p->steady = kept;
}

/* One try, one walk of its own (seed WALK_SEED + k): every level's latency, the kernel timed,
 * every level's latency again; then, if the two agree (steady), the same walk's trace and your
 * prediction for it from their means, which must be el_amat of the hit rates it reports
 * (-EBADMSG otherwise), kept as the next steady round. A fresh walk per try, timed before its
 * trace is made: el_walk_trace loads the very records the walk loads, and where this core gets
 * tens of MiB of L3 (a big host's), a walk repeated or traced just before would find its cold
 * tier's records still cached and run faster than the simulation, which starts cold, can know. */
static int predict_round(run_t *r, const el_walk_t *w, uint64_t *trace, predict_t *p, int k)
{
    uint64_t seed = WALK_SEED + (uint64_t)k;
    double before[EL_MAX_LEVELS + 1], after[EL_MAX_LEVELS + 1], meas = 0;
    mm_idle_start(&r->idle);
    int rc = time_levels(r, p, before);
    if (rc == 0)
        rc = el_walk_time(w, MIX, seed, WALK_WARMUP, WALK_STEPS, &meas);
    if (rc == 0)
        rc = time_levels(r, p, after);
    mm_idle_stop(&r->idle);
    double hi[EL_MAX_LEVELS + 1];
    for (size_t i = 0; i <= p->nlevels && rc == 0; i++) {
        p->best[i] = fmin(p->best[i], fmin(before[i], after[i]));
        hi[i] = fmax(before[i], after[i]);
    }
    if (rc != 0 || !steady(p, hi))
        return rc;
    int n = p->steady;
    memcpy(p->hi[n], hi, sizeof hi);
    for (size_t i = 0; i <= p->nlevels; i++)
        p->lat[i] = (before[i] + after[i]) / 2;
    p->meas[n] = meas;
    rc = el_walk_trace(w, MIX, seed, WALK_WARMUP + WALK_STEPS, trace);
    if (rc == 0)
        rc = el_predict_ns(trace, WALK_WARMUP + WALK_STEPS, EL_WALK_LOAD, WALK_WARMUP, p->geom,
                           p->lat, p->nlevels, p->hit, &p->pred[n]);
    if (rc == 0 && !(isfinite(p->pred[n]) && p->pred[n] > 0))
        rc = -ERANGE;
    if (rc == 0 && !(fabs(amat_of(p) - p->pred[n]) <= 1e-6 * p->pred[n]))
        rc = -EBADMSG;
    if (rc == 0) {
        p->err[n] = fabs(p->pred[n] - meas) / meas;
        p->steady++;
    }
    return rc;
}

/* Which staircase points the prediction times its levels at (level_point; memory: the top),
 * marked in r->keep so that the staircase keeps their chains. */
static void prediction_points(run_t *r, predict_t *p)
{
    p->nlevels = (size_t)r->ncaches < EL_MAX_LEVELS ? (size_t)r->ncaches : EL_MAX_LEVELS;
    for (size_t i = 0; i < p->nlevels; i++) {
        p->geom[i] = geom_of(&r->cache[i]);
        p->point[i] = level_point(r, (int)i);
    }
    p->point[p->nlevels] = r->npoints - 1;
    for (size_t i = 0; i <= p->nlevels; i++)
        r->keep[p->point[i]] = 1;
}

/* Tries until ROUNDS are steady (or MAX_ROUNDS tried); 0 or the first error. */
static int measure_prediction(run_t *r, const el_walk_t *w, predict_t *p)
{
    uint64_t *trace = malloc((WALK_WARMUP + WALK_STEPS) * sizeof *trace);
    int rc = trace ? 0 : -ENOMEM;
    for (size_t i = 0; i <= p->nlevels; i++)
        p->best[i] = r->ns[p->point[i]];
    for (p->tries = 0; p->tries < MAX_ROUNDS && p->steady < ROUNDS && rc == 0; p->tries++) {
        rc = predict_round(r, w, trace, p, p->tries);
        refilter(p);
    }
    free(trace);
    return rc;
}

/* "L1" ... or "memory": level i of the prediction's inputs. */
static const char *level_name(const predict_t *p, size_t i)
{
    static const char *const names[] = { "L1", "L2", "L3", "L4" };
    return i >= p->nlevels || i >= sizeof names / sizeof *names ? "memory" : names[i];
}

static void score_prediction(mm_json_t *j, predict_t *p, int rc)
{
    if (rc == -EBADMSG) {
        mm_bench_failf(j, "prediction_error", "your el_predict_ns returned %g ns, but el_amat of "
                       "the hit rates it reported gives %g ns", p->pred[p->steady], amat_of(p));
        return;
    }
    if (rc != 0) {
        mm_bench_failf(j, "prediction_error", "your chase or prediction failed: %s",
                       strerror(-rc));
        return;
    }
    if (p->steady < MIN_ROUNDS) {
        mm_bench_skipf(j, "prediction_error", "the prediction's inputs were not steady in this "
                       "run: in %d of %d rounds every level's latency, before and after the "
                       "kernel, stayed within %.0f %% of the lowest this run measured for it "
                       "(needs %d); the worst, %s, reached %.1f ns against %.1f", p->steady,
                       p->tries, NOISE * 100, MIN_ROUNDS, level_name(p, (size_t)p->worst),
                       p->worst_hi, p->worst_best);
        return;
    }
    size_t n = (size_t)p->steady;
    double e[ROUNDS], pr[ROUNDS], me[ROUNDS];
    memcpy(e, p->err, n * sizeof *e);
    memcpy(pr, p->pred, n * sizeof *pr);
    memcpy(me, p->meas, n * sizeof *me);
    mm_bench_metricf(j, "prediction_error", mm_median(e, n), "", "predicted %.2f ns per step, "
                     "measured %.2f ns (medians of %zu rounds of %d tried, each with every "
                     "level's latency within %.0f %% of the run's lowest before and after the "
                     "kernel; hit rates L1 %.3f, L2 %.3f)", mm_median(pr, n), mm_median(me, n), n, p->tries,
                     NOISE * 100, p->hit[0], p->nlevels > 1 ? p->hit[1] : 0.0);
}

/* Your staircase: for each size, your chase's chain timed here (staircase_point), keeping the
 * chains the prediction times its levels with (prediction_points) and the gate's, which are
 * timed again (time_gate). */
static int measure_staircase(mm_json_t *j, run_t *r, predict_t *p)
{
    size_t llc = r->cache[r->ncaches - 1].size, gate[2];
    r->top = llc > MAX_TOP / 4 ? MAX_TOP : 4 * llc < MIN_TOP ? MIN_TOP : 4 * llc;
    r->npoints = staircase_sizes(r->top, r->sizes);
    r->top = r->sizes[r->npoints - 1];
    prediction_points(r, p);
    gate_points(r, gate);
    r->keep[gate[0]] = r->keep[gate[1]] = 1;
    uint64_t *shared = mm_shared_alloc(r->top / LINE * sizeof *shared);
    char why[256] = "";
    int rc = 0;
    for (size_t i = 0; i < r->npoints && rc == 0; i++)
        rc = staircase_point(r, i, shared, why, sizeof why);
    mm_shared_free(shared);
    if (rc == 0) {
        mm_idle_start(&r->idle);
        rc = time_gate(r);
        mm_idle_stop(&r->idle);
        if (rc != 0)
            snprintf(why, sizeof why, "out of memory to time the chase again");
    }
    if (rc != 0)
        mm_bench_fail_all(j, METRICS, "your staircase: %s", why);
    return rc;
}

/* Measures everything, then scores it, unless your process ran while this one measured. */
static void bench_latency(mm_json_t *j, run_t *r, predict_t *p, double *contrast)
{
    if (measure_staircase(j, r, p) != 0)
        return;
    size_t hot = pow2_floor(r->cache[0].size / 2), warm = pow2_floor(2 * r->cache[0].size);
    el_walk_t *w = NULL;
    if (el_walk_create(&w, hot, warm, r->top) != 0) {
        mm_bench_skip_all(j, METRICS, "could not allocate the kernel's %zu MiB", r->top >> 20);
        return;
    }
    *contrast = observable(r, w);
    int rc = *contrast < OBSERVABLE ? 0 : measure_prediction(r, w, p);
    char why[300];
    if (!mm_idle_ok(&r->idle, why, sizeof why)) {
        mm_bench_skip_all(j, METRICS, "%s (this program's own chase and kernel)", why);
    } else if (*contrast < OBSERVABLE) {
        mm_bench_skip_all(j, METRICS, "this run cannot show a staircase: the kernel's random "
                          "jumps over %zu MiB took only %.1fx as long as jumps within %zu KiB "
                          "(needs %.0fx)", r->top >> 20, *contrast, hot >> 10, OBSERVABLE);
    } else {
        score_knees(j, r);
        score_prediction(j, p, rc);
    }
    el_walk_destroy(w);
}

/* One plot series: sizes (KiB) and latencies of the first n points of the staircase. */
static void json_series(mm_json_t *j, const char *name, const run_t *r, size_t n)
{
    size_t kib[MAX_POINTS];
    for (size_t i = 0; i < n; i++)
        kib[i] = r->sizes[i] >> 10;
    mm_json_object(j, name);
    json_sizes(j, "kib", kib, n);
    mm_json_nums(j, "ns", r->ns, n);
    mm_json_close(j, '}');
}

static void write_info(mm_json_t *j, const run_t *r, const predict_t *p, double contrast)
{
    if (r->npoints > 0) {
        size_t small = 0; /* the caches' part: up to 2 x L2 (or L1), on a linear axis */
        size_t edge = 2 * r->cache[r->ncaches > 1 ? 1 : 0].size;
        while (small < r->npoints && r->sizes[small] <= edge)
            small++;
        mm_json_object(j, "series");
        json_series(j, "staircase", r, r->npoints);
        json_series(j, "staircase_caches", r, small);
        mm_json_close(j, '}');
    }
    mm_json_object(j, "info");
    mm_json_int(j, "cores", mm_hw_cores());
    size_t sz[MM_HW_MAX_CACHES];
    for (int i = 0; i < r->ncaches; i++)
        sz[i] = r->cache[i].size;
    json_sizes(j, "hwloc_cache_bytes", sz, r->ncaches > 0 ? (size_t)r->ncaches : 0);
    mm_json_num(j, "memory_vs_l1_contrast", contrast);
    mm_json_nums(j, "gate_ns", r->gate_ns, r->npoints > 0 ? 2 : 0);
    mm_json_nums(j, "latency_ns_used", p->lat, p->nlevels ? p->nlevels + 1 : 0);
    mm_json_nums(j, "hit_rates", p->hit, p->nlevels);
    mm_json_nums(j, "predicted_ns", p->pred, (size_t)p->steady);
    mm_json_nums(j, "measured_ns", p->meas, (size_t)p->steady);
    mm_json_int(j, "prediction_rounds_tried", p->tries);
    mm_json_close(j, '}');
}

int main(void)
{
    mm_json_t j;
    mm_bench_open(&j, "02");
    static run_t r;
    static predict_t p;
    double contrast = 0;
    r.ncaches = mm_hw_caches(r.cache, MM_HW_MAX_CACHES);
    int setup = mm_call_setup();
    if (setup != 0) {
        mm_bench_fail_all(&j, METRICS, "cannot start the program that runs your code: %s",
                          strerror(-setup));
        r.ncaches = 0;
    } else if (r.ncaches <= 0 || r.cache[0].size < 4096) {
        mm_bench_skip_all(&j, METRICS, "hwloc reports no caches on this machine: nothing to "
                          "compare with");
        r.ncaches = 0;
    } else {
        bench_latency(&j, &r, &p, &contrast);
    }
    mm_bench_end_metrics(&j);
    write_info(&j, &r, &p, contrast);
    mm_json_end(&j);
    for (size_t i = 0; i < r.npoints; i++)
        el_pages_free(r.chain[i]);
    return 0;
}
