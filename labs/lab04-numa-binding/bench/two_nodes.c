/* Lab 04 benchmark, the metrics that need two NUMA nodes: latency, read bandwidth and a batch
 * loader, each timed three ways in every round (remote memory or the wrong socket, the
 * benchmark's own binding, your binding) so that a round counts only when this machine showed a
 * remote penalty in it. Each metric is your time against the benchmark's own binding on the same
 * memory (1 = as local as it gets).
 *
 * What keeps the figures about memory and not caches: buffers are at least 4x the last-level
 * caches of the GPU's node and at least 1 GiB; every round walks, reads or writes a part of its
 * buffer that the rounds before did not touch for at least 3x those caches' size (the chase goes
 * on along one cycle through every line; reads and the loader's writes move one window on), so
 * no round finds lines that an earlier round, on either socket, left in a cache. The other node
 * is the farthest one by numa_distance. */
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "bench04.h"
#include "bind.h"
#include "mm_rng.h"
#include "place.h"
#include "plan.h"

#define REPS 7
#define WARMUP 1
#define COUNTED ((REPS + 1) / 2) /* rounds that must show the penalty */
#define MAX_WORKERS 16
#define MIN_BYTES ((size_t)1 << 30)
#define LLC_TIMES 4
#define MAX_BYTES ((size_t)6 << 30) /* two of these fit the address space lab.toml allows */
#define WINDOW ((size_t)256 << 20)  /* what one round reads or writes; buffers are multiples */
#define BLOCK 4096                  /* the chase visits 64 lines of a block, blocks at random */
#define LINES (BLOCK / 64)
#define CHASE_STEPS (1u << 20)
#define TILE 16384 /* floats of one decoded sample tile: 64 KiB, stays in the worker's cache */
#define LATENCY_GATE 1.15
#define BANDWIDTH_GATE 1.10
#define LOADER_GATE 1.10

/* The metrics of this file: skipped or failed together when the machine or a set-up fails. */
static const char *const MACHINE[] = { "remote_latency_ratio", "remote_bandwidth_ratio",
                                       "loader_speedup", NULL };

typedef struct {
    hwloc_topology_t hw, yours; /* the benchmark's own view; yours from nb_topo_load_system */
    int a, b;                   /* the GPU's node, the farthest other node */
    hwloc_bitmap_t cpus_a, cpus_b;
    unsigned workers;   /* readers on node a: min(its cores, MAX_WORKERS) */
    unsigned workers_b; /* loader workers on either side: min(workers, cores of b) */
    size_t bytes, llc;  /* each buffer; the last-level caches of node a */
    mm_json_t *j;
} pair_t;

static struct { /* what was measured, for the report's "info" */
    int a, b, distance;
    size_t bytes, llc;
    double remote_ns, local_ns, yours_ns, latency_contrast;
    double remote_gbs, local_gbs, yours_gbs;
    double wrong_ms, bound_ms, yours_ms;
} seen = { .a = -1, .b = -1 };

/* ---- the two nodes and the buffer size ---- */

static void allowed_cpus(hwloc_topology_t t, int node, hwloc_bitmap_t out)
{
    hwloc_obj_t n = hwloc_get_numanode_obj_by_os_index(t, (unsigned)node);
    hwloc_bitmap_and(out, n->cpuset, hwloc_topology_get_allowed_cpuset(t));
}

static unsigned cores_in(hwloc_topology_t t, hwloc_const_cpuset_t set)
{
    int n = hwloc_get_nbobjs_inside_cpuset_by_type(t, set, HWLOC_OBJ_CORE);
    return n > 0 ? (unsigned)n : 0;
}

static unsigned smaller(unsigned x, unsigned y)
{
    return x < y ? x : y;
}

/* Whether node n is a better "other node" for a than the current pick: one with CPUs beats one
 * without (the loader needs a wrong socket), then the larger numa_distance. */
