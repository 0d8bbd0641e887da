/* Lab {{N}} benchmark: your {{ID}}_sum against a walk of the same matrix column by column, timed
 * in the same run, round by round (common/mm_bench.h), here, in the harness: your code runs in a
 * process of its own (common/harness/mm_call.h), the matrix is in memory both share, and the
 * column walk counts only if your process stayed idle meanwhile. Prints one JSON object; the
 * grader scores it with lab.toml's thresholds. TODO(course): your lab's metrics. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "mm_bench.h"
#include "mm_call.h"
#include "{{ID}}.h"

#define ROWS 2048
#define COLS 2048 /* 16 MiB of floats: more than the caches hold */
#define REPS 11
#define WARMUP 1

typedef struct {
    const float *m;
    double sum;
    int rc;
    mm_idle_t idle; /* your process's CPU time while the baseline ran */
} sum_case_t;

/* The baseline: element (i, j) after (i - 1, j), a stride of COLS floats, a new line each time. */
static void run_columns(void *p)
{
    sum_case_t *c = p;
    double s = 0.0;
    mm_idle_start(&c->idle);
    for (size_t j = 0; j < COLS; j++)
        for (size_t i = 0; i < ROWS; i++)
            s += c->m[i * COLS + j];
    mm_idle_stop(&c->idle);
    c->sum = s;
    c->rc = 0;
}

static void run_yours(void *p)
{
    sum_case_t *c = p;
    c->rc = {{ID}}_sum(c->m, ROWS, COLS, &c->sum);
}

static void bench_sum(mm_json_t *j, const float *m)
{
    sum_case_t base = { m, 0, 0, { 0 } }, yours = { m, 0, 0, { 0 } };
    mm_bench_case_t cb = { "column order", run_columns, &base },
                    cy = { "yours", run_yours, &yours };
    double ratio, t_base, t_yours;
    run_yours(&yours);
    if (yours.rc != 0) {
        mm_bench_failf(j, "sum_speedup", "{{ID}}_sum returned %d (%s)", yours.rc,
                       strerror(yours.rc < 0 ? -yours.rc : EINVAL));
        return;
    }
    if (mm_bench_paired_ratio(&cb, &cy, WARMUP, REPS, &ratio, &t_base, &t_yours) != 0) {
        mm_bench_fail(j, "sum_speedup", "could not time the rounds (out of memory)");
        return;
    }
    if (yours.rc != 0 || yours.sum != base.sum) {
        mm_bench_failf(j, "sum_speedup", "{{ID}}_sum gave %.17g, the column walk %.17g",
                       yours.sum, base.sum);
        return;
    }
    char why[256];
    if (!mm_idle_ok(&base.idle, why, sizeof why)) {
        mm_bench_skip(j, "sum_speedup", why);
        return;
    }
    mm_bench_speedup(j, "sum_speedup", ratio, "column order", t_base, t_yours, REPS,
                     "a %d x %d float matrix", ROWS, COLS);
}

int main(void)
{
    mm_json_t j;
    mm_bench_open(&j, "{{N}}");
    int rc = mm_call_setup();
    float *m = rc == 0 ? mm_shared_alloc((size_t)ROWS * COLS * sizeof *m) : NULL;
    if (!m) {
        mm_bench_failf(&j, "sum_speedup", "cannot start the program that runs your code: %s",
                       strerror(-rc));
    } else {
        for (size_t k = 0; k < (size_t)ROWS * COLS; k++)
            m[k] = (float)(k % 251);
        bench_sum(&j, m);
    }
    mm_bench_end_metrics(&j);
    mm_json_object(&j, "info");
    mm_json_int(&j, "matrix_mib", (long long)((size_t)ROWS * COLS * sizeof(float) >> 20));
    mm_json_end(&j);
    return 0;
}
