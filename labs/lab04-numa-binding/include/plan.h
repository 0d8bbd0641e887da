/* Lab 04, part B: a binding plan. For each GPU: the NUMA node it is attached to and a set of
 * whole cores on that node for its training process and that process's DataLoader workers.
 * GPUs that share a node split its cores into disjoint, near-equal, contiguous chunks. */
#ifndef NB_PLAN_H
#define NB_PLAN_H
#include <hwloc.h>
#include <stddef.h>
#include "topo.h"

#define NB_MAX_GPUS 64

typedef struct {
    int node;              /* the GPU's NUMA node (OS index); -1: unknown, so not bound */
    unsigned ncores;       /* whole cores in cpuset (0 when node is -1) */
    hwloc_bitmap_t cpuset; /* every PU of those cores; empty when node is -1 */
} nb_plan_entry_t;

typedef struct {
    unsigned n;                      /* one entry per GPU, in the order of the GPU list */
    nb_plan_entry_t gpu[NB_MAX_GPUS];
} nb_plan_t;

/* Builds the plan for gpus[0..ngpus) (as nb_topo_gpus gives them, or made up by the caller) on
 * topology t. The rule, per NUMA node N that hosts m >= 1 of the GPUs:
 *   - C = the cores of N (cores whose cpuset is inside N's cpuset), in hwloc's logical order,
 *     without the first `reserve` of them (kept for the OS and other work): c = |C| cores;
 *   - the j-th GPU of N in list order (j = 0..m-1) gets the cores C[j*c/m] .. C[(j+1)*c/m - 1]
 *     (integer division), so chunks are contiguous and differ in size by at most one;
 *   - its entry: node = N, ncores = that count, cpuset = the union of those cores' cpusets.
 * A GPU whose node is -1 gets node -1, ncores 0 and an empty cpuset.
 * Returns 0 and fills *plan (plan->n = ngpus; free with nb_plan_free);
 *   -EINVAL: t or plan is NULL, gpus is NULL while ngpus > 0, ngpus > NB_MAX_GPUS, or a GPU's
 *            node is neither -1 nor the OS index of a NUMA node of t;
 *   -ENOSPC: a node has fewer than m cores left after the reserve;
 *   -ENOMEM: out of memory.
 * On failure plan->n is 0 and nothing is left allocated. */
int nb_plan_build(hwloc_topology_t t, const nb_gpu_t *gpus, unsigned ngpus, unsigned reserve,
                  nb_plan_t *plan);

/* Frees the cpusets of a built plan and sets plan->n to 0. NULL is ignored. */
void nb_plan_free(nb_plan_t *plan);

/* Writes the plan as one line per GPU, a command a launcher could run it with:
 *   "gpu 0: node 0, 14 cores: numactl --physcpubind=0-13,112-125 --membind=0\n"
 *   "gpu 1: node unknown, not bound\n"                            (node -1)
 * The PU list is hwloc_bitmap_list_snprintf's form. Returns the length written (without the
 * NUL);
 *   -EINVAL: plan or buf is NULL or size is 0;
 *   -ERANGE: the text needs more than size bytes (buf then holds as much as fits,
 *            NUL-terminated). */
int nb_plan_format(const nb_plan_t *plan, char *buf, size_t size);

#endif