static int better_other(pair_t *c, int n, hwloc_bitmap_t scratch)
{
    allowed_cpus(c->hw, n, scratch);
    int cpus = !hwloc_bitmap_iszero(scratch);
    if (c->b < 0)
        return 1;
    allowed_cpus(c->hw, c->b, scratch);
    int cur = !hwloc_bitmap_iszero(scratch);
    return cpus != cur ? cpus : numa_distance(c->a, n) > numa_distance(c->a, c->b);
}

/* Node a: the first GPU's node if this machine has one, else the first node with CPUs; node b:
 * the farthest other node. Returns NULL, or why there is no such pair. */
static const char *pick_nodes(pair_t *c)
{
    truth_t tr;
    find_truth(c->hw, &tr);
    c->a = tr.n ? tr.node[0] : -1;
    c->b = -1;
    hwloc_obj_t n = NULL;
    while (c->a < 0 && (n = hwloc_get_next_obj_by_type(c->hw, HWLOC_OBJ_NUMANODE, n))) {
        allowed_cpus(c->hw, (int)n->os_index, c->cpus_a);
        c->a = hwloc_bitmap_iszero(c->cpus_a) ? -1 : (int)n->os_index;
    }
    if (c->a < 0)
        return "no NUMA node has a CPU this process may use";
    for (n = NULL; (n = hwloc_get_next_obj_by_type(c->hw, HWLOC_OBJ_NUMANODE, n));)
        if ((int)n->os_index != c->a && better_other(c, (int)n->os_index, c->cpus_b))
            c->b = (int)n->os_index;
    if (c->b < 0)
        return "this machine has 1 NUMA node: local and remote memory cannot be compared";
    allowed_cpus(c->hw, c->a, c->cpus_a);
    allowed_cpus(c->hw, c->b, c->cpus_b);
    c->workers = smaller(cores_in(c->hw, c->cpus_a), MAX_WORKERS);
    c->workers_b = smaller(c->workers, cores_in(c->hw, c->cpus_b));
    seen.a = c->a, seen.b = c->b, seen.distance = numa_distance(c->a, c->b);
    return c->workers ? NULL : "the GPU's NUMA node has no CPU this process may use";
}

/* Bytes of the last-level caches (L3, else L2) that serve the CPUs of `set`. */
static size_t llc_bytes(hwloc_topology_t t, hwloc_const_cpuset_t set)
{
    size_t sum = 0;
    hwloc_obj_type_t type = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_L3CACHE) > 0
                                ? HWLOC_OBJ_L3CACHE : HWLOC_OBJ_L2CACHE;
    for (hwloc_obj_t o = NULL; (o = hwloc_get_next_obj_by_type(t, type, o));)
        if (hwloc_bitmap_intersects(o->cpuset, set))
            sum += (size_t)o->attr->cache.size;
    return sum;
}

static size_t free_on(int node)
{
    long long avail = 0;
    return numa_node_size64(node, &avail) < 0 || avail < 0 ? 0 : (size_t)avail;
}

/* c->bytes: max(4x the caches of node a, 1 GiB) in whole windows. Returns 0, or -1 when it
 * cannot be (the metrics are then skipped, with the reason). */
static int size_buffers(pair_t *c)
{
    c->llc = seen.llc = llc_bytes(c->hw, c->cpus_a);
    size_t want = LLC_TIMES * c->llc > MIN_BYTES ? LLC_TIMES * c->llc : MIN_BYTES;
    c->bytes = seen.bytes = (want + WINDOW - 1) / WINDOW * WINDOW;
    size_t margin = (size_t)256 << 20;
    if (c->bytes > MAX_BYTES)
        mm_bench_skip_all(c->j, MACHINE, "node %d's caches (%zu MiB) need buffers of %zu MiB to "
                          "outsize them, more than the benchmark may map", c->a, c->llc >> 20,
                          c->bytes >> 20);
    else if (free_on(c->a) < c->bytes + margin || free_on(c->b) < c->bytes + margin)
        mm_bench_skip_all(c->j, MACHINE, "nodes %d and %d need %zu MiB free each (buffers 4x "
                          "node %d's caches, at least 1 GiB); they have %zu and %zu MiB", c->a,
                          c->b, (c->bytes + margin) >> 20, c->a, free_on(c->a) >> 20,
                          free_on(c->b) >> 20);
    else
        return 0;
    return -1;
}

