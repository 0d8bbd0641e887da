/* Lab 01 tests, part C: the two-writer experiment and line-size inference. The student's code
 * runs in a process of its own: cl_pair_run's counters are memory both processes share
 * (mm_shared_alloc), which the third writer of test_pair_run_atomic, a thread of this process,
 * adds to as well. */
#include <errno.h>
#include <pthread.h>
#include "linesize.h"
#include "mm_call.h"
#include "mm_check.h"

enum { NDIST = 9 }; /* 8, 16, ..., 2048 bytes */

/* A synthetic sweep for a machine whose line is `line` bytes: slow (2..5 x, noisy) below the line,
 * about 1 x at and above it. */
static void synthetic(mm_rng_t *r, size_t line, size_t *dist, double *ns)
{
    double base = 1.0 + 4.0 * mm_rng_unit(r), slow = 2.0 + 3.0 * mm_rng_unit(r);
    for (size_t i = 0; i < NDIST; i++) {
        dist[i] = (size_t)8 << i;
        double noise = 1.0 + 0.2 * (mm_rng_unit(r) - 0.5);
        ns[i] = base * noise * (dist[i] < line ? slow : 1.0);
    }
}

MM_TEST(test_infer_synthetic)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 200; round++) {
        size_t line = (size_t)16 << mm_rng_range(&r, 0, 5), dist[NDIST], got = 0;
        double ns[NDIST];
        synthetic(&r, line, dist, ns);
        ck_assert_msg(cl_infer_line_size(dist, ns, NDIST, &got) == 0, "inference failed (line %zu)",
                      line);
        ck_assert_msg(got == line, "inferred %zu, the sweep was made for a %zu-byte line", got, line);
    }
}
MM_END_TEST

MM_TEST(test_infer_midpoint_rule)
{
    size_t dist[5] = { 8, 16, 32, 64, 128 }, got = 0;
    double ns[5] = { 10.0, 9.0, 5.4, 5.6, 2.0 }; /* max 10, far 2: cut 6 -> 32 */
    MM_ASSERT_OK(cl_infer_line_size(dist, ns, 5, &got));
    ck_assert_msg(got == 32, "midpoint rule gives 32 here, got %zu", got);
    ns[2] = 6.5; /* 32 is now above the cut, 64 is below */
    MM_ASSERT_OK(cl_infer_line_size(dist, ns, 5, &got));
    ck_assert_msg(got == 64, "midpoint rule gives 64 here, got %zu", got);
}
MM_END_TEST

/* Pairs of lines interfering (an adjacent-line prefetcher): a partial step at 64 B below the
 * midpoint is not the line; one above it makes the pair, 128 B, the answer. */
MM_TEST(test_infer_pair_interference)
{
    size_t dist[8] = { 8, 16, 32, 64, 128, 256, 512, 1024 }, got = 0;
    double ns[8] = { 8.0, 8.0, 8.0, 2.5, 1.0, 1.0, 1.0, 1.0 }; /* cut 4.5 */
    MM_ASSERT_OK(cl_infer_line_size(dist, ns, 8, &got));
    ck_assert_msg(got == 64, "2.5x at 64 B is under the cut (4.5x): the line is 64, got %zu", got);
    ns[3] = 5.0;
    MM_ASSERT_OK(cl_infer_line_size(dist, ns, 8, &got));
    ck_assert_msg(got == 128, "5x at 64 B is over the cut (4.5x): the answer is 128, got %zu", got);
}
MM_END_TEST

MM_TEST(test_infer_no_signal)
{
    size_t dist[4] = { 8, 16, 32, 64 }, got = 0;
    double flat[4] = { 1.2, 1.1, 1.0, 1.0 };
    ck_assert_msg(cl_infer_line_size(dist, flat, 4, &got) == -ENODATA,
                  "a flat sweep (no false sharing) must give -ENODATA");
}
MM_END_TEST

MM_TEST(test_infer_bad_args)
{
    size_t dist[3] = { 8, 16, 32 }, unsorted[3] = { 8, 32, 16 }, got = 0;
    double ns[3] = { 3, 2, 1 }, zero[3] = { 3, 0, 1 };
    MM_ASSERT_ERR(cl_infer_line_size(NULL, ns, 3, &got), -EINVAL);
    MM_ASSERT_ERR(cl_infer_line_size(dist, NULL, 3, &got), -EINVAL);
    MM_ASSERT_ERR(cl_infer_line_size(dist, ns, 3, NULL), -EINVAL);
    MM_ASSERT_ERR(cl_infer_line_size(dist, ns, 1, &got), -EINVAL);
    MM_ASSERT_ERR(cl_infer_line_size(unsorted, ns, 3, &got), -EINVAL);
    MM_ASSERT_ERR(cl_infer_line_size(dist, zero, 3, &got), -EINVAL);
}
MM_END_TEST

