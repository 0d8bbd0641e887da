/* Lab 04 benchmark, the metrics that need two NUMA nodes: latency, read bandwidth and a batch
 * loader, each timed three ways in every round (remote memory or the wrong socket, the
 * benchmark's own binding, your binding) so that a round counts only when this machine showed a
 * remote penalty in it. Each metric is your time against the benchmark's own binding (1 = as
 * local as it gets).
 *
 * Where each runs: the benchmark's own two ways run here, in the harness, on buffers it places
 * itself (mbind); yours runs in your process (the chase and team workloads of
 * serve/serve04.c: the same kernels, serve/work04.h), bound by your code, on the memory your
 * nb_alloc_on_node placed there. Every time is taken here around the whole call. While a
 * baseline runs your process must be idle (mm_idle_*: its CPU time, read from /proc): if it
 * was not, the metrics skip.
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
#include "../serve/work04.h"
#include "../tests/numa_maps.h"
#include "bench04.h"
#include "mm_call.h"
#include "mm_timer.h"
#include "place.h"
#include "plan.h"

#define REPS 7
#define WARMUP 1
#define COUNTED ((REPS + 1) / 2) /* rounds that must show the penalty */
#define MAX_WORKERS NB_MAX_WORKERS
#define MIN_BYTES ((size_t)1 << 30)
#define LLC_TIMES 4
#define MAX_BYTES ((size_t)6 << 30) /* what the benchmark may map for one buffer */
#define WINDOW NB_WINDOW
#define CHASE_STEPS (1u << 20)
#define LATENCY_GATE 1.15
#define BANDWIDTH_GATE 1.10
#define LOADER_GATE 1.10

/* The metrics of this file: skipped or failed together when the machine or a set-up fails. */
static const char *const MACHINE[] = { "remote_latency_ratio", "remote_bandwidth_ratio",
                                       "loader_speedup", NULL };

