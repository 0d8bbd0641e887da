/* Lab 10 reference, Parts A and B: exact costs, the roofline model, STREAM's summary. */
#include <errno.h>
#include <math.h>
#include "roofline.h"

/* a * b into *out, or false when it does not fit in uint64_t. */
static int mul_ok(uint64_t a, uint64_t b, uint64_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}

/* *acc += a * b, or false on overflow. */
static int mac_ok(uint64_t *acc, uint64_t a, uint64_t b)
{
    uint64_t p;
    return mul_ok(a, b, &p) && !__builtin_add_overflow(*acc, p, acc);
}

int rl_cost_embedding_bag(size_t bags, size_t bag_size, size_t dim, rl_cost_t *c)
{
    uint64_t lookups, flops, bytes = 0;
    if (!c || !bags || !bag_size || !dim)
        return -EINVAL;
    if (!mul_ok(bags, bag_size, &lookups) || !mul_ok(lookups, dim, &flops) ||
        !mac_ok(&bytes, lookups, 4) || !mac_ok(&bytes, flops, 4) ||
        !mac_ok(&bytes, (uint64_t)bags * dim, 4)) /* bags * dim <= flops: it fits */
        return -EOVERFLOW;
    *c = (rl_cost_t){ flops, bytes };
    return 0;
}

int rl_cost_gemv(size_t m, size_t n, rl_cost_t *c)
{
    uint64_t mn, flops, bytes = 0;
    if (!c || !m || !n)
        return -EINVAL;
    if (!mul_ok(m, n, &mn) || !mul_ok(mn, 2, &flops) || !mac_ok(&bytes, mn, 4) ||
        !mac_ok(&bytes, n, 4) || !mac_ok(&bytes, m, 4))
        return -EOVERFLOW;
    *c = (rl_cost_t){ flops, bytes };
    return 0;
}

/* rows x cols elements at per_elem FLOPs each plus per_row per row, and the bytes of `mats`
 * rows x cols matrices plus `vecs` vectors of cols floats. */
static int rowwise_cost(size_t rows, size_t cols, unsigned per_elem, unsigned per_row,
                        unsigned mats, unsigned vecs, rl_cost_t *c)
{
    uint64_t rc, flops = 0, bytes = 0;
    if (!c || !rows || !cols)
        return -EINVAL;
    if (!mul_ok(rows, cols, &rc) || !mac_ok(&flops, rc, per_elem) ||
        !mac_ok(&flops, rows, per_row) || !mac_ok(&bytes, rc, 4u * mats) ||
        !mac_ok(&bytes, cols, 4u * vecs))
        return -EOVERFLOW;
    *c = (rl_cost_t){ flops, bytes };
    return 0;
}

int rl_cost_softmax(size_t rows, size_t cols, rl_cost_t *c)
{
    return rowwise_cost(rows, cols, 5, 1, 2, 0, c);
}

int rl_cost_layernorm(size_t rows, size_t cols, rl_cost_t *c)
{
    return rowwise_cost(rows, cols, 7, 7, 2, 2, c);
}

/* A ceiling the model can use: a finite number > 0. */
static int ceiling_ok(double v)
{
    return isfinite(v) && v > 0.0;
}

static int roof_ok(const rl_roof_t *roof)
{
    return roof && ceiling_ok(roof->peak_gflops) && ceiling_ok(roof->peak_gbs);
}

int rl_intensity(rl_cost_t c, double *fpb)
{
    if (!fpb || c.bytes == 0)
        return -EINVAL;
    *fpb = (double)c.flops / (double)c.bytes;
    return 0;
}

int rl_ridge(const rl_roof_t *roof, double *ridge)
{
    if (!roof_ok(roof) || !ridge)
        return -EINVAL;
    *ridge = roof->peak_gflops / roof->peak_gbs;
    return 0;
}

int rl_attainable(const rl_roof_t *roof, double fpb, double *gflops)
{
    if (!roof_ok(roof) || !gflops || !isfinite(fpb) || fpb < 0.0)
        return -EINVAL;
    *gflops = fmin(roof->peak_gflops, roof->peak_gbs * fpb);
    return 0;
}

int rl_predict_ns(const rl_roof_t *roof, rl_cost_t c, double *ns)
{
    if (!roof_ok(roof) || !ns)
        return -EINVAL;
    *ns = fmax((double)c.flops / roof->peak_gflops, (double)c.bytes / roof->peak_gbs);
    return 0;
}

int rl_stream_bytes(rl_stream_op_t op, size_t n, size_t elem_size, uint64_t *bytes)
{
    uint64_t arrays, per_array;
    switch (op) {
    case RL_COPY:
    case RL_SCALE: arrays = 2; break;
    case RL_ADD:
    case RL_TRIAD: arrays = 3; break;
    default: return -EINVAL;
    }
    if (!bytes || !n || !elem_size)
        return -EINVAL;
    if (!mul_ok(n, elem_size, &per_array) || !mul_ok(per_array, arrays, &per_array))
        return -EOVERFLOW;
    *bytes = per_array;
    return 0;
}

int rl_stream_summary(const double *secs, int ntimes, uint64_t bytes, rl_stream_row_t *row)
{
    double sum = 0.0, lo = INFINITY, hi = 0.0;
    if (!secs || !row || ntimes < 2 || bytes == 0)
        return -EINVAL;
    for (int k = 1; k < ntimes; k++) {
        if (!ceiling_ok(secs[k]))
            return -EINVAL;
        sum += secs[k];
        lo = fmin(lo, secs[k]);
        hi = fmax(hi, secs[k]);
    }
    *row = (rl_stream_row_t){ 1e-6 * (double)bytes / lo, sum / (ntimes - 1), lo, hi };
    return 0;
}