MM_TEST(test_pair_run_counts)
{
    mm_rng_t r = MM_RNG();
    uint64_t *buf = mm_shared_alloc(64 * sizeof *buf);
    uint64_t iters = mm_rng_range(&r, 1000, 300000), a0 = mm_rng_range(&r, 0, 1000);
    buf[0] = a0;
    double ns = 0;
    MM_ASSERT_OK(cl_pair_run(&buf[0], &buf[16], iters, &ns));
    ck_assert_msg(buf[0] == a0 + iters && buf[16] == iters,
                  "after %llu iterations the counters are %llu and %llu",
                  (unsigned long long)iters, (unsigned long long)(buf[0] - a0),
                  (unsigned long long)buf[16]);
    ck_assert_msg(ns > 0, "ns per increment must be positive, got %g", ns);
}
MM_END_TEST

typedef struct {
    uint64_t *a, *b;
    int running, stop;
    uint64_t added; /* to each counter */
} meddler_t;

/* A third writer: adds 1 to *a and 1 to *b, atomically, until told to stop. */
static void *meddle(void *arg)
{
    meddler_t *m = arg;
    __atomic_store_n(&m->running, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&m->stop, __ATOMIC_ACQUIRE)) {
        __atomic_fetch_add(m->a, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(m->b, 1, __ATOMIC_RELAXED);
        m->added++;
    }
    return NULL;
}

MM_TEST(test_pair_run_atomic)
{
    uint64_t *buf = mm_shared_alloc(64 * sizeof *buf), iters = 20000000;
    meddler_t m = { &buf[0], &buf[16], 0, 0, 0 };
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, meddle, &m), 0);
    while (!__atomic_load_n(&m.running, __ATOMIC_ACQUIRE))
        ;
    double ns = 0;
    int rc = cl_pair_run(&buf[0], &buf[16], iters, &ns);
    __atomic_store_n(&m.stop, 1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    MM_ASSERT_OK(rc);
    ck_assert_msg(buf[0] == iters + m.added && buf[16] == iters + m.added,
                  "the counters are %llu and %llu, but cl_pair_run's %llu adds and a third "
                  "thread's %llu make %llu each: every add must be an atomic read-modify-write, "
                  "so that none is lost", (unsigned long long)buf[0], (unsigned long long)buf[16],
                  (unsigned long long)iters, (unsigned long long)m.added,
                  (unsigned long long)(iters + m.added));
}
MM_END_TEST

MM_TEST(test_pair_run_bad_args)
{
    uint64_t *c = mm_shared_alloc(2 * sizeof *c);
    double ns;
    MM_ASSERT_ERR(cl_pair_run(&c[0], &c[0], 10, &ns), -EINVAL);
    MM_ASSERT_ERR(cl_pair_run(NULL, &c[1], 10, &ns), -EINVAL);
    MM_ASSERT_ERR(cl_pair_run(&c[0], &c[1], 0, &ns), -EINVAL);
    MM_ASSERT_ERR(cl_pair_run(&c[0], &c[1], 10, NULL), -EINVAL);
    ck_assert_msg(c[0] == 0 && c[1] == 0, "a rejected call must not touch the counters");
}
MM_END_TEST

MM_TEST(test_sweep_fills_times)
{
    size_t dist[4] = { 8, 64, 256, 4096 };
    double ns[4] = { 0, 0, 0, 0 };
    MM_ASSERT_OK(cl_sweep(dist, 4, 20000, ns));
    for (int i = 0; i < 4; i++)
        ck_assert_msg(ns[i] > 0, "ns[%d] = %g for distance %zu", i, ns[i], dist[i]);
    size_t bad[2] = { 8, 12 }, huge[1] = { CL_MAX_DISTANCE * 2 };
    MM_ASSERT_ERR(cl_sweep(bad, 2, 100, ns), -EINVAL);
    MM_ASSERT_ERR(cl_sweep(huge, 1, 100, ns), -EINVAL);
    MM_ASSERT_ERR(cl_sweep(dist, 0, 100, ns), -EINVAL);
}
MM_END_TEST