/* Fraction of the pages of [p, p + bytes) that sit on `node`, asked of the kernel here. */
static double fraction_on(const void *p, size_t bytes, int node)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), n = bytes / page, hits = 0;
    void **pages = malloc(n * sizeof *pages);
    int *st = malloc(n * sizeof *st);
    for (size_t i = 0; pages && st && i < n; i++)
        pages[i] = (char *)p + i * page;
    if (pages && st && move_pages(0, (unsigned long)n, pages, NULL, st, 0) == 0)
        for (size_t i = 0; i < n; i++)
            hits += st[i] == node;
    free(pages);
    free(st);
    return n ? (double)hits / (double)n : 0.0;
}

/* Your nb_alloc_on_node, then the kernel's word on where the pages went; NULL (and every metric
 * failed, with the reason) if they are not there. */
static void *alloc_checked(pair_t *c, int node)
{
    void *p = NULL;
    int rc = nb_alloc_on_node(c->yours, node, c->bytes, c->workers, &p);
    double on = rc == 0 ? fraction_on(p, c->bytes, node) : 0.0;
    if (rc == 0 && on >= 0.9)
        return p;
    if (rc != 0)
        mm_bench_fail_all(c->j, MACHINE, "nb_alloc_on_node(node %d, %zu MiB) failed: %s", node,
                          c->bytes >> 20, strerror(-rc));
    else
        mm_bench_fail_all(c->j, MACHINE, "nb_alloc_on_node(node %d): only %.0f%% of the pages "
                          "are on node %d", node, 100 * on, node);
    nb_free(p, c->bytes);
    return NULL;
}

/* ---- binding: the benchmark's own (hwloc, whole node) or yours ---- */

static int bind_here(pair_t *c, hwloc_const_cpuset_t where, int yours)
{
    if (!yours)
        return hwloc_set_cpubind(c->hw, where, HWLOC_CPUBIND_THREAD);
    return where == c->cpus_a ? nb_bind_thread_to_node(c->yours, c->a)
                              : nb_bind_thread(c->yours, where);
}

/* ---- latency: a pointer chase along one cycle through every line of a buffer ---- */

typedef struct {
    const uint64_t *buf;
    uint64_t at; /* where the next round goes on from */
} walk_t;

typedef struct {
    pair_t *c;
    walk_t *walk;
    int yours, failed;
    uint64_t sink;
} chase_t;

/* Line k of the cycle: blocks in the order `perm` gives, each visited once per sweep, at a line
 * that moves on by one each sweep from a start of its own. Every line once in LINES sweeps. */
static size_t cycle_line(const uint32_t *perm, size_t blocks, size_t k)
{
    size_t b = perm[k % blocks];
    return b * LINES + (k / blocks + b * 37u) % LINES;
}

static int build_cycle(uint64_t *buf, size_t bytes, uint64_t seed)
{
    size_t blocks = bytes / BLOCK, n = blocks * LINES;
    uint32_t *perm = malloc(blocks * sizeof *perm);
    if (!perm)
        return -ENOMEM;
    mm_rng_t r = mm_rng_new(seed);
    for (size_t i = 0; i < blocks; i++)
        perm[i] = (uint32_t)i;
    for (size_t i = blocks - 1; i > 0; i--) {
        size_t k = (size_t)mm_rng_range(&r, 0, i);
        uint32_t tmp = perm[i];
        perm[i] = perm[k];
        perm[k] = tmp;
    }
    size_t from = cycle_line(perm, blocks, 0);
    for (size_t k = 1; k <= n; k++) {
        size_t to = cycle_line(perm, blocks, k % n);
        buf[from * 8] = (uint64_t)to * 8;
        from = to;
    }
    free(perm);
    return 0;
}

