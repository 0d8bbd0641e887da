/* Lab 10: STREAM's kernels, the FMA peak and the gate's sum (see measure.h). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include "measure.h"
#include "mm_hw.h"
#include "mm_timer.h"

#define STREAM_Q 3.0f
#define MAX_THREADS 256

size_t ms_array_floats(unsigned cores, ms_size_t *sz)
{
    size_t caches = mm_hw_cache_bytes(cores), bytes = 4 * caches;
    int below = bytes > MS_MAX_ARRAY;
    bytes = bytes < MS_MIN_ARRAY ? MS_MIN_ARRAY : below ? MS_MAX_ARRAY : bytes;
    if (sz)
        *sz = (ms_size_t){ caches, bytes, below };
    return bytes / sizeof(float);
}

/* One kernel over [lo, hi). The loops have no reduction: -O3 vectorizes them as they are. */
static void stream_slice(rl_stream_op_t op, float *restrict a, const float *restrict b,
                         const float *restrict c, size_t lo, size_t hi)
{
    switch (op) {
    case RL_COPY:
        for (size_t i = lo; i < hi; i++)
            a[i] = b[i];
        break;
    case RL_SCALE:
        for (size_t i = lo; i < hi; i++)
            a[i] = STREAM_Q * b[i];
        break;
    case RL_ADD:
        for (size_t i = lo; i < hi; i++)
            a[i] = b[i] + c[i];
        break;
    case RL_TRIAD:
        for (size_t i = lo; i < hi; i++)
            a[i] = b[i] + STREAM_Q * c[i];
        break;
    }
}

/* Where the pinned threads wait until every one is ready and the main thread says go. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned ready; /* threads waiting */
    int go;
} gate_t;

typedef struct {
    rl_stream_op_t op;
    int fill; /* 1: ms_fill's initialisation instead of op */
    float *a, *b, *c;
    size_t lo, hi;
    unsigned core;
    gate_t *start;
} slice_t;

static void fill_slice(slice_t *s)
{
    for (size_t i = s->lo; i < s->hi; i++) {
        s->a[i] = 0.0f;
        s->b[i] = ms_b_value(i);
        s->c[i] = 1.0f + (float)(i % 509) / 509.0f;
    }
}

static void *slice_main(void *p)
{
    slice_t *s = p;
    gate_t *g = s->start;
    mm_hw_try_pin(s->core);
    pthread_mutex_lock(&g->mu);
    g->ready++;
    pthread_cond_broadcast(&g->cv);
    while (!g->go)
        pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
    if (s->fill)
        fill_slice(s);
    else
        stream_slice(s->op, s->a, s->b, s->c, s->lo, s->hi);
    return NULL;
}

/* Runs the slices of [0, n) on `threads` pinned threads, timed from the moment all are ready
 * (pinned, at the gate) to the last one's end. If a thread cannot be made, those made run empty
 * slices and the error is returned. Returns seconds or a negative errno. */
static double run_sliced(slice_t proto, size_t n, unsigned threads)
{
    pthread_t tid[MAX_THREADS];
    slice_t sl[MAX_THREADS];
    gate_t start = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 };
    unsigned made = 0;
    int rc = 0;
    if (threads == 0 || threads > MAX_THREADS)
        return -EINVAL;
    for (; made < threads; made++) {
        sl[made] = proto;
        sl[made].lo = n / threads * made;
        sl[made].hi = made + 1 == threads ? n : n / threads * (made + 1);
        sl[made].core = made;
        sl[made].start = &start;
        rc = pthread_create(&tid[made], NULL, slice_main, &sl[made]);
        if (rc != 0)
            break;
    }
    pthread_mutex_lock(&start.mu);
    while (start.ready < made)
        pthread_cond_wait(&start.cv, &start.mu);
    if (rc != 0) /* the threads made run empty slices */
        for (unsigned k = 0; k < made; k++)
            sl[k].hi = sl[k].lo;
    uint64_t t0 = mm_now_ns();
    start.go = 1;
    pthread_cond_broadcast(&start.cv);
    pthread_mutex_unlock(&start.mu);
    for (unsigned k = 0; k < made; k++)
        pthread_join(tid[k], NULL);
    double secs = mm_elapsed_s(t0);
    return rc != 0 ? -(double)rc : secs;
}

double ms_stream_pass(rl_stream_op_t op, float *a, const float *b, const float *c, size_t n,
                      unsigned threads)
{
    if (!a || !b || !c || (unsigned)op > RL_TRIAD || threads == 0)
        return -EINVAL;
    if (threads == 1) {
        uint64_t t0 = mm_now_ns();
        stream_slice(op, a, b, c, 0, n);
        return mm_elapsed_s(t0);
    }
    slice_t proto = { op, 0, a, (float *)b, (float *)c, 0, 0, 0, NULL };
    return run_sliced(proto, n, threads);
}

int ms_fill(float *a, float *b, float *c, size_t n, unsigned threads)
{
    if (!a || !b || !c)
        return -EINVAL;
    slice_t proto = { RL_COPY, 1, a, b, c, 0, 0, 0, NULL };
    double r = run_sliced(proto, n, threads);
    return r < 0 ? (int)r : 0;
}

/* 128 independent accumulators: 8 AVX-512 or 16 AVX2 registers, enough to cover an FMA latency
 * of 4 cycles on 2 pipes either way (256 makes clang 14 keep them in memory). */
#define FMA_LANES 128
#define FMA_ITERS 40000

/* FMA_ITERS rounds of acc = acc * m + k over FMA_LANES independent accumulators, kept in
 * registers; returns their sum so that the loop is not dropped. */
static __attribute__((noinline)) float fma_loop(float m, float k)
{
    float acc[FMA_LANES], s = 0.0f;
    for (int l = 0; l < FMA_LANES; l++)
        acc[l] = (float)l;
    for (int it = 0; it < FMA_ITERS; it++) {
#pragma omp simd
        for (int l = 0; l < FMA_LANES; l++)
            acc[l] = acc[l] * m + k;
    }
    for (int l = 0; l < FMA_LANES; l++)
        s += acc[l];
    return s;
}

double ms_fma_gflops(unsigned rounds)
{
    volatile float m = 0.999f, k = 0.001f, sink = 0.0f; /* not constants: no folding */
    double best = 0.0;
    for (unsigned r = 0; r < rounds; r++) {
        uint64_t t0 = mm_now_ns();
        sink += fma_loop(m, k);
        double g = 2.0 * FMA_LANES * FMA_ITERS / mm_elapsed_s(t0) / 1e9;
        best = g > best ? g : best;
    }
    (void)sink;
    return best;
}

float ms_sum(const float *x, size_t n)
{
    float s = 0.0f;
#pragma omp simd reduction(+ : s)
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return s;
}
