/* Lab {{N}} — {{TITLE}}: the reference. The contract is in include/{{ID}}.h. */
#include <errno.h>
#include "{{ID}}.h"

int {{ID}}_sum(const float *m, size_t rows, size_t cols, double *sum)
{
    if (!sum || (rows > 0 && cols > 0 && !m))
        return -EINVAL;
    double s = 0.0;
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++)
            s += m[i * cols + j];
    *sum = s;
    return 0;
}