static void chase(void *arg)
{
    chase_t *ch = arg;
    if (bind_here(ch->c, ch->c->cpus_a, ch->yours) != 0)
        ch->failed = 1;
    const uint64_t *buf = ch->walk->buf;
    uint64_t k = ch->walk->at;
    for (unsigned s = 0; s < CHASE_STEPS; s++)
        k = buf[k];
    ch->walk->at = k;
    ch->sink += k;
}

/* A metric from its gated measurement: your time against the benchmark's own binding. */
static void report(pair_t *c, const char *metric, const mm_bench_gated_t *g, double gate,
                   const char *measured)
{
    if (g->counted < COUNTED) {
        mm_bench_skipf(c->j, metric, "this run showed no steady penalty: %s (needs %.2fx in %d "
                       "of %d rounds, had it in %u)", measured, gate, COUNTED, REPS, g->counted);
        return;
    }
    mm_bench_metricf(c->j, metric, g->vs_ideal, "", "%s; your binding %.2f of the benchmark's "
                     "own (medians of the %u of %d rounds that showed the penalty, %zu MiB "
                     "buffers: 4x node %d's %zu MiB of caches or 1 GiB)", measured, g->vs_ideal,
                     g->counted, REPS, c->bytes >> 20, c->a, c->llc >> 20);
}

/* The chase, three ways a round; *g and what it measured in m. Returns 0, or -1 (reported). */
static int measure_latency(pair_t *c, uint64_t *local, uint64_t *remote, mm_bench_gated_t *g,
                           char *m, size_t size)
{
    walk_t wl = { local, 0 }, wr = { remote, 0 };
    chase_t base = { c, &wr, 0, 0, 0 }, ideal = { c, &wl, 0, 0, 0 }, yours = { c, &wl, 1, 0, 0 };
    mm_bench_case_t cb = { "remote", chase, &base }, ci = { "local", chase, &ideal },
                    cy = { "yours", chase, &yours };
    if (build_cycle(local, c->bytes, 4) != 0 || build_cycle(remote, c->bytes, 5) != 0 ||
        mm_bench_gated_ratio(&cb, &ci, &cy, WARMUP, REPS, LATENCY_GATE, g) != 0) {
        mm_bench_fail_all(c->j, MACHINE, "out of memory");
        return -1;
    }
    if (yours.failed || base.failed) {
        mm_bench_fail_all(c->j, MACHINE, "nb_bind_thread_to_node failed");
        return -1;
    }
    double per = 1e9 / CHASE_STEPS;
    seen.latency_contrast = g->contrast;
    if (g->counted > 0) {
        seen.remote_ns = g->t_base * per, seen.yours_ns = g->t_yours * per;
        seen.local_ns = g->t_yours * g->vs_ideal * per;
    }
    int n = snprintf(m, size, "from node %d, a dependent load from node %d memory took %.2fx as "
                     "long as one from its own", c->a, c->b, g->contrast);
    if (g->counted > 0 && n > 0 && (size_t)n < size) /* times: medians of the counted rounds */
        snprintf(m + n, size - (size_t)n, " (%.0f ns, %.0f ns); yours %.0f ns", seen.remote_ns,
                 seen.local_ns, seen.yours_ns);
    return 0;
}

/* ---- bandwidth and the loader: a team of threads, each on its slice of one window ---- */

typedef struct team team_t;
struct team {
    pair_t *c;
    unsigned n;                 /* threads */
    hwloc_const_cpuset_t where; /* where each thread binds itself */
    int yours;                  /* with your nb_bind_thread, else with hwloc here */
    void (*work)(team_t *tm, unsigned w);
    char *buf;
    size_t *next; /* the buffer's window cursor, shared by the teams that use the buffer */
    size_t win;   /* this round's window: [buf + win, buf + win + WINDOW) */
    int failed;   /* a bind failed */
};

typedef struct {
    team_t *tm;
    unsigned w;
} member_t;

static uint64_t read_sink;

static void *member(void *arg)
{
    member_t *m = arg;
    if (bind_here(m->tm->c, m->tm->where, m->tm->yours) != 0)
        __atomic_store_n(&m->tm->failed, 1, __ATOMIC_RELAXED);
    m->tm->work(m->tm, m->w);
    return NULL;
}

