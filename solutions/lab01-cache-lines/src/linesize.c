/* Lab 01, part C (reference): infer the cache line size from two writers (see linesize.h). */
#include "linesize.h"
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "mm_hw.h"
#include "mm_timer.h"

typedef struct {
    uint64_t *counter;
    uint64_t iters;
    pthread_barrier_t *start;
} writer_t;

/* `iters` atomic adds to *c: each one needs c's line exclusively in this core's cache. */
static void bump(uint64_t *c, uint64_t iters)
{
    for (uint64_t i = 0; i < iters; i++)
        __atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

static void *writer(void *arg)
{
    writer_t *w = arg;
    if (mm_hw_cores() >= 2)
        mm_hw_try_pin(0); /* best effort: unpinned, the two may share a core */
    pthread_barrier_wait(w->start);
    bump(w->counter, w->iters);
    return NULL;
}

/* The calling thread is the second writer, on core 1; it is unpinned again afterwards. */
int cl_pair_run(uint64_t *a, uint64_t *b, uint64_t iters, double *ns_per_op)
{
    if (!a || !b || a == b || !ns_per_op || iters == 0)
        return -EINVAL;
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, 2);
    writer_t w = { a, iters, &start };
    pthread_t t;
    if (pthread_create(&t, NULL, writer, &w) != 0) {
        pthread_barrier_destroy(&start);
        return -EAGAIN;
    }
    if (mm_hw_cores() >= 2)
        mm_hw_try_pin(1);
    pthread_barrier_wait(&start);
    uint64_t t0 = mm_now_ns();
    bump(b, iters);
    pthread_join(t, NULL);
    *ns_per_op = (double)(mm_now_ns() - t0) / (double)iters;
    mm_hw_unpin();
    pthread_barrier_destroy(&start);
    return 0;
}

static int bad_distance(size_t d)
{
    return d < 8 || d > CL_MAX_DISTANCE || d % 8 != 0;
}

int cl_sweep(const size_t *distance, size_t n, uint64_t iters, double *ns)
{
    if (!distance || !ns || n == 0 || iters == 0)
        return -EINVAL;
    for (size_t i = 0; i < n; i++)
        if (bad_distance(distance[i]))
            return -EINVAL;
    void *buf = NULL;
    if (posix_memalign(&buf, 4096, 2 * CL_MAX_DISTANCE) != 0)
        return -ENOMEM;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        memset(buf, 0, 2 * CL_MAX_DISTANCE);
        uint64_t *a = buf;
        rc = cl_pair_run(a, a + distance[i] / 8, iters, &ns[i]);
    }
    free(buf);
    return rc;
}

int cl_infer_line_size(const size_t *distance, const double *ns, size_t n, size_t *line)
{
    if (!distance || !ns || !line || n < 2)
        return -EINVAL;
    double max = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(ns[i] > 0) || (i > 0 && distance[i] <= distance[i - 1]))
            return -EINVAL;
        if (ns[i] > max)
            max = ns[i];
    }
    double far = ns[n - 1];
    if (max < 1.5 * far)
        return -ENODATA;
    double cut = far + (max - far) / 2;
    size_t i = n - 1;
    while (i > 0 && ns[i - 1] < cut)
        i--;
    *line = distance[i];
    return 0;
}
