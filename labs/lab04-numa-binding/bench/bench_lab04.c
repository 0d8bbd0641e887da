/* Lab 04 benchmark. Everywhere: plan_score, how many GPUs of the shipped two-socket and NPS4
 * servers your plan gives local, disjoint, balanced cores (a deterministic check). With two NUMA
 * nodes or more: remote/local latency and bandwidth through your node-local allocation and
 * binding, and a loader bound by your plan against the same loader on the wrong socket.
 * Prints one JSON object (common/mm_bench.h); the grader scores it with lab.toml's thresholds. */
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
#include "bind.h"
#include "mm_bench.h"
#include "mm_rng.h"
#include "place.h"
#include "plan.h"
#include "shipped.h"
#include "topo.h"

#define REPS 5
#define WARMUP 1
#define MAX_WORKERS 16
#define CHASE_BYTES ((size_t)256 << 20) /* beyond any L3 a server has today */
#define CHASE_STEPS (1u << 21)
#define READ_PASSES 4
#define STAGE_BYTES ((size_t)128 << 20)
#define TILE 16384 /* floats of one decoded sample tile: 64 KiB, stays in the worker's cache */

/* ---- plan_score: the shipped servers, checked against hwloc read here ---- */

typedef struct {
    unsigned n;
    int node[NB_MAX_GPUS];
} truth_t;

static hwloc_topology_t load_shipped(const nb_shipped_t *s)
{
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) != 0)
        return NULL;
    hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_set_xmlbuffer(t, s->xml, (int)s->len) != 0 || hwloc_topology_load(t)) {
        hwloc_topology_destroy(t);
        return NULL;
    }
    return t;
}

static int is_gpu(hwloc_obj_t o)
{
    unsigned v = o->attr->pcidev.vendor_id;
    return (o->attr->pcidev.class_id >> 8) == 3 && (v == 0x10de || v == 0x1002 || v == 0x8086);
}

static void find_truth(hwloc_topology_t t, truth_t *tr)
{
    tr->n = 0;
    for (hwloc_obj_t o = hwloc_get_next_pcidev(t, NULL); o && tr->n < NB_MAX_GPUS;
         o = hwloc_get_next_pcidev(t, o)) {
        if (!is_gpu(o))
            continue;
        hwloc_obj_t a = hwloc_get_non_io_ancestor_obj(t, o);
        tr->node[tr->n++] = hwloc_bitmap_weight(a->nodeset) == 1 ? hwloc_bitmap_first(a->nodeset)
                                                                 : -1;
    }
}

/* Cores of t inside `set`: whole ones counted in *whole; returns 0 if some core is split. */
static int whole_cores(hwloc_topology_t t, hwloc_const_cpuset_t set, unsigned *whole)
{
    *whole = 0;
    for (hwloc_obj_t c = NULL; (c = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_CORE, c));) {
        if (hwloc_bitmap_isincluded(c->cpuset, set))
            (*whole)++;
        else if (hwloc_bitmap_intersects(c->cpuset, set))
            return 0;
    }
    return 1;
}

/* Whether GPU i's entry is local, whole-core, disjoint from the others and a fair share. */
static int entry_good(hwloc_topology_t t, const truth_t *tr, const nb_plan_t *p, unsigned i)
{
    const nb_plan_entry_t *e = &p->gpu[i];
    hwloc_obj_t node = hwloc_get_numanode_obj_by_os_index(t, (unsigned)tr->node[i]);
    unsigned whole, cores, m = 0;
    if (!node || e->node != tr->node[i] || !e->cpuset || hwloc_bitmap_iszero(e->cpuset) ||
        !hwloc_bitmap_isincluded(e->cpuset, node->cpuset) || !whole_cores(t, e->cpuset, &whole) ||
        whole != e->ncores || !whole_cores(t, node->cpuset, &cores))
        return 0;
    for (unsigned k = 0; k < tr->n; k++) {
        m += tr->node[k] == tr->node[i];
        if (k != i && p->gpu[k].cpuset && hwloc_bitmap_intersects(p->gpu[k].cpuset, e->cpuset))
            return 0;
    }
    return whole >= cores / m && whole <= (cores + m - 1) / m;
}