typedef struct {
    hwloc_topology_t hw;    /* the benchmark's own view */
    hwloc_topology_t yours; /* yours from nb_topo_load_system: a handle of your process */
    int a, b;               /* the GPU's node, the farthest other node */
    hwloc_bitmap_t cpus_a, cpus_b;
    unsigned workers;   /* readers on node a: min(its cores, MAX_WORKERS) */
    unsigned workers_b; /* loader workers on either side: min(workers, cores of b) */
    size_t bytes, llc;  /* each buffer; the last-level caches of node a */
    char *local, *remote; /* the benchmark's own buffers, on nodes a and b */
    char *mine;           /* yours on node a, from nb_alloc_on_node: an address of your process */
    mm_idle_t idle;       /* your process, while the baselines were timed */
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

#define MARGIN ((size_t)256 << 20) /* what a node keeps free beside the buffers */

/* c->bytes: max(4x the caches of node a, 1 GiB) in whole windows, one buffer of the benchmark's
 * on each node (yours joins node a's later, see bench_buffers). Returns 0, or -1 when it cannot
 * be (the metrics are then skipped, with the reason). */
static int size_buffers(pair_t *c)
{
    c->llc = seen.llc = llc_bytes(c->hw, c->cpus_a);
    size_t want = LLC_TIMES * c->llc > MIN_BYTES ? LLC_TIMES * c->llc : MIN_BYTES;
    c->bytes = seen.bytes = (want + WINDOW - 1) / WINDOW * WINDOW;
    size_t margin = MARGIN;
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

/* The benchmark's own buffer on `node` (mbind, then written here), or NULL when the kernel did
 * not place it there. Free with munmap(p, c->bytes). */
static char *own_buffer(pair_t *c, int node)
{
    unsigned long mask[NB_MAX_NODES / (8 * sizeof(unsigned long)) + 1] = { 0 };
    size_t bits = 8 * sizeof(unsigned long);
    char *p = mmap(NULL, c->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED || node < 0 || node >= NB_MAX_NODES)
        return NULL;
    mask[(size_t)node / bits] |= 1ul << ((size_t)node % bits);
    if (mbind(p, c->bytes, MPOL_BIND, mask, sizeof mask * 8 + 1, 0) == 0) {
        memset(p, 0, c->bytes);
        if (fraction_on(p, c->bytes, node) >= 0.9)
            return p;
    }
    munmap(p, c->bytes);
    return NULL;
}

/* Your nb_alloc_on_node in your process, then where its pages went, read here from your
 * process's /proc files (tests/numa_maps.h: that memory is your process's own). 0, or -1 with
 * every metric failed, with the reason. */
static int alloc_yours(pair_t *c)
{
    void *p = NULL;
    nm_seen_t s = { 0 };
    int rc = nb_alloc_on_node(c->yours, c->a, c->bytes, c->workers, &p);
    int read_rc = rc == 0 ? nm_read(mm_student_pid(), p, c->bytes, c->a, &s) : 0;
    if (rc == 0 && read_rc == 0 && (double)nm_proven(&s) >= 0.9 * (double)s.pages) {
        c->mine = p;
        return 0;
    }
    if (rc != 0)
        mm_bench_fail_all(c->j, MACHINE, "nb_alloc_on_node(node %d, %zu MiB) failed: %s", c->a,
                          c->bytes >> 20, strerror(-rc));
    else if (read_rc != 0)
        mm_bench_fail_all(c->j, MACHINE, "cannot read where your process's pages are "
                          "(/proc/<pid>/maps, numa_maps, pagemap): %s", strerror(-read_rc));
    else
        mm_bench_fail_all(c->j, MACHINE, "nb_alloc_on_node(node %d): %zu of %zu pages are "
                          "on node %d (numa_maps)", c->a, nm_proven(&s), s.pages, c->a);
    nb_free(p, c->bytes);
    return -1;
}

/* ---- latency: a pointer chase along one cycle through every line of a buffer ---- */

typedef struct {
    pair_t *c;
    const uint64_t *buf; /* the benchmark's buffer; NULL: yours, in your process */
    uint64_t at;         /* where the next round goes on from */
    int failed;
} chase_t;

/* One round: here, bound by hwloc to node a; or yours (the chase workload). */
static void chase(void *arg)
{
    chase_t *ch = arg;
    pair_t *c = ch->c;
    if (!ch->buf) {
        nb_sv_bench_in_t in = { .topo = (uintptr_t)c->yours, .buf = (uintptr_t)c->mine,
                                .at = ch->at, .node = c->a, .steps = CHASE_STEPS };
        nb_sv_bench_out_t out = { 0 };
        ch->failed |= mm_call_work("chase", &in, sizeof in, &out, sizeof out) != 0 || out.failed;
        ch->at = out.at;
        return;
    }
    mm_idle_start(&c->idle);
    if (hwloc_set_cpubind(c->hw, c->cpus_a, HWLOC_CPUBIND_THREAD) != 0)
        ch->failed = 1;
    ch->at = nb_chase(ch->buf, ch->at, CHASE_STEPS);
    mm_idle_stop(&c->idle);
}

/* A metric from its gated measurement: your time against the benchmark's own binding. */
static void report(pair_t *c, const char *metric, const mm_bench_gated_t *g, double gate,
                   const char *measured)
{
    char why[300];
    if (!mm_idle_ok(&c->idle, why, sizeof why)) {
        mm_bench_skipf(c->j, metric, "%s; %s", why, measured);
        return;
    }
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

static uint64_t walk_local, walk_remote; /* where the benchmark's chases go on from */

/* The chase, three ways a round (without yours, the benchmark's own binding in its place: the
 * gate alone); *g and what it measured in m. Returns 0, or -1 (reported). */
static int measure_latency(pair_t *c, int with_yours, mm_bench_gated_t *g, char *m, size_t size)
{
    chase_t base = { c, (uint64_t *)(void *)c->remote, walk_remote, 0 };
    chase_t ideal = { c, (uint64_t *)(void *)c->local, walk_local, 0 }, yours = { c, NULL, 0, 0 };
    mm_bench_case_t cb = { "remote", chase, &base }, ci = { "local", chase, &ideal },
                    cy = { "yours", chase, with_yours ? &yours : &ideal };
    nb_sv_bench_in_t in = { .buf = (uintptr_t)c->mine, .bytes = c->bytes, .seed = 4 };
    int rc = with_yours ? mm_call_work("cycle", &in, sizeof in, NULL, 0) : 0;
    if (rc != 0 || mm_bench_gated_ratio(&cb, &ci, &cy, WARMUP, REPS, LATENCY_GATE, g) != 0) {
        mm_bench_fail_all(c->j, MACHINE, "out of memory");
        return -1;
    }
    if (yours.failed || base.failed || ideal.failed) {
        mm_bench_fail_all(c->j, MACHINE, "nb_bind_thread_to_node failed");
        return -1;
    }
    walk_local = ideal.at, walk_remote = base.at;
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
    hwloc_const_cpuset_t where; /* here: where each thread binds itself (hwloc); yours: a
                                   bitmap of your process for your nb_bind_thread, or NULL for
                                   your nb_bind_thread_to_node(node a) */
    int kind;                   /* NB_WORK_* */
    char *buf;                  /* the benchmark's buffer; NULL: yours (c->mine) */
    size_t *next; /* the buffer's window cursor, shared by the teams that use the buffer */
    size_t win;                 /* this round's window: [buf + win, buf + win + WINDOW) */
    int failed;                 /* a bind failed */
};

typedef struct {
    team_t *tm;
    unsigned w;
} member_t;

static uint64_t read_sink;

static void *member(void *arg)
{
    member_t *m = arg;
    char *win = m->tm->buf + m->tm->win;
    if (hwloc_set_cpubind(m->tm->c->hw, m->tm->where, HWLOC_CPUBIND_THREAD) != 0)
        __atomic_store_n(&m->tm->failed, 1, __ATOMIC_RELAXED);
    if (m->tm->kind == NB_WORK_READ)
        __atomic_fetch_add(&read_sink, nb_read_slice(win, m->tm->n, m->w), __ATOMIC_RELAXED);
    else
        nb_collate_slice(win, m->tm->n, m->w);
    return NULL;
}

/* Your team, in your process (the team workload). */
static void run_yours(team_t *tm)
{
    nb_sv_bench_in_t in = { .topo = (uintptr_t)tm->c->yours, .buf = (uintptr_t)tm->c->mine,
                            .where = (uintptr_t)tm->where, .win = tm->win, .node = tm->c->a,
                            .kind = tm->kind, .n = tm->n };
    nb_sv_bench_out_t out = { 0 };
    if (mm_call_work("team", &in, sizeof in, &out, sizeof out) != 0 || out.failed)
        tm->failed = 1;
    read_sink += out.sink;
}

/* One round: the team's next window, here or in your process. */
static void run_team(void *arg)
{
    team_t *tm = arg;
    pthread_t th[MAX_WORKERS];
    member_t m[MAX_WORKERS];
    tm->win = *tm->next;
    *tm->next = (*tm->next + WINDOW) % tm->c->bytes;
    if (!tm->buf) {
        run_yours(tm);
        return;
    }
    mm_idle_start(&tm->c->idle);
    for (unsigned i = 0; i < tm->n; i++) {
        m[i] = (member_t){ tm, i };
        if (pthread_create(&th[i], NULL, member, &m[i]) != 0)
            abort();
    }
    for (unsigned i = 0; i < tm->n; i++)
        pthread_join(th[i], NULL);
    mm_idle_stop(&tm->c->idle);
}

/* Readers, three ways a round; *g and what it measured in m. Returns 0, or -1 (reported). */
static size_t next_local, next_remote; /* the benchmark's window cursors */

static int measure_bandwidth(pair_t *c, int with_yours, mm_bench_gated_t *g, char *m,
                             size_t size)
{
    size_t next_y = 0;
    team_t base = { c, c->workers, c->cpus_a, NB_WORK_READ, c->remote, &next_remote, 0, 0 };
    team_t ideal = { c, c->workers, c->cpus_a, NB_WORK_READ, c->local, &next_local, 0, 0 };
    team_t yours = { c, c->workers, NULL, NB_WORK_READ, NULL, &next_y, 0, 0 };
    mm_bench_case_t cb = { "remote", run_team, &base }, ci = { "local", run_team, &ideal },
                    cy = { "yours", run_team, with_yours ? &yours : &ideal };
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

/* Whether your team's last window holds the collated batch: samples read from your process. */
static int batch_ok(const team_t *tm)
{
    const char *win = tm->c->mine + tm->win;
    for (unsigned w = 0; w < tm->n; w++) {
        size_t lo, hi;
        nb_slice(tm->n, w, sizeof(float), &lo, &hi);
        size_t step = (hi - lo) / 64 + 1;
        for (size_t i = lo; i < hi; i += step) {
            float got[2];
            if (mm_peek(win + i * sizeof(float), &got[0], sizeof got[0]) != 0 ||
                mm_peek(win + (hi - 1) * sizeof(float), &got[1], sizeof got[1]) != 0 ||
                got[0] != nb_collated(i, w) || got[1] != nb_collated(hi - 1, w))
                return 0;
        }
    }
    return 1;
}

/* Your plan for one GPU on node a (this machine's first GPU, or one imagined there). */
static int plan_here(pair_t *c, nb_plan_t *p)
{
    nb_gpu_t g = { "0000:00:00.0", 0x10de, 0x2330, 0x0302, c->a };
    int rc = nb_plan_build(c->yours, &g, 1, 0, p);
    hwloc_bitmap_t set = rc == 0 && p->n == 1 ? fetch_set(p->gpu[0].cpuset) : NULL;
    int ok = set && p->gpu[0].node == c->a && hwloc_bitmap_isincluded(set, c->cpus_a) &&
             hwloc_bitmap_intersects(set, c->cpus_a);
    hwloc_bitmap_free(set);
    if (ok)
        return 0;
    mm_bench_fail(c->j, "loader_speedup", "nb_plan_build gave no cores on the GPU's node");
    return -1;
}

static void bench_loader(pair_t *c)
{
    nb_plan_t p = { .n = 0 };
    if (c->workers_b == 0) {
        mm_bench_skip(c->j, "loader_speedup", "the other NUMA node has no CPU this process may "
                      "use: there is no wrong socket to compare with");
        return;
    }
    if (plan_here(c, &p) != 0)
        return;
    size_t next_y = 0;
    team_t base = { c, c->workers_b, c->cpus_b, NB_WORK_COLLATE, c->local, &next_local, 0, 0 };
    team_t ideal = { c, c->workers_b, c->cpus_a, NB_WORK_COLLATE, c->local, &next_local, 0, 0 };
    team_t yours = { c, c->workers_b, p.gpu[0].cpuset, NB_WORK_COLLATE, NULL, &next_y, 0, 0 };
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

/* Latency and bandwidth, with or without yours; 0 when both showed the remote penalty, else -1
 * with every metric skipped or failed, with the reason: a machine has a remote penalty only if
 * the benchmark's own chase and its own readers both showed one in most rounds (one of them
 * alone can be an emulator's or a busy host's noise). */
static int measure_both(pair_t *c, int with_yours, mm_bench_gated_t *lat, mm_bench_gated_t *bw,
                        char *ml, char *mb, size_t size)
{
    if (measure_latency(c, with_yours, lat, ml, size) != 0 ||
        measure_bandwidth(c, with_yours, bw, mb, size) != 0)
        return -1;
    if (lat->counted >= COUNTED && bw->counted >= COUNTED)
        return 0;
    mm_bench_skip_all(c->j, MACHINE, "this machine showed no remote-memory penalty: %s (%u of %d "
                      "rounds at %.2fx or more); %s (%u of %d rounds at %.2fx or more); both "
                      "need %d. Virtual NUMA nodes backed by the same memory look like this", ml,
                      lat->counted, REPS, LATENCY_GATE, mb, bw->counted, REPS, BANDWIDTH_GATE,
                      COUNTED);
    return -1;
}

/* The gate first, on the benchmark's own buffers alone; only a machine that shows the penalty
 * gets your buffer beside the benchmark's on node a (so that a machine without one never needs
 * the memory of both). Then the three ways, the loader last. */
static void bench_buffers(pair_t *c)
{
    mm_bench_gated_t lat, bw;
    char ml[200], mb[200];
    if (measure_both(c, 0, &lat, &bw, ml, mb, sizeof ml) != 0)
        return;
    if (free_on(c->a) < c->bytes + MARGIN) {
        mm_bench_skip_all(c->j, MACHINE, "node %d needs %zu MiB free for your buffer beside the "
                          "benchmark's; it has %zu MiB", c->a, (c->bytes + MARGIN) >> 20,
                          free_on(c->a) >> 20);
        return;
    }
    if (alloc_yours(c) != 0 || measure_both(c, 1, &lat, &bw, ml, mb, sizeof ml) != 0)
        return;
    report(c, "remote_latency_ratio", &lat, LATENCY_GATE, ml);
    report(c, "remote_bandwidth_ratio", &bw, BANDWIDTH_GATE, mb);
    bench_loader(c);
}

static void bench_pair(pair_t *c)
{
    if (size_buffers(c) != 0)
        return;
    c->local = own_buffer(c, c->a);
    c->remote = c->local ? own_buffer(c, c->b) : NULL;
    if (!c->remote)
        mm_bench_skip_all(c->j, MACHINE, "the benchmark could not place its own %zu MiB buffers "
                          "on nodes %d and %d (mbind)", c->bytes >> 20, c->a, c->b);
    else if (nb_build_cycle((uint64_t *)(void *)c->local, c->bytes, 4) != 0 ||
             nb_build_cycle((uint64_t *)(void *)c->remote, c->bytes, 5) != 0)
        mm_bench_fail_all(c->j, MACHINE, "out of memory");
    else
        bench_buffers(c);
    hwloc_set_cpubind(c->hw, hwloc_topology_get_allowed_cpuset(c->hw), HWLOC_CPUBIND_THREAD);
    nb_free(c->mine, c->bytes);
    if (c->local)
        munmap(c->local, c->bytes);
    if (c->remote)
        munmap(c->remote, c->bytes);
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
        bench_pair(&c); /* c.yours is your process's: it ends with it */
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
