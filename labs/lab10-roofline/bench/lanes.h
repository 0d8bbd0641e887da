/* Lab 10 benchmark: the simd_reductions metric, how many of the three scored kernels (GEMV,
 * softmax, LayerNorm) have a loop that accumulates in packed registers (simdscan.h), read from the
 * listing of your compiled code that the build copies into the benchmark (lab.mk). */
#ifndef RL_LANES_H
#define RL_LANES_H
#include "mm_bench.h"

/* Writes simd_reductions into j's "metrics", with each kernel's finding in its detail. Runs none
 * of your code: the benchmark calls it first. */
void sl_report(mm_json_t *j);

#endif
