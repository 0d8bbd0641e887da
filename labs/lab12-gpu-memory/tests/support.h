/* Lab 12 tests: inputs, oracles and the checks every kernel test makes; none of it calls the
 * code under test. The kernels run on the emulator in the student's process: their buffers
 * (device memory) are memory both processes share; inputs and oracles are made here first, in
 * this process's own memory, and the output is copied out of the shared buffer to be checked. */
#ifndef TU_SUPPORT_H
#define TU_SUPPORT_H
#include <stddef.h>
#include "gm_check.h"
#include "kemu.h"
#include "mm_rng.h"

/* This process's memory: n bytes (at least one); release with tu_free. Fails the test if it
 * cannot allocate. */
void *tu_alloc(size_t n);
void tu_free(void *p);
/* n floats (at least one), whole numbers 0..15, so that any order of adding up to 2^20 of them
 * gives the same float; tu_free() it. */
float *tu_floats(mm_rng_t *r, size_t n);
/* n floats (at least one) set to NaN: an oracle's buffer, or with tu_device an output, where an
 * element the kernel never writes shows. */
float *tu_poisoned(size_t n);

/* Device-like memory for a kernel: a copy of host[0..n) in memory shared with the student's
 * process, 256-byte aligned as cudaMalloc's (the emulator's sector counts depend on it). Never
 * NULL (the test fails instead); freed with the test's student process. */
void *tu_device(const void *host, size_t n);

/* The oracles: out[b][c][r] = in[b][r][c]; the sum of each row; out[i][j] = table[ids[i]][j]. */
void tu_transpose(const float *in, float *out, int batch, int rows, int cols);
void tu_row_sums(const float *in, float *out, int rows, int cols);
void tu_gather(const float *table, const int *ids, float *out, int n_ids, int dim);

/* An empty trace with room for cap events, in memory shared with the student's process (the
 * emulator there appends to it); freed with the test's student process. */
kemu_trace_t *tu_trace(size_t cap);

/* Fails the test unless a launch returned 0 (rc, with the emulator's words st->error otherwise)
 * and the grader's check of its trace (checked: gm_check_*'s result, why its words) found a
 * complete, consistent run that touched only its buffers and stored all of its output. The
 * launch's result and st are the student's process's report: only a failure is taken from them.
 * `what` names the case. */
void tu_expect_run(int rc, const kemu_stats_t *st, int checked, const char *why,
                   const char *what);
/* Fails the test at the first of n elements where the kernel's output `dev` (shared memory,
 * copied here first) differs from want (NaN never equal). */
void tu_expect_same(const float *dev, const float *want, size_t n, const char *what);

#endif
