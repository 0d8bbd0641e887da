/* Lab {{N}} tests: shared helpers and the oracle (see support.h). */
#include <stdlib.h>
#include "mm_check.h"
#include "support.h"

float *tu_matrix(mm_rng_t *r, size_t rows, size_t cols)
{
    size_t n = rows * cols;
    float *m = malloc((n ? n : 1) * sizeof *m);
    ck_assert_ptr_nonnull(m);
    for (size_t i = 0; i < n; i++)
        m[i] = (float)mm_rng_range(r, 0, 255);
    return m;
}

double tu_sum(const float *m, size_t rows, size_t cols)
{
    double s = 0.0;
    for (size_t k = 0; k < rows * cols; k++)
        s += m[k];
    return s;
}