static void run_team(void *arg)
{
    team_t *tm = arg;
    pthread_t th[MAX_WORKERS];
    member_t m[MAX_WORKERS];
    tm->win = *tm->next;
    *tm->next = (*tm->next + WINDOW) % tm->c->bytes;
    for (unsigned w = 0; w < tm->n; w++) {
        m[w] = (member_t){ tm, w };
        if (pthread_create(&th[w], NULL, member, &m[w]) != 0)
            abort();
    }
    for (unsigned w = 0; w < tm->n; w++)
        pthread_join(th[w], NULL);
}

/* Worker w's share [lo, hi) of the team's window, counted in elements of `size` bytes. */
static void slice(const team_t *tm, unsigned w, size_t size, size_t *lo, size_t *hi)
{
    size_t n = WINDOW / size;
    *lo = n * w / tm->n;
    *hi = n * (w + 1) / tm->n;
}

static void read_slice(team_t *tm, unsigned w)
{
    size_t lo, hi;
    slice(tm, w, sizeof(uint64_t), &lo, &hi);
    const uint64_t *p = (const uint64_t *)(tm->buf + tm->win);
    uint64_t sum = 0;
    for (size_t i = lo; i < hi; i++)
        sum += p[i];
    __atomic_fetch_add(&read_sink, sum, __ATOMIC_RELAXED);
}

/* Readers, three ways a round; *g and what it measured in m. Returns 0, or -1 (reported). */
static int measure_bandwidth(pair_t *c, char *local, char *remote, mm_bench_gated_t *g, char *m,
                             size_t size)
{
    size_t next_l = 0, next_r = 0;
    team_t base = { c, c->workers, c->cpus_a, 0, read_slice, remote, &next_r, 0, 0 };
    team_t ideal = { c, c->workers, c->cpus_a, 0, read_slice, local, &next_l, 0, 0 };
    team_t yours = { c, c->workers, c->cpus_a, 1, read_slice, local, &next_l, 0, 0 };
    mm_bench_case_t cb = { "remote", run_team, &base }, ci = { "local", run_team, &ideal },
                    cy = { "yours", run_team, &yours };
    if (mm_bench_gated_ratio(&cb, &ci, &cy, WARMUP, REPS, BANDWIDTH_GATE, g) != 0 ||
        yours.failed) {
        mm_bench_fail_all(c->j, MACHINE, "nb_bind_thread failed in a reader");
        return -1;
    }
    double gb = (double)WINDOW / 1e9;
    if (g->counted > 0) {
        seen.remote_gbs = gb / g->t_base, seen.yours_gbs = gb / g->t_yours;
        seen.local_gbs = seen.yours_gbs / g->vs_ideal;
    }
    int n = snprintf(m, size, "%u threads on node %d read node %d memory %.2fx as slowly as "
                     "their own", c->workers, c->a, c->b, g->contrast);
    if (g->counted > 0 && n > 0 && (size_t)n < size)
        snprintf(m + n, size - (size_t)n, " (%.1f GB/s, %.1f GB/s); yours %.1f GB/s",
                 seen.remote_gbs, seen.local_gbs, seen.yours_gbs);
    return 0;
}

/* The value worker w writes at element i of its window. */
static float collated(size_t i, unsigned w)
{
    return (float)((i % TILE * 37u + w) % 251u) * 0.5f + 1.0f;
}

/* A loader worker: a decoded sample tile (in its cache) collated into the batch, which sits on
 * the GPU's node as pinned staging memory does. */
static void collate_slice(team_t *tm, unsigned w)
{
    float tile[TILE];
    for (size_t i = 0; i < TILE; i++)
        tile[i] = (float)((i * 37u + w) % 251u);
    size_t lo, hi;
    slice(tm, w, sizeof(float), &lo, &hi);
    float *dst = (float *)(tm->buf + tm->win);
    for (size_t i = lo; i < hi; i++)
        dst[i] = tile[i % TILE] * 0.5f + 1.0f;
}