/* Your load + GPU discovery + plan on one shipped server; adds its GPUs to *good / *total. */
static void score_server(const nb_shipped_t *s, unsigned *good, unsigned *total, char *note,
                         size_t size)
{
    hwloc_topology_t oracle = load_shipped(s), t = NULL;
    truth_t tr = { 0 };
    if (oracle)
        find_truth(oracle, &tr);
    nb_gpu_t g[NB_MAX_GPUS];
    nb_plan_t p = { .n = 0 };
    int n = nb_topo_load_xml_buffer(&t, s->xml, s->len);
    if (n == 0)
        n = nb_topo_gpus(t, g, NB_MAX_GPUS);
    int found = n == (int)tr.n;
    int planned = found && nb_plan_build(t, g, tr.n, 0, &p) == 0 && p.n == tr.n;
    unsigned ok = 0;
    for (unsigned i = 0; planned && i < tr.n; i++)
        ok += (unsigned)entry_good(oracle, &tr, &p, i);
    snprintf(note, size, "%s %u/%u%s", s->name, ok, tr.n,
             planned ? "" : found ? " (no plan)" : " (GPUs not found)");
    *good += ok;
    *total += tr.n;
    nb_plan_free(&p);
    if (t)
        hwloc_topology_destroy(t);
    if (oracle)
        hwloc_topology_destroy(oracle);
}

static void bench_plans(mm_json_t *j)
{
    const char *servers[] = { "two-socket-8gpu", "epyc-nps4-4gpu" };
    unsigned good = 0, total = 0;
    char note[2][96], detail[256];
    for (int i = 0; i < 2; i++)
        score_server(nb_shipped(servers[i]), &good, &total, note[i], sizeof note[i]);
    snprintf(detail, sizeof detail, "%u of %u GPUs get local, whole, disjoint, balanced cores "
             "(%s; %s)", good, total, note[0], note[1]);
    mm_bench_metric(j, "plan_score", total ? (double)good / total : 0.0, "", detail);
}


/* ---- this machine, two nodes: the GPU's node a and another node b ---- */

typedef struct {
    hwloc_topology_t hw, yours; /* the benchmark's own view; yours from nb_topo_load_system */
    int a, b;
    hwloc_bitmap_t cpus_a, cpus_b; /* allowed PUs of each node */
    unsigned workers;              /* threads on node a: min(its cores, MAX_WORKERS) */
    unsigned workers_b;            /* loader workers on either side: min(workers, cores of b) */
    mm_json_t *j;
} pair_t;

static struct { /* what was measured, for the report's "info" */
    int a, b, distance;
    double local_ns, remote_ns, local_gbs, remote_gbs, bound_ms, wrong_ms, unbound_ms;
} seen = { -1, -1, 0, 0, 0, 0, 0, 0, 0, 0 };

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

/* Node a: the first GPU's node if this machine has one, else the first node with CPUs; node b:
 * another node, one with CPUs if there is one. Returns NULL, or why there is no such pair. */
