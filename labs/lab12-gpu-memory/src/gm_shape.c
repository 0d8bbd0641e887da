/* Lab 12: the gather's grid, which the launcher (launch.c) and the grader's trace checker
 * (gm_check.c) both need: apart from the launchers, which run the student's kernels and so are
 * never linked into the grader. Provided: not yours to edit. */
#include "gpu_memory.h"

unsigned gm_gather_blocks(int n_ids, int dim)
{
    long long n = (long long)n_ids * dim, b = (n + GM_GATHER_THREADS - 1) / GM_GATHER_THREADS;
    return b < 1 ? 1u : b > GM_GATHER_MAX_BLOCKS ? GM_GATHER_MAX_BLOCKS : (unsigned)b;
}
