/* Lab 05 benchmark: the GPU half (bench_gpu.c) and what the two halves share. */
#ifndef PT_BENCH_GPU_H
#define PT_BENCH_GPU_H
#include <stddef.h>
#include <stdint.h>
#include "mm_json.h"
#include "plan.h"

#define MIB ((size_t)1 << 20)
#define BUDGET (64 * MIB)  /* slot memory a plan may use */
#define WORD sizeof(uint32_t)
#define BW_SIZES 11        /* bandwidth series: 64 KiB .. 64 MiB */

typedef struct {
    int n;
    size_t bytes[BW_SIZES];
    double ratio[BW_SIZES]; /* pinned / pageable H2D at each size */
} gpu_series_t;

/* Why the plan cannot be used as it is (coverage, budget, waits), or NULL if it can. */
const char *plan_problem(const pt_plan_t *p, size_t total, size_t budget);

/* Your request (pt_plan_choose) and plan for `total` bytes of words: *plan as your process
 * made it (its chunks are that process's: pt_plan_free it), *mine the same with the chunks
 * read into this process (free mine->chunks), checked with plan_problem. Returns 0; otherwise
 * the metric `name` has been reported as failed and nothing is left to free. */
int student_plan(mm_json_t *j, const char *name, size_t total, pt_plan_req_t *req,
                 pt_plan_t *plan, pt_plan_t *mine);

/* Reports pinned_vs_pageable, pinned_vs_reference_copy and overlap_efficiency, and fills *s for
 * the plot; without nvcc or without a usable GPU it reports them skipped, with the reason. */
void bench_gpu(mm_json_t *j, gpu_series_t *s);

/* Writes the "bandwidth" series (inside "series"), if there is one. */
void gpu_series(mm_json_t *j, const gpu_series_t *s);

#endif
