/* Lab 10's workloads, run in the student's process (requests in rl_serve.h): the serving thread
 * pinned to a core, and one kernel under the page tracer. The harness times nothing here; what
 * "passes" reports it bounds and checks (bench/passes.c). */
#include "rl_serve.h"
#include <errno.h>
#include <string.h>
#include "kernels.h"
#include "mm_hw.h"
#include "pagetrace.h"

/* Workload "pin" (rl_pin_in_t in, nothing out). Returns 0, -EINVAL for a bad request, or the
 * pin's error. */
int serve_pin(const void *in, size_t in_len, void *out, size_t out_len)
{
    (void)out, (void)out_len;
    rl_pin_in_t req;
    if (in_len != sizeof req)
        return -EINVAL;
    memcpy(&req, in, sizeof req);
    mm_hw_try_pin(req.core);
    return mm_hw_pin_failed();
}

static int call(const rl_passes_in_t *q)
{
    const float *x = (const float *)(uintptr_t)q->x, *vec = (const float *)(uintptr_t)q->vec;
    const float *g = (const float *)(uintptr_t)q->gamma, *b = (const float *)(uintptr_t)q->beta;
    float *y = (float *)(uintptr_t)q->y;
    switch (q->kernel) {
    case RL_PASS_GEMV: return rl_gemv(x, q->rows, q->cols, vec, y);
    case RL_PASS_SOFTMAX: return rl_softmax(x, q->rows, q->cols, y);
    default: return rl_layernorm(x, q->rows, q->cols, g, b, 1e-5f, y);
    }
}

/* Workload "passes" (rl_passes_in_t in, rl_passes_out_t out). Returns 0 with the kernel's code
 * and the trace's counts in out, -EINVAL for a bad request, or the tracer's error (-errno). */
int serve_passes(const void *in, size_t in_len, void *out, size_t out_len)
{
    rl_passes_in_t q;
    if (in_len != sizeof q || out_len != sizeof(rl_passes_out_t))
        return -EINVAL;
    memcpy(&q, in, sizeof q);
    if (q.kernel >= RL_PASS_KERNELS || !q.rows || !q.cols)
        return -EINVAL;
    size_t bytes = (size_t)q.rows * q.cols * sizeof(float);
    pt_region_t reg[2] = { { (char *)(uintptr_t)q.x, bytes }, { (char *)(uintptr_t)q.y, bytes } };
    pt_stats_t st = { 0 };
    int rc = pt_begin(reg, q.kernel == RL_PASS_GEMV ? 1 : 2, q.window_bytes, q.cap_faults);
    if (rc != 0)
        return rc;
    rl_passes_out_t r = { .rc = call(&q) };
    pt_end(&st);
    r.capped = st.capped;
    r.page = pt_page();
    r.pages = st.pages;
    r.faults = st.faults;
    r.touched = st.touched;
    memcpy(out, &r, sizeof r);
    return 0;
}
