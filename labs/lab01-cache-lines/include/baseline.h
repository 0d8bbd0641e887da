/* Lab 01: the naive versions the benchmark compares your code against (src/baseline.c; do not
 * edit: the grader uses its own copy). They are correct, and slow for the reason this lab is about. */
#ifndef CL_BASELINE_H
#define CL_BASELINE_H
#include <stdint.h>
#include "stats.h"

/* Counters packed side by side (8 bytes apart): slot(tid) = base + tid. Returns NULL on error. */
uint64_t *cl_packed_counters_create(unsigned nthreads);
void cl_packed_counters_destroy(uint64_t *c);

/* The accumulator of stats.h with the workers' partials in one packed array (32 bytes apart,
 * from a 64-byte boundary, so two workers share each line):
 * the version that looks right and false-shares. Same contracts as cl_accum_*; `line` is only
 * validated. */
int cl_packed_accum_create(cl_accum_t **out, unsigned nworkers, size_t line);
void cl_packed_accum_add(cl_accum_t *a, unsigned w, float x);
int cl_packed_accum_result(const cl_accum_t *a, cl_stats_t *out);
void cl_packed_accum_destroy(cl_accum_t *a);

#endif
