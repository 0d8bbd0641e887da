/* Lab 04 benchmark: what its two files share (bench_lab04.c: plan_score and main; two_nodes.c:
 * the metrics that need two NUMA nodes). */
#ifndef BENCH04_H
#define BENCH04_H
#include <hwloc.h>
#include "mm_bench.h"
#include "plan.h"

/* The GPUs of a topology as hwloc itself places them: node[i] is GPU i's NUMA node, or -1 when
 * its nearest non-I/O ancestor spans several nodes. */
typedef struct {
    unsigned n;
    int node[NB_MAX_GPUS];
} truth_t;

void find_truth(hwloc_topology_t t, truth_t *tr);

/* A copy here of a bitmap of your process (a plan's cpuset), or NULL (none, or unreadable).
 * Free it. */
hwloc_bitmap_t fetch_set(hwloc_const_bitmap_t there);

/* The three two-node metrics of this machine, or each one skipped or failed with the reason. */
void bench_machine(mm_json_t *j);

/* Inside the report's "info" object: the NUMA nodes and what bench_machine measured. */
void write_machine_info(mm_json_t *j);

#endif
