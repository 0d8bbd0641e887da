/* Lab 04, part B: a binding plan, GPU by GPU, and its numactl form (contract in include/plan.h).
 * The benchmark's plan_score checks your plans on the shipped two-socket and NPS4 servers. */
#include "plan.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>

void nb_plan_free(nb_plan_t *plan)
{
    /* ===== YOUR CODE HERE: free every entry's cpuset (hwloc_bitmap_free), then n = 0 ===== */
    (void)plan;
    /* ===== END YOUR CODE ===== */
}

/* ===== YOUR CODE HERE: static helpers =====
 * The cores of a node, in logical order: hwloc_get_numanode_obj_by_os_index(t, node), then
 * hwloc_get_next_obj_inside_cpuset_by_type(t, node->cpuset, HWLOC_OBJ_CORE, prev). */
/* ===== END YOUR CODE ===== */

int nb_plan_build(hwloc_topology_t t, const nb_gpu_t *gpus, unsigned ngpus, unsigned reserve,
                  nb_plan_t *plan)
{
    /* ===== YOUR CODE HERE =====
     * Check every argument and every GPU's node first; then, for GPU i on node N: which of N's
     * GPUs is it (j) and how many share N (m)? Its cores are [j*c/m, (j+1)*c/m) after the
     * reserve. On any failure free what you allocated and leave plan->n == 0. */
    (void)t, (void)gpus, (void)ngpus, (void)reserve, (void)plan;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int nb_plan_format(const nb_plan_t *plan, char *buf, size_t size)
{
    /* ===== YOUR CODE HERE: snprintf each line at buf + used; hwloc_bitmap_list_snprintf ===== */
    (void)plan, (void)buf, (void)size;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}
