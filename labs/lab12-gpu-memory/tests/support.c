/* Lab 12 tests: inputs, oracles and checks (see support.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mm_aligned.h"
#include "mm_call.h"
#include "mm_check.h"
#include "support.h"

void *tu_alloc(size_t n)
{
    void *p = mm_aligned_alloc(256, n ? n : 1);
    ck_assert_ptr_nonnull(p);
    return p;
}

void tu_free(void *p)
{
    mm_aligned_free(p);
}

float *tu_floats(mm_rng_t *r, size_t n)
{
    float *v = tu_alloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = (float)mm_rng_range(r, 0, 15);
    return v;
}

float *tu_poisoned(size_t n)
{
    float *v = tu_alloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < (n ? n : 1); i++)
        v[i] = NAN;
    return v;
}

void *tu_device(const void *host, size_t n)
{
    uintptr_t p = (uintptr_t)mm_shared_alloc((n ? n : 1) + 255);
    void *dev = (void *)((p + 255) & ~(uintptr_t)255);
    memcpy(dev, host, n);
    return dev;
}

void tu_transpose(const float *in, float *out, int batch, int rows, int cols)
{
    for (size_t b = 0; b < (size_t)batch; b++)
        for (size_t r = 0; r < (size_t)rows; r++)
            for (size_t c = 0; c < (size_t)cols; c++)
                out[(b * cols + c) * rows + r] = in[(b * rows + r) * cols + c];
}

void tu_row_sums(const float *in, float *out, int rows, int cols)
{
    for (size_t r = 0; r < (size_t)rows; r++) {
        double s = 0.0;
        for (size_t c = 0; c < (size_t)cols; c++)
            s += in[r * cols + c];
        out[r] = (float)s;
    }
}

void tu_gather(const float *table, const int *ids, float *out, int n_ids, int dim)
{
    for (size_t i = 0; i < (size_t)n_ids; i++)
        memcpy(out + i * dim, table + (size_t)ids[i] * dim, (size_t)dim * sizeof *out);
}

kemu_trace_t *tu_trace(size_t cap)
{
    kemu_trace_t *tr = mm_shared_alloc(kemu_trace_bytes(cap));
    tr->cap = cap;
    return tr;
}

void tu_expect_run(int rc, const kemu_stats_t *st, int checked, const char *why,
                   const char *what)
{
    ck_assert_msg(rc == 0 || rc == -EFAULT, "%s: the launch failed (%d): %s", what, rc,
                  st->error);
    ck_assert_msg(checked != -EFAULT,
                  "%s: %s: a GPU would stop it with an illegal-address error", what, why);
    ck_assert_msg(checked == 0, "%s: %s", what, why);
    ck_assert_msg(rc == 0, "%s: the launch failed (%d): %s", what, rc, st->error);
}

void tu_expect_same(const float *dev, const float *want, size_t n, const char *what)
{
    float *got = tu_alloc((n ? n : 1) * sizeof *got);
    memcpy(got, dev, n * sizeof *got);
    size_t i = 0;
    while (i < n && got[i] == want[i])
        i++;
    ck_assert_msg(i == n, "%s: element %zu is %g, expected %g", what, i,
                  (double)(i < n ? got[i] : 0.0f), (double)(i < n ? want[i] : 0.0f));
    tu_free(got);
}
