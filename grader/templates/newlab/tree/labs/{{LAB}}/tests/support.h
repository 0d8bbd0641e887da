/* Lab {{N}} tests: shared helpers and the oracle, which never call the code under test. */
#ifndef TU_SUPPORT_H
#define TU_SUPPORT_H
#include <stddef.h>
#include "mm_rng.h"

/* A rows x cols row-major matrix (at least one float) of whole numbers 0..255, so that any order
 * of adding them gives the same double; free() it. Fails the test if it cannot allocate. */
float *tu_matrix(mm_rng_t *r, size_t rows, size_t cols);

/* The sum of the matrix's elements, one by one. */
double tu_sum(const float *m, size_t rows, size_t cols);

#endif
