/* Lab 12 tests: inputs, oracles and the checks every kernel test makes; none of it calls the
 * code under test. */
#ifndef TU_SUPPORT_H
#define TU_SUPPORT_H
#include <stddef.h>
#include "kemu.h"
#include "mm_rng.h"

/* Device-like memory: n bytes (at least one) aligned to 256 bytes, as cudaMalloc's are; release
 * with tu_free. Fails the test if it cannot allocate. */
void *tu_alloc(size_t n);
void tu_free(void *p);
/* n floats (at least one), whole numbers 0..15, so that any order of adding up to 2^20 of them
 * gives the same float; tu_free() it. Fails the test if it cannot allocate. */
float *tu_floats(mm_rng_t *r, size_t n);
/* n floats (at least one) set to NaN, for an output: an element the kernel never writes shows. */
float *tu_poisoned(size_t n);

/* The oracles: out[b][c][r] = in[b][r][c]; the sum of each row; out[i][j] = table[ids[i]][j]. */
void tu_transpose(const float *in, float *out, int batch, int rows, int cols);
void tu_row_sums(const float *in, float *out, int rows, int cols);
void tu_gather(const float *table, const int *ids, float *out, int n_ids, int dim);

/* Fails the test unless a launch returned 0 (with the emulator's words otherwise), touched only
 * its buffers, and wrote all of its output through recorded stores. `what` names the case. */
void tu_expect_run(int rc, const kemu_stats_t *st, const char *what);
/* Fails the test at the first of n elements where got differs from want (NaN never equal). */
void tu_expect_same(const float *got, const float *want, size_t n, const char *what);

#endif
