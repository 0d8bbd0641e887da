/* Lab 12 benchmark: the kernels' inputs and oracles (cases.h). */
#include "cases.h"
#include <string.h>

void bench_fill(float *v, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        v[i] = (float)((i * 2654435761u + seed) % 16);
}

void oracle_transpose(const float *in, float *want, size_t batch, size_t rows, size_t cols)
{
    for (size_t m = 0; m < batch; m++)
        for (size_t r = 0; r < rows; r++)
            for (size_t c = 0; c < cols; c++)
                want[(m * cols + c) * rows + r] = in[(m * rows + r) * cols + c];
}

void oracle_row_sum(const float *in, float *want, size_t rows, size_t cols)
{
    for (size_t r = 0; r < rows; r++) {
        double s = 0;
        for (size_t c = 0; c < cols; c++)
            s += in[r * cols + c];
        want[r] = (float)s;
    }
}

void gather_case(const float *table, size_t vocab, size_t dim, int *ids, size_t n_ids,
                 float *want)
{
    for (size_t i = 0; i < n_ids; i++) {
        ids[i] = (int)((i * 7919u + 13u) % vocab);
        memcpy(want + i * dim, table + (size_t)ids[i] * dim, dim * sizeof(float));
    }
}
