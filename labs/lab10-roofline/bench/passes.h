/* Lab 10 benchmark: "one pass over DRAM", counted. Each scored kernel runs once on a tensor of
 * PS_ROWS rows of PS_COLS floats (4 MiB) whose pages are traced (serve/pagetrace.h) through a
 * model cache of PS_WINDOW bytes, smaller than any current core's L2; the metric is the kernel's
 * page entries over the traced pages: 1.0 when each page of the input and the output enters the
 * cache once, 2.0 for a kernel that sweeps the tensor twice. GEMV's A is traced; softmax's and
 * LayerNorm's x and y. The same count on every machine, under any load.
 *
 * The trace counts protection faults, so it runs in the process that runs the kernel: the
 * student's (the workload "passes", serve/rl_serve.c). Its counts are that process's word, so
 * the metrics are worth no points (lab.toml): they show a student what the timed metrics
 * cannot, and the grade rests on those. The benchmark still checks the kernel's output from its
 * own copy of the inputs, and refuses counts no run of the kernel can give (fewer page entries
 * than the tensor's pages, pages untouched, more than the cap without the cap reached, another
 * page size). */
#ifndef RL_PASSES_H
#define RL_PASSES_H
#include "mm_bench.h"

#define PS_ROWS 256
#define PS_COLS 4096
#define PS_WINDOW (256 * 1024)
#define PS_CAP 4 /* passes: past this many the trace stops counting */

/* Writes the metrics gemv_passes, softmax_passes and layernorm_passes into j's "metrics": each
 * kernel's passes, or a failure with the reason (an error code, a wrong output, pages of the
 * tensor never touched, impossible counts, or a trace that could not start). Calls the
 * student's kernels through the workload "passes". */
void ps_report(mm_json_t *j);

#endif
