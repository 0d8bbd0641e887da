/* Lab 04, part B: a binding plan, GPU by GPU, and its numactl form (contract in include/plan.h).
 * The benchmark's plan_score checks your plans on the shipped two-socket and NPS4 servers. */
#include "plan.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>

void nb_plan_free(nb_plan_t *plan)
{
    if (!plan)
        return;
    for (unsigned i = 0; i < plan->n; i++)
        hwloc_bitmap_free(plan->gpu[i].cpuset);
    plan->n = 0;
}

static int check_gpus(hwloc_topology_t t, const nb_gpu_t *gpus, unsigned ngpus)
{
    for (unsigned i = 0; i < ngpus; i++)
        if (gpus[i].node != -1 &&
            (gpus[i].node < 0 || !hwloc_get_numanode_obj_by_os_index(t, (unsigned)gpus[i].node)))
            return -EINVAL;
    return 0;
}

/* Visits the cores of node n (inside its cpuset) in logical order: counts them and ORs the
 * cpusets of those with index in [from, to) into `into` (NULL: count only). */
static unsigned walk_cores(hwloc_topology_t t, hwloc_obj_t n, unsigned from, unsigned to,
                           hwloc_bitmap_t into)
{
    unsigned k = 0;
    for (hwloc_obj_t c = NULL;
         (c = hwloc_get_next_obj_inside_cpuset_by_type(t, n->cpuset, HWLOC_OBJ_CORE, c)); k++)
        if (into && k >= from && k < to)
            hwloc_bitmap_or(into, into, c->cpuset);
    return k;
}

/* Rank of GPU i among the GPUs on its node (j) and how many share that node (m). */
static void rank_on_node(const nb_gpu_t *gpus, unsigned ngpus, unsigned i, unsigned *j,
                         unsigned *m)
{
    *j = *m = 0;
    for (unsigned k = 0; k < ngpus; k++) {
        if (gpus[k].node != gpus[i].node)
            continue;
        *j += k < i;
        (*m)++;
    }
}

static int plan_one(hwloc_topology_t t, const nb_gpu_t *gpus, unsigned ngpus, unsigned i,
                    unsigned reserve, nb_plan_entry_t *e)
{
    e->node = gpus[i].node;
    e->ncores = 0;
    if (!(e->cpuset = hwloc_bitmap_alloc()))
        return -ENOMEM;
    if (e->node < 0)
        return 0;
    hwloc_obj_t n = hwloc_get_numanode_obj_by_os_index(t, (unsigned)e->node);
    unsigned j, m, all = walk_cores(t, n, 0, 0, NULL);
    unsigned c = all > reserve ? all - reserve : 0;
    rank_on_node(gpus, ngpus, i, &j, &m);
    if (c < m)
        return -ENOSPC;
    unsigned from = reserve + j * c / m, to = reserve + (j + 1) * c / m;
    walk_cores(t, n, from, to, e->cpuset);
    e->ncores = to - from;
    return 0;
}

int nb_plan_build(hwloc_topology_t t, const nb_gpu_t *gpus, unsigned ngpus, unsigned reserve,
                  nb_plan_t *plan)
{
    if (plan)
        plan->n = 0;
    if (!t || !plan || (!gpus && ngpus > 0) || ngpus > NB_MAX_GPUS)
        return -EINVAL;
    int rc = check_gpus(t, gpus, ngpus);
    for (unsigned i = 0; rc == 0 && i < ngpus; i++) {
        rc = plan_one(t, gpus, ngpus, i, reserve, &plan->gpu[i]);
        plan->n = i + 1; /* entry i now owns a cpuset (or NULL): freed on failure */
    }
    if (rc != 0)
        nb_plan_free(plan);
    return rc;
}

static int format_entry(const nb_plan_entry_t *e, unsigned i, char *buf, size_t size)
{
    if (e->node < 0)
        return snprintf(buf, size, "gpu %u: node unknown, not bound\n", i);
    char cpus[1024];
    if (hwloc_bitmap_list_snprintf(cpus, sizeof cpus, e->cpuset) >= (int)sizeof cpus)
        return -ERANGE;
    return snprintf(buf, size, "gpu %u: node %d, %u cores: numactl --physcpubind=%s --membind=%d\n",
                    i, e->node, e->ncores, cpus, e->node);
}

int nb_plan_format(const nb_plan_t *plan, char *buf, size_t size)
{
    if (!plan || !buf || size == 0)
        return -EINVAL;
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < plan->n; i++) {
        int n = format_entry(&plan->gpu[i], i, buf + used, size - used);
        if (n < 0 || (size_t)n >= size - used)
            return -ERANGE;
        used += (size_t)n;
    }
    return (int)used;
}
