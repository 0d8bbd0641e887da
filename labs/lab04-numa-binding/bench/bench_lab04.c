/* Lab 04 benchmark. Everywhere: plan_score, how many GPUs of the shipped two-socket and NPS4
 * servers your plan gives local, disjoint, balanced cores (a deterministic check). With two NUMA
 * nodes or more (two_nodes.c): latency and bandwidth through your node-local allocation and
 * binding, and a loader bound by your plan, each against the benchmark's own binding.
 * Your code runs in a process of its own (calls.toml): its topologies and bitmaps are handles
 * here, read back through the bitmap_list workload and checked against hwloc read here.
 * Prints one JSON object (common/mm_bench.h); the grader scores it with lab.toml's thresholds. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "../serve/work04.h"
#include "bench04.h"
#include "mm_call.h"
#include "plan.h"
#include "shipped.h"
#include "topo.h"

/* ---- plan_score: the shipped servers, checked against hwloc read here ---- */

hwloc_bitmap_t fetch_set(hwloc_const_bitmap_t there)
{
    uint64_t h = (uintptr_t)there;
    nb_sv_bitmap_t b;
    hwloc_bitmap_t s = NULL;
    if (!there || mm_call_work("bitmap_list", &h, sizeof h, &b, sizeof b) != 0 || b.null)
        return NULL;
    b.list[sizeof b.list - 1] = 0;
    s = hwloc_bitmap_alloc();
    if (s && hwloc_bitmap_list_sscanf(s, b.list) != 0) {
        hwloc_bitmap_free(s);
        return NULL;
    }
    return s;
}

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

void find_truth(hwloc_topology_t t, truth_t *tr)
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

/* Whether GPU i's entry is local, whole-core, disjoint from the others and a fair share;
 * sets: the entries' cpusets, read back from your process (NULL where there is none). */
static int entry_good(hwloc_topology_t t, const truth_t *tr, const nb_plan_t *p,
                      hwloc_bitmap_t *sets, unsigned i)
{
    const nb_plan_entry_t *e = &p->gpu[i];
    hwloc_const_bitmap_t mine = sets[i];
    hwloc_obj_t node = hwloc_get_numanode_obj_by_os_index(t, (unsigned)tr->node[i]);
    unsigned whole, cores, m = 0;
    if (!node || e->node != tr->node[i] || !mine || hwloc_bitmap_iszero(mine) ||
        !hwloc_bitmap_isincluded(mine, node->cpuset) || !whole_cores(t, mine, &whole) ||
        whole != e->ncores || !whole_cores(t, node->cpuset, &cores))
        return 0;
    for (unsigned k = 0; k < tr->n; k++) {
        m += tr->node[k] == tr->node[i];
        if (k != i && sets[k] && hwloc_bitmap_intersects(sets[k], mine))
            return 0;
    }
    return whole >= cores / m && whole <= (cores + m - 1) / m;
}

/* Your plan's entries judged against the oracle; returns how many are good. */
static unsigned good_entries(hwloc_topology_t oracle, const truth_t *tr, const nb_plan_t *p)
{
    hwloc_bitmap_t sets[NB_MAX_GPUS];
    unsigned ok = 0;
    for (unsigned i = 0; i < tr->n; i++)
        sets[i] = fetch_set(p->gpu[i].cpuset);
    for (unsigned i = 0; i < tr->n; i++)
        ok += (unsigned)entry_good(oracle, tr, p, sets, i);
    for (unsigned i = 0; i < tr->n; i++)
        hwloc_bitmap_free(sets[i]);
    return ok;
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
    unsigned ok = planned ? good_entries(oracle, &tr, &p) : 0;
    snprintf(note, size, "%s %u/%u%s", s->name, ok, tr.n,
             planned ? "" : found ? " (no plan)" : " (GPUs not found)");
    *good += ok;
    *total += tr.n;
    nb_plan_free(&p); /* t is your process's: it ends with it */
    if (oracle)
        hwloc_topology_destroy(oracle);
}

static void bench_plans(mm_json_t *j)
{
    const char *servers[] = { "two-socket-8gpu", "epyc-nps4-4gpu" };
    unsigned good = 0, total = 0;
    char note[2][96];
    for (int i = 0; i < 2; i++)
        score_server(nb_shipped(servers[i]), &good, &total, note[i], sizeof note[i]);
    mm_bench_metricf(j, "plan_score", total ? (double)good / total : 0.0, "", "%u of %u GPUs get "
                     "local, whole, disjoint, balanced cores (%s; %s)", good, total, note[0],
                     note[1]);
}


int main(void)
{
    mm_json_t j;
    int rc = mm_call_setup(); /* before mm_bench_open, which may confine this process */
    if (rc < 0) {
        fprintf(stderr, "mlmem: cannot start the program that runs your code: %s\n",
                strerror(-rc));
        return 2;
    }
    mm_bench_open(&j, "04");
    bench_plans(&j);
    bench_machine(&j);
    mm_bench_end_metrics(&j);
    mm_json_object(&j, "info");
    write_machine_info(&j);
    mm_json_close(&j, '}');
    mm_json_end(&j);
    return 0;
}