static const char *pick_nodes(pair_t *c)
{
    truth_t tr;
    find_truth(c->hw, &tr);
    c->a = c->b = -1;
    for (unsigned i = 0; i < tr.n && c->a < 0; i++)
        c->a = tr.node[i];
    for (hwloc_obj_t n = NULL; (n = hwloc_get_next_obj_by_type(c->hw, HWLOC_OBJ_NUMANODE, n));) {
        allowed_cpus(c->hw, (int)n->os_index, c->cpus_b);
        int has_cpus = !hwloc_bitmap_iszero(c->cpus_b);
        if (c->a < 0 && has_cpus)
            c->a = (int)n->os_index;
        else if ((int)n->os_index != c->a && (c->b < 0 || has_cpus))
            c->b = (int)n->os_index;
    }
    if (c->a < 0 || c->b < 0)
        return "this machine has 1 NUMA node: local and remote memory cannot be compared";
    allowed_cpus(c->hw, c->a, c->cpus_a);
    allowed_cpus(c->hw, c->b, c->cpus_b);
    c->workers = smaller(cores_in(c->hw, c->cpus_a), MAX_WORKERS);
    c->workers_b = smaller(c->workers, cores_in(c->hw, c->cpus_b));
    seen.a = c->a, seen.b = c->b, seen.distance = numa_distance(c->a, c->b);
    return c->workers ? NULL : "the GPU's NUMA node has no CPU this process may use";
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

/* Your nb_alloc_on_node, then the kernel's word on where the pages went; NULL (and the metric
 * failed, with the reason) if they are not there. */
static void *alloc_checked(pair_t *c, int node, size_t bytes, const char *metric)
{
    void *p = NULL;
    char why[200];
    int rc = nb_alloc_on_node(c->yours, node, bytes, c->workers, &p);
    double on = rc == 0 ? fraction_on(p, bytes, node) : 0.0;
    if (rc == 0 && on >= 0.9)
        return p;
    if (rc != 0)
        snprintf(why, sizeof why, "nb_alloc_on_node(node %d) failed: %s", node, strerror(-rc));
    else
        snprintf(why, sizeof why, "nb_alloc_on_node(node %d): only %.0f%% of the pages are on "
                 "node %d", node, 100 * on, node);
    mm_bench_fail(c->j, metric, why);
    nb_free(p, bytes);
    return NULL;
}

/* -- latency: a pointer chase through one random cycle over every cache line -- */

typedef struct {
    const uint64_t *buf;
    uint64_t sink;
} chase_t;

static void build_cycle(uint64_t *buf, size_t lines, uint32_t *perm)
{
    mm_rng_t r = mm_rng_new(4);
    for (size_t i = 0; i < lines; i++)
        perm[i] = (uint32_t)i;
    for (size_t i = lines - 1; i > 0; i--) { /* Sattolo: a single cycle through all lines */
        size_t k = (size_t)mm_rng_range(&r, 0, i - 1);
        uint32_t tmp = perm[i];
        perm[i] = perm[k];
        perm[k] = tmp;
    }
    for (size_t i = 0; i < lines; i++)
        buf[i * 8] = (uint64_t)perm[i] * 8; /* line i's first word: where line perm[i] starts */
}

static void chase(void *arg)
{
    chase_t *c = arg;
    uint64_t k = 0;
    for (unsigned s = 0; s < CHASE_STEPS; s++)
        k = c->buf[k];
    c->sink += k;
}

static void bench_latency(pair_t *c, uint64_t *local, uint64_t *remote, uint32_t *perm)
{
    build_cycle(local, CHASE_BYTES / 64, perm);
    build_cycle(remote, CHASE_BYTES / 64, perm);
    chase_t cl = { local, 0 }, cr = { remote, 0 };
    mm_bench_case_t base = { "remote", chase, &cr }, yours = { "local", chase, &cl };
    double ratio, tr, tl;
    if (nb_bind_thread_to_node(c->yours, c->a) != 0 ||
        mm_bench_paired_ratio(&base, &yours, WARMUP, REPS, &ratio, &tr, &tl) != 0) {
        mm_bench_fail(c->j, "remote_latency_ratio", "nb_bind_thread_to_node failed");
        return;
    }
    nb_unbind_thread(c->yours);
    seen.remote_ns = tr * 1e9 / CHASE_STEPS;
    seen.local_ns = tl * 1e9 / CHASE_STEPS;
    char d[200];
    snprintf(d, sizeof d, "from node %d: node %d memory %.1f ns, its own %.1f ns per dependent "
             "load (medians of %d rounds, %zu MiB pointer chase)", c->a, c->b, seen.remote_ns,
             seen.local_ns, REPS, CHASE_BYTES >> 20);
    mm_bench_metric(c->j, "remote_latency_ratio", ratio, "x", d);
}

/* -- bandwidth and the loader: a team of threads on a set of CPUs, each on its own slice -- */

typedef struct team team_t;
struct team {
    pair_t *c;
    unsigned n;                 /* threads */
    hwloc_const_cpuset_t where; /* NULL: unbound */
    int yours;                  /* bind with your nb_bind_thread, else with hwloc here */
    void (*work)(team_t *tm, unsigned w);
    void *buf;
    size_t bytes;
    int failed; /* a bind failed */
};

typedef struct {
    team_t *tm;
    unsigned w;
} member_t;

static uint64_t read_sink;

static void *member(void *arg)
{
    member_t *m = arg;
    team_t *tm = m->tm;
    int rc = 0;
    if (tm->where && tm->yours)
        rc = nb_bind_thread(tm->c->yours, tm->where);
    else if (tm->where)
        rc = hwloc_set_cpubind(tm->c->hw, tm->where, HWLOC_CPUBIND_THREAD);
    if (rc != 0)
        __atomic_store_n(&tm->failed, 1, __ATOMIC_RELAXED);
    tm->work(tm, m->w);
    return NULL;
}

static void run_team(void *arg)
{
    team_t *tm = arg;
    pthread_t th[MAX_WORKERS];
    member_t m[MAX_WORKERS];
    for (unsigned w = 0; w < tm->n; w++) {
        m[w] = (member_t){ tm, w };
        if (pthread_create(&th[w], NULL, member, &m[w]) != 0)
            abort();
    }
    for (unsigned w = 0; w < tm->n; w++)
        pthread_join(th[w], NULL);
}

/* Worker w's share [lo, hi) of the team's buffer, counted in elements of `size` bytes. */
static void slice(const team_t *tm, unsigned w, size_t size, size_t *lo, size_t *hi)
{
    size_t n = tm->bytes / size;
    *lo = n * w / tm->n;
    *hi = n * (w + 1) / tm->n;
}

static void read_slice(team_t *tm, unsigned w)
{
    size_t lo, hi;
    slice(tm, w, sizeof(uint64_t), &lo, &hi);
    const uint64_t *p = tm->buf;
    uint64_t sum = 0;
    for (int pass = 0; pass < READ_PASSES; pass++)
        for (size_t i = lo; i < hi; i++)
            sum += p[i];
    __atomic_fetch_add(&read_sink, sum, __ATOMIC_RELAXED);
}

static void bench_bandwidth(pair_t *c, void *local, void *remote)
{
    team_t tl = { c, c->workers, c->cpus_a, 1, read_slice, local, CHASE_BYTES, 0 };
    team_t tr = { c, c->workers, c->cpus_a, 1, read_slice, remote, CHASE_BYTES, 0 };
    mm_bench_case_t base = { "remote", run_team, &tr }, yours = { "local", run_team, &tl };
    double ratio, t_r, t_l;
    if (mm_bench_paired_ratio(&base, &yours, WARMUP, REPS, &ratio, &t_r, &t_l) != 0 ||
        tl.failed || tr.failed) {
        mm_bench_fail(c->j, "remote_bandwidth_ratio", "nb_bind_thread failed in a reader");
        return;
    }
    double gb = (double)CHASE_BYTES * READ_PASSES / 1e9;
    seen.remote_gbs = gb / t_r;
    seen.local_gbs = gb / t_l;
    char d[200];
    snprintf(d, sizeof d, "%u threads on node %d read node %d memory at %.1f GB/s, their own at "
             "%.1f GB/s (medians of %d rounds)", c->workers, c->a, c->b, seen.remote_gbs,
             seen.local_gbs, REPS);
    mm_bench_metric(c->j, "remote_bandwidth_ratio", ratio, "x", d);
}

/* The value worker w writes at element i of the batch. */
static float collated(size_t i, unsigned w)
{
    return (float)((i % TILE * 37u + w) % 251u) * 0.5f + 1.0f;
}

/* A loader worker: a decoded sample tile (in its cache) collated into the batch buffer, which
 * sits on the GPU's node as pinned staging memory does. */
static void collate_slice(team_t *tm, unsigned w)
{
    float tile[TILE];
    for (size_t i = 0; i < TILE; i++)
        tile[i] = (float)((i * 37u + w) % 251u);
    size_t lo, hi;
    slice(tm, w, sizeof(float), &lo, &hi);
    float *dst = tm->buf;
    for (size_t i = lo; i < hi; i++)
        dst[i] = tile[i % TILE] * 0.5f + 1.0f;
}

static int batch_ok(const team_t *tm)
{
    const float *dst = tm->buf;
    for (unsigned w = 0; w < tm->n; w++) {
        size_t lo, hi;
        slice(tm, w, sizeof(float), &lo, &hi);
        for (size_t i = lo; i < hi; i += 4099)
            if (dst[i] != collated(i, w) || dst[hi - 1] != collated(hi - 1, w))
                return 0;
    }
    return 1;
}

static void bench_loader(pair_t *c, hwloc_const_cpuset_t plan_cpus)
{
    if (c->workers_b == 0) {
        mm_bench_skip(c->j, "loader_speedup", "the other NUMA node has no CPU this process may "
                      "use: there is no wrong socket to compare with");
        return;
    }
    void *stage = alloc_checked(c, c->a, STAGE_BYTES, "loader_speedup");
    if (!stage)
        return;
    team_t bound = { c, c->workers_b, plan_cpus, 1, collate_slice, stage, STAGE_BYTES, 0 };
    team_t wrong = { c, c->workers_b, c->cpus_b, 0, collate_slice, stage, STAGE_BYTES, 0 };
    team_t loose = { c, c->workers_b, NULL, 0, collate_slice, stage, STAGE_BYTES, 0 };
    mm_bench_case_t cw = { "wrong socket", run_team, &wrong }, cb = { "bound", run_team, &bound };
    mm_bench_case_t cu = { "unbound", run_team, &loose };
    double ratio, t_w, t_b, unused, t_u;
    int rc = mm_bench_paired_ratio(&cw, &cb, WARMUP, REPS, &ratio, &t_w, &t_b);
    if (rc == 0)
        rc = mm_bench_paired_ratio(&cu, &cb, 0, REPS, &unused, &t_u, NULL);
    if (rc != 0 || bound.failed)
        mm_bench_fail(c->j, "loader_speedup", "nb_bind_thread failed in a loader worker");
    else if (!batch_ok(&bound))
        mm_bench_fail(c->j, "loader_speedup", "the collated batch is wrong");
    else {
        char what[96];
        snprintf(what, sizeof what, "%u workers collating %zu MiB on node %d; unbound %.1f ms",
                 c->workers_b, STAGE_BYTES >> 20, c->a, t_u * 1e3);
        mm_bench_speedup(c->j, "loader_speedup", ratio, "wrong socket", t_w, t_b, REPS, what);
        seen.bound_ms = t_b * 1e3, seen.wrong_ms = t_w * 1e3, seen.unbound_ms = t_u * 1e3;
    }
    nb_free(stage, STAGE_BYTES);
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

static void bench_two_nodes(pair_t *c)
{
    uint32_t *perm = malloc(CHASE_BYTES / 64 * sizeof *perm);
    void *local = alloc_checked(c, c->a, CHASE_BYTES, "remote_latency_ratio");
    void *remote = local ? alloc_checked(c, c->b, CHASE_BYTES, "remote_latency_ratio") : NULL;
    if (local && remote && perm) {
        bench_latency(c, local, remote, perm);
        bench_bandwidth(c, local, remote);
    } else {
        if (local && remote)
            mm_bench_fail(c->j, "remote_latency_ratio", "out of memory");
        mm_bench_fail(c->j, "remote_bandwidth_ratio", "the latency buffers could not be made");
    }
    nb_free(local, CHASE_BYTES);
    nb_free(remote, CHASE_BYTES);
    free(perm);
    nb_plan_t p = { .n = 0 };
    if (plan_here(c, &p) == 0)
        bench_loader(c, p.gpu[0].cpuset);
    nb_plan_free(&p);
}

static void two_node_metrics(mm_json_t *j, const char *why,
                             void (*say)(mm_json_t *, const char *, const char *))
{
    say(j, "remote_latency_ratio", why);
    say(j, "remote_bandwidth_ratio", why);
    say(j, "loader_speedup", why);
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

static void bench_machine(mm_json_t *j)
{
    pair_t c = { .j = j, .cpus_a = hwloc_bitmap_alloc(), .cpus_b = hwloc_bitmap_alloc() };
    const char *why = load_machine(&c.hw) != 0 ? "hwloc cannot read this machine's topology"
                                               : pick_nodes(&c);
    why = why ? why : numa_calls_refused();
    if (why)
        two_node_metrics(j, why, mm_bench_skip);
    else if (nb_topo_load_system(&c.yours) != 0)
        two_node_metrics(j, "nb_topo_load_system failed", mm_bench_fail);
    else
        bench_two_nodes(&c);
    if (c.yours)
        hwloc_topology_destroy(c.yours);
    hwloc_topology_destroy(c.hw);
    hwloc_bitmap_free(c.cpus_a);
    hwloc_bitmap_free(c.cpus_b);
}

static void write_info(mm_json_t *j)
{
    mm_json_object(j, "info");
    mm_json_int(j, "numa_nodes", numa_available() == 0 ? numa_num_configured_nodes() : 1);
    if (seen.b >= 0) {
        mm_json_int(j, "gpu_node", seen.a);
        mm_json_int(j, "other_node", seen.b);
        mm_json_int(j, "numa_distance", seen.distance);
        mm_json_num(j, "local_ns", seen.local_ns);
        mm_json_num(j, "remote_ns", seen.remote_ns);
        mm_json_num(j, "local_gbs", seen.local_gbs);
        mm_json_num(j, "remote_gbs", seen.remote_gbs);
        mm_json_num(j, "loader_bound_ms", seen.bound_ms);
        mm_json_num(j, "loader_wrong_socket_ms", seen.wrong_ms);
        mm_json_num(j, "loader_unbound_ms", seen.unbound_ms);
    }
    mm_json_close(j, '}');
}

int main(void)
{
    mm_json_t j;
    mm_json_begin(&j, mm_bench_output());
    mm_bench_begin(&j, "04");
    bench_plans(&j);
    bench_machine(&j);
    mm_bench_end_metrics(&j);
    write_info(&j);
    mm_json_end(&j);
    return 0;
}
