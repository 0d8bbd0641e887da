/* Lab 10: spot checks of the kernels' outputs against the tests' oracles (see verify.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "../tests/oracle.h"
#include "measure.h"
#include "verify.h"

#define REL 1e-3

/* got[0..n) against want (error scale `scale`, or |want| + 1e-3 absolute when NULL): 0, or 1
 * with *miss at the first element out of tolerance (its row `row`). */
static int compare(const float *got, const double *want, const double *scale, size_t n,
                   size_t row, vf_miss_t *miss)
{
    for (size_t k = 0; k < n; k++) {
        double tol = scale ? REL * scale[k] : REL * fabs(want[k]) + 1e-6;
        if (!(fabs(got[k] - want[k]) <= tol)) {
            *miss = (vf_miss_t){ row, got[k], want[k] };
            return 1;
        }
    }
    return 0;
}

static size_t pick(mm_rng_t *r, size_t n)
{
    return (size_t)mm_rng_range(r, 0, n - 1);
}

/* Room for one row's inputs (n floats), outputs and their scales (2 n doubles): one block,
 * free() it; NULL when out of memory. */
typedef struct {
    double *want, *scale;
    float *in;
} row_t;

static int row_alloc(row_t *w, size_t n)
{
    w->want = malloc(n * (2 * sizeof(double) + sizeof(float)));
    w->scale = w->want ? w->want + n : NULL;
    w->in = w->want ? (float *)(w->want + 2 * n) : NULL;
    return w->want ? 0 : -ENOMEM;
}

/* b[at .. at + n), regenerated (measure.h) into in[]. */
static void input(float *in, size_t at, size_t n)
{
    for (size_t j = 0; j < n; j++)
        in[j] = ms_b_value(at + j);
}

int vf_gemv(size_t first, size_t m, size_t n, const float *x, const float *y, mm_rng_t *r,
            int checks, vf_miss_t *miss)
{
    row_t w;
    int bad = row_alloc(&w, n);
    for (int c = 0; c < checks && !bad; c++) {
        size_t i = pick(r, m);
        input(w.in, first + i * n, n);
        tu_gemv_oracle(w.in, 1, n, x, w.want, w.scale);
        bad = compare(y + i, w.want, w.scale, 1, i, miss);
    }
    free(w.want);
    return bad;
}

int vf_softmax(size_t first, size_t rows, size_t cols, const float *y, mm_rng_t *r, int checks,
               vf_miss_t *miss)
{
    row_t w;
    int bad = row_alloc(&w, cols);
    for (int c = 0; c < checks && !bad; c++) {
        size_t i = pick(r, rows);
        input(w.in, first + i * cols, cols);
        tu_softmax_oracle(w.in, 1, cols, w.want);
        bad = compare(y + i * cols, w.want, NULL, cols, i, miss);
    }
    free(w.want);
    return bad;
}

int vf_layernorm(size_t first, size_t rows, size_t cols, const float *gamma, const float *beta,
                 float eps, const float *y, mm_rng_t *r, int checks, vf_miss_t *miss)
{
    row_t w;
    int bad = row_alloc(&w, cols);
    for (int c = 0; c < checks && !bad; c++) {
        size_t i = pick(r, rows);
        input(w.in, first + i * cols, cols);
        tu_layernorm_oracle(w.in, 1, cols, gamma, beta, eps, w.want, w.scale);
        bad = compare(y + i * cols, w.want, w.scale, cols, i, miss);
    }
    free(w.want);
    return bad;
}

int vf_embedding_bag(size_t dim, const int32_t *idx, size_t bags, size_t bag_size,
                     const float *out, mm_rng_t *r, int checks, vf_miss_t *miss)
{
    row_t w;
    float *table = malloc(bag_size * dim * sizeof *table); /* the bag's rows, in its order */
    int32_t *local = malloc(bag_size * sizeof *local);
    int bad = table && local ? row_alloc(&w, dim) : -ENOMEM;
    if (bad) {
        free(table);
        free(local);
        return bad;
    }
    for (int c = 0; c < checks && !bad; c++) {
        size_t b = pick(r, bags);
        for (size_t k = 0; k < bag_size; k++) {
            input(table + k * dim, (size_t)idx[b * bag_size + k] * dim, dim);
            local[k] = (int32_t)k;
        }
        tu_embedding_bag_oracle(table, dim, local, 1, bag_size, w.want, w.scale);
        bad = compare(out + b * dim, w.want, w.scale, dim, b, miss);
    }
    free(w.want);
    free(table);
    free(local);
    return bad;
}