static int batch_ok(const team_t *tm)
{
    const float *dst = (const float *)(tm->buf + tm->win);
    for (unsigned w = 0; w < tm->n; w++) {
        size_t lo, hi;
        slice(tm, w, sizeof(float), &lo, &hi);
        for (size_t i = lo; i < hi; i += 4099)
            if (dst[i] != collated(i, w) || dst[hi - 1] != collated(hi - 1, w))
                return 0;
    }
    return 1;
}

/* Your plan for one GPU on node a (this machine's first GPU, or one imagined there). */
static int plan_here(pair_t *c, nb_plan_t *p)
{
    nb_gpu_t g = { "0000:00:00.0", 0x10de, 0x2330, 0x0302, c->a };
    int rc = nb_plan_build(c->yours, &g, 1, 0, p);
    if (rc == 0 && p->n == 1 && p->gpu[0].node == c->a &&
        hwloc_bitmap_isincluded(p->gpu[0].cpuset, c->cpus_a) &&
        hwloc_bitmap_intersects(p->gpu[0].cpuset, c->cpus_a))
        return 0;
    mm_bench_fail(c->j, "loader_speedup", "nb_plan_build gave no cores on the GPU's node");
    return -1;
}

static void bench_loader(pair_t *c, char *stage)
{
    nb_plan_t p = { .n = 0 };
    if (c->workers_b == 0) {
        mm_bench_skip(c->j, "loader_speedup", "the other NUMA node has no CPU this process may "
                      "use: there is no wrong socket to compare with");
        return;
    }
    if (plan_here(c, &p) != 0)
        return;
    size_t next = 0;
    team_t base = { c, c->workers_b, c->cpus_b, 0, collate_slice, stage, &next, 0, 0 };
    team_t ideal = { c, c->workers_b, c->cpus_a, 0, collate_slice, stage, &next, 0, 0 };
    team_t yours = { c, c->workers_b, p.gpu[0].cpuset, 1, collate_slice, stage, &next, 0, 0 };
    mm_bench_case_t cb = { "wrong socket", run_team, &base }, ci = { "node", run_team, &ideal },
                    cy = { "your plan", run_team, &yours };
    mm_bench_gated_t g;
    if (mm_bench_gated_ratio(&cb, &ci, &cy, WARMUP, REPS, LOADER_GATE, &g) != 0 || yours.failed)
        mm_bench_fail(c->j, "loader_speedup", "nb_bind_thread failed in a loader worker");
    else if (!batch_ok(&yours))
        mm_bench_fail(c->j, "loader_speedup", "the collated batch is wrong");
    else {
        seen.wrong_ms = g.t_base * 1e3, seen.yours_ms = g.t_yours * 1e3;
        seen.bound_ms = g.t_yours * g.vs_ideal * 1e3;
        char m[200];
        snprintf(m, sizeof m, "%u workers collating %zu MiB into node %d memory: from node %d "
                 "%.1f ms, from node %d %.1f ms (%.2fx); on your plan's cores %.1f ms",
                 c->workers_b, WINDOW >> 20, c->a, c->b, seen.wrong_ms, c->a, seen.bound_ms,
                 g.contrast, seen.yours_ms);
        report(c, "loader_speedup", &g, LOADER_GATE, m);
    }
    nb_plan_free(&p);
}

/* Latency and bandwidth, then the gate over both: a machine has a remote penalty only if the
 * benchmark's own chase and its own readers both showed one in most rounds (one of them alone
 * can be an emulator's or a busy host's noise). Then the loader. */
static void bench_buffers(pair_t *c, char *local, char *remote)
{
    mm_bench_gated_t lat, bw;
    char ml[200], mb[200];
    if (measure_latency(c, (uint64_t *)local, (uint64_t *)remote, &lat, ml, sizeof ml) != 0)
        return;
    if (measure_bandwidth(c, local, remote, &bw, mb, sizeof mb) != 0)
        return;
    if (lat.counted < COUNTED || bw.counted < COUNTED) {
        mm_bench_skip_all(c->j, MACHINE, "this machine showed no remote-memory penalty: %s (%u "
                          "of %d rounds at %.2fx or more); %s (%u of %d rounds at %.2fx or more); "
                          "both need %d. Virtual NUMA nodes backed by the same memory look like "
                          "this", ml, lat.counted, REPS, LATENCY_GATE, mb, bw.counted, REPS,
                          BANDWIDTH_GATE, COUNTED);
        return;
    }
    report(c, "remote_latency_ratio", &lat, LATENCY_GATE, ml);
    report(c, "remote_bandwidth_ratio", &bw, BANDWIDTH_GATE, mb);
    bench_loader(c, local);
}

