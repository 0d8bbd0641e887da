/* Lab {{N}} tests: {{ID}}_sum against the oracle of tests/support.c. Each MM_TEST registers itself;
 * its points are in lab.toml. TODO(course): your lab's tests. */
#include <errno.h>
#include <stdlib.h>
#include "mm_check.h"
#include "support.h"
#include "{{ID}}.h"

MM_TEST(test_sum_matches_oracle)
{
    static const size_t shapes[][2] = { { 1, 1 }, { 3, 5 }, { 257, 129 }, { 0, 7 } };
    mm_rng_t r = MM_RNG();
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        size_t rows = shapes[k][0], cols = shapes[k][1];
        float *m = tu_matrix(&r, rows, cols);
        double got = -1.0;
        MM_ASSERT_OK({{ID}}_sum(m, rows, cols, &got));
        ck_assert_msg(got == tu_sum(m, rows, cols), "%zu x %zu: sum %.17g, expected %.17g",
                      rows, cols, got, tu_sum(m, rows, cols));
        free(m);
    }
    MM_ASSERT_ERR({{ID}}_sum(NULL, 2, 2, &(double){ 0 }), -EINVAL);
}
MM_END_TEST
