/* Lab 01's workloads, run in the student's process (calls.toml's [[workload]]s; requests in
 * cl_work.h): threads that bump the student's counters, or feed its accumulator, all at once.
 * What they leave behind (totals, the accumulator's result) the harness reads and checks; how
 * long they take it times from outside. */
#include "cl_work.h"
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include "mm_hw.h"
#include "stats.h"

typedef struct {
    const void *req; /* cl_bump_in_t or cl_feed_in_t */
    unsigned t;
} job_t;

static void *bump_thread(void *p)
{
    const job_t *j = p;
    const cl_bump_in_t *in = j->req;
    if (in->flags & CL_WORK_PIN)
        mm_hw_try_pin(j->t);
    cl_bump_loop((uint64_t *)(uintptr_t)in->slot[j->t], in->times[j->t],
                 in->flags & CL_WORK_ATOMIC);
    return NULL;
}

static void *feed_thread(void *p)
{
    const job_t *j = p;
    const cl_feed_in_t *in = j->req;
    if (in->flags & CL_WORK_PIN)
        mm_hw_try_pin(j->t);
    size_t n = (size_t)in->n, lo = n * j->t / in->workers, hi = n * (j->t + 1) / in->workers;
    cl_feed_loop(cl_accum_add, (cl_accum_t *)(uintptr_t)in->acc, j->t,
                 (const float *)(uintptr_t)in->x, lo, hi);
    return NULL;
}

/* Runs fn on n threads (job t: thread t) and joins them. Returns 0, or -EAGAIN when one cannot
 * start (those started are joined first). */
static int run_threads(void *(*fn)(void *), const void *req, unsigned n)
{
    pthread_t tid[CL_WORK_MAX_THREADS];
    job_t job[CL_WORK_MAX_THREADS];
    unsigned started = 0;
    for (; started < n; started++) {
        job[started] = (job_t){ req, started };
        if (pthread_create(&tid[started], NULL, fn, &job[started]) != 0)
            break;
    }
    for (unsigned t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    return started == n ? 0 : -EAGAIN;
}

/* Workload "bump" (cl_bump_in_t in, nothing out). Returns 0, -EINVAL for a bad request, or
 * -EAGAIN when a thread cannot start. */
int serve_bump(const void *in, size_t in_len, void *out, size_t out_len)
{
    (void)out, (void)out_len;
    cl_bump_in_t req;
    if (in_len != sizeof req)
        return -EINVAL;
    memcpy(&req, in, sizeof req);
    if (req.n == 0 || req.n > CL_WORK_MAX_THREADS)
        return -EINVAL;
    return run_threads(bump_thread, &req, req.n);
}

/* Workload "feed" (cl_feed_in_t in, nothing out). Returns 0, -EINVAL for a bad request, or
 * -EAGAIN when a thread cannot start. */
int serve_feed(const void *in, size_t in_len, void *out, size_t out_len)
{
    (void)out, (void)out_len;
    cl_feed_in_t req;
    if (in_len != sizeof req)
        return -EINVAL;
    memcpy(&req, in, sizeof req);
    if (req.workers == 0 || req.workers > CL_WORK_MAX_THREADS)
        return -EINVAL;
    return run_threads(feed_thread, &req, req.workers);
}