static void bench_pair(pair_t *c)
{
    if (size_buffers(c) != 0)
        return;
    char *local = alloc_checked(c, c->a);
    char *remote = local ? alloc_checked(c, c->b) : NULL;
    if (local && remote)
        bench_buffers(c, local, remote);
    hwloc_set_cpubind(c->hw, hwloc_topology_get_allowed_cpuset(c->hw), HWLOC_CPUBIND_THREAD);
    nb_free(local, c->bytes);
    nb_free(remote, c->bytes);
}

/* Why the kernel refuses mbind or move_pages here (a container's seccomp profile), or NULL. */
static const char *numa_calls_refused(void)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    void *pages[1] = { p };
    int st = 0, bad = p == MAP_FAILED;
    if (!bad) {
        p[0] = 1;
        bad = mbind(p, page, MPOL_DEFAULT, NULL, 0, 0) != 0 ||
              move_pages(0, 1, pages, NULL, &st, 0) != 0;
        munmap(p, page);
    }
    return bad ? "this machine refuses mbind or move_pages: in a container, the default seccomp "
                 "profile allows the memory-policy calls only with CAP_SYS_NICE"
               : NULL;
}

static int load_machine(hwloc_topology_t *t)
{
    if (hwloc_topology_init(t) != 0)
        return -1;
    hwloc_topology_set_io_types_filter(*t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    return hwloc_topology_load(*t);
}

void bench_machine(mm_json_t *j)
{
    pair_t c = { .j = j, .cpus_a = hwloc_bitmap_alloc(), .cpus_b = hwloc_bitmap_alloc() };
    const char *why = load_machine(&c.hw) != 0 ? "hwloc cannot read this machine's topology"
                                               : pick_nodes(&c);
    why = why ? why : numa_calls_refused();
    if (why)
        mm_bench_skip_all(j, MACHINE, "%s", why);
    else if (nb_topo_load_system(&c.yours) != 0)
        mm_bench_fail_all(j, MACHINE, "nb_topo_load_system failed");
    else
        bench_pair(&c);
    if (c.yours)
        hwloc_topology_destroy(c.yours);
    hwloc_topology_destroy(c.hw);
    hwloc_bitmap_free(c.cpus_a);
    hwloc_bitmap_free(c.cpus_b);
}

void write_machine_info(mm_json_t *j)
{
    mm_json_int(j, "numa_nodes", numa_available() == 0 ? numa_num_configured_nodes() : 1);
    if (seen.b < 0)
        return;
    mm_json_int(j, "gpu_node", seen.a);
    mm_json_int(j, "other_node", seen.b);
    mm_json_int(j, "numa_distance", seen.distance);
    mm_json_num(j, "buffer_mib", (double)(seen.bytes >> 20));
    mm_json_num(j, "llc_mib", (double)(seen.llc >> 20));
    mm_json_num(j, "local_ns", seen.local_ns);
    mm_json_num(j, "remote_ns", seen.remote_ns);
    mm_json_num(j, "yours_ns", seen.yours_ns);
    mm_json_num(j, "latency_contrast", seen.latency_contrast);
    mm_json_num(j, "local_gbs", seen.local_gbs);
    mm_json_num(j, "remote_gbs", seen.remote_gbs);
    mm_json_num(j, "yours_gbs", seen.yours_gbs);
    mm_json_num(j, "loader_wrong_socket_ms", seen.wrong_ms);
    mm_json_num(j, "loader_node_ms", seen.bound_ms);
    mm_json_num(j, "loader_yours_ms", seen.yours_ms);
}
