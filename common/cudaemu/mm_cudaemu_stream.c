/* The emulator's streams (see mm_cuda_api.h): each a worker thread that runs its queue in order,
 * taking an engine for each copy, memset or kernel and advancing the model's clock; the legacy
 * default stream's implicit ordering; waiting for streams. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mm_cudaemu_int.h"

#define WORKER_STACK ((size_t)1 << 20) /* kernels run on it: room for a host function's locals */

/* Under ThreadSanitizer the device's memory traffic (copies, memsets, kernels) is left out: a
 * program racing on device memory, which race mode is there to show, is not a race in the
 * emulator, whose own state is still checked as usual. */
#if defined(__SANITIZE_THREAD__)
#define EMU_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define EMU_TSAN 1
#endif
#endif
#ifdef EMU_TSAN
void __tsan_ignore_thread_begin(void);
void __tsan_ignore_thread_end(void);
#define DEVICE_TRAFFIC_BEGIN() __tsan_ignore_thread_begin()
#define DEVICE_TRAFFIC_END() __tsan_ignore_thread_end()
#else
#define DEVICE_TRAFFIC_BEGIN() ((void)0)
#define DEVICE_TRAFFIC_END() ((void)0)
#endif

/* What a worker reads from the settings, under the lock, before running an item. */
typedef struct {
    int pace, skip;    /* skip: a sticky error stops all work */
    unsigned delay_us; /* race mode's longest delay, 0 when off */
    uint64_t seed;
    double kernel_scale;
} knobs_t;

static uint64_t later(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

emu_item_t *emu_item_new(emu_op_t op, emu_engine_t engine)
{
    emu_item_t *it = calloc(1, sizeof *it);
    if (it) {
        it->op = op;
        it->engine = engine;
    }
    return it;
}

void emu_push(struct CUstream_st *s, emu_item_t *it)
{
    it->seq = ++emu.queued[s->slot];
    if (!it->issue_ns)
        it->issue_ns = emu_clock_ns();
    s->vc[s->slot] = it->seq;
    if (s->tail)
        s->tail->next = it;
    else
        s->head = it;
    s->tail = it;
    emu_changed();
}

static int blocking(const struct CUstream_st *s)
{
    return !(s->flags & cudaStreamNonBlocking);
}

static int pending(unsigned slot)
{
    return emu.queued[slot] > emu.done[slot];
}

/* Orders s's next item after the work queued on b so far. */
static cudaError_t order_after(struct CUstream_st *s, struct CUstream_st *b)
{
    emu_vc_merge(s->vc, b->vc);
    if (!pending(b->slot))
        return cudaSuccess;
    emu_mark_t *m = emu_record(b, 0);
    cudaError_t e = m ? emu_wait_mark(s, m, 0) : cudaErrorMemoryAllocation;
    emu_mark_put(m);
    return e;
}

/* The legacy default stream waits for the blocking streams, which wait for it. */
static cudaError_t implicit_order(struct CUstream_st *s)
{
    cudaError_t e = cudaSuccess;
    if (s->slot != 0)
        return blocking(s) ? order_after(s, emu.stream[0]) : cudaSuccess;
    for (unsigned i = 1; i < EMU_SLOTS && e == cudaSuccess; i++)
        if (emu.stream[i] && blocking(emu.stream[i]))
            e = order_after(s, emu.stream[i]);
    return e;
}

cudaError_t emu_enqueue(struct CUstream_st *s, emu_item_t *it)
{
    cudaError_t e = implicit_order(s);
    if (e != cudaSuccess)
        return e;
    emu_vc_merge(s->vc, emu.host_vc);
    emu_push(s, it);
    return cudaSuccess;
}

static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Runs a kernel; returns its modelled duration. */
static double run_kernel(emu_item_t *it, double scale)
{
    uint64_t c0 = cpu_ns();
    it->failed = it->fn(it->arg) != 0;
    double ns = (double)(cpu_ns() - c0) * scale;
    return it->model_ns > 0 ? it->model_ns : ns;
}

/* Does the item's work; returns its modelled duration in nanoseconds. */
static double perform(emu_item_t *it, const knobs_t *k)
{
    double ns = it->cost_ns;
    if (k->skip || it->op == EMU_OP_RECORD || it->op == EMU_OP_WAIT)
        return 0;
    DEVICE_TRAFFIC_BEGIN();
    if (it->op == EMU_OP_COPY)
        memmove(it->dst, it->src, it->bytes);
    else if (it->op == EMU_OP_MEMSET)
        memset(it->dst, it->value, it->bytes);
    else
        ns = run_kernel(it, k->kernel_scale);
    DEVICE_TRAFFIC_END();
    return ns;
}

/* Sleeps until the model's clock reads vt in real time. */
static void sleep_until(uint64_t vt)
{
    uint64_t t = emu.t0 + vt;
    struct timespec ts = { (time_t)(t / 1000000000u), (long)(t % 1000000000u) };
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

/* Runs `it` without the global lock: starts it no earlier than the stream's previous item, its
 * queuing, the mark it waits for and the engine's previous item, in the model's time. */
static void run_item(struct CUstream_st *s, emu_item_t *it, const knobs_t *k)
{
    if (k->delay_us)
        emu_race_delay(s, k->seed, k->delay_us);
    uint64_t t = later(s->vtime, it->issue_ns);
    if (it->op == EMU_OP_WAIT)
        t = later(t, it->mark->vtime);
    if (it->engine == EMU_ENG_NONE) {
        (void)perform(it, k);
        s->vtime = t;
        return;
    }
    emu_engine_state_t *eng = &emu_engine[it->engine];
    pthread_mutex_lock(&eng->lock);
    t = later(t, eng->vfree);
    s->vtime = eng->vfree = t + (uint64_t)perform(it, k);
    if (k->pace)
        sleep_until(s->vtime);
    pthread_mutex_unlock(&eng->lock);
}

/* Takes the finished head item off s's queue and tells every waiter (lock held). */
static void finish(struct CUstream_st *s, emu_item_t *it)
{
    s->head = it->next;
    if (!s->head)
        s->tail = NULL;
    emu.done[s->slot] = it->seq;
    if (it->op == EMU_OP_RECORD) {
        it->mark->vtime = s->vtime;
        it->mark->done = 1;
    }
    if (it->failed)
        emu.sticky = cudaErrorLaunchFailure;
    emu_mark_put(it->mark);
    free(it->owned);
    free(it);
    emu_changed();
}

static int runnable(const emu_item_t *it)
{
    return it->op != EMU_OP_WAIT || it->mark->done;
}

static void *worker(void *arg)
{
    struct CUstream_st *s = arg;
    emu_lock();
    for (;;) {
        while (s->head ? !runnable(s->head) : !s->stop)
            emu_wait();
        emu_item_t *it = s->head;
        if (!it)
            break;
        const mm_emu_config_t *c = &emu.cfg;
        knobs_t k = { c->pace, emu.sticky != cudaSuccess, c->race ? c->race_delay_us : 0,
                      c->race_seed, c->kernel_scale };
        emu_unlock();
        run_item(s, it, &k);
        emu_lock();
        finish(s, it);
    }
    emu_unlock();
    return NULL;
}

int emu_stream_start(unsigned slot, unsigned flags)
{
    struct CUstream_st *s = calloc(1, sizeof *s);
    pthread_attr_t attr;
    if (!s || pthread_attr_init(&attr) != 0) {
        free(s);
        return -1;
    }
    s->slot = slot;
    s->flags = flags;
    emu_vc_merge(s->vc, emu.host_vc);
    s->vc[slot] = emu.queued[slot]; /* a reused slot's numbers go on */
    int rc = pthread_attr_setstacksize(&attr, WORKER_STACK);
    if (rc == 0)
        rc = pthread_create(&s->thread, &attr, worker, s);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        free(s);
        return -1;
    }
    emu.stream[slot] = s;
    return 0;
}

cudaError_t emu_stream_of(cudaStream_t h, struct CUstream_st **out)
{
    if (h == NULL || h == cudaStreamLegacy) {
        *out = emu.stream[0];
        return cudaSuccess;
    }
    for (unsigned i = 1; i < EMU_SLOTS; i++)
        if (emu.stream[i] == h) {
            *out = h;
            return cudaSuccess;
        }
    return cudaErrorInvalidResourceHandle;
}

cudaError_t emu_wait_done(unsigned slot, uint64_t seq, const emu_vc_t vc)
{
    emu_vc_t before; /* as it is now: vc may grow, or go, while we wait */
    memcpy(before, vc, sizeof before);
    while (emu.done[slot] < seq)
        emu_wait();
    emu_vc_merge(emu.host_vc, before);
    return emu.sticky;
}

/* Waits for the work queued on s so far. */
static cudaError_t sync_stream(struct CUstream_st *s)
{
    return emu_wait_done(s->slot, emu.queued[s->slot], s->vc);
}

/* Waits for the streams whose slot `pick` accepts (the stream table may change meanwhile). */
static cudaError_t sync_some(int (*pick)(const struct CUstream_st *))
{
    cudaError_t e = cudaSuccess;
    for (unsigned i = 0; i < EMU_SLOTS; i++)
        if (emu.stream[i] && (i == 0 || pick(emu.stream[i])))
            e = sync_stream(emu.stream[i]);
    return e;
}

static int any(const struct CUstream_st *s)
{
    (void)s;
    return 1;
}

cudaError_t emu_sync_all(void)
{
    return sync_some(any);
}

cudaError_t cudaStreamSynchronize(cudaStream_t h)
{
    struct CUstream_st *s = NULL;
    cudaError_t e = emu_begin();
    if (e == cudaSuccess)
        e = emu_stream_of(h, &s);
    if (e == cudaSuccess)
        e = s->slot == 0 ? sync_some(blocking) : sync_stream(s);
    return emu_end(e);
}

cudaError_t cudaStreamQuery(cudaStream_t h)
{
    struct CUstream_st *s = NULL;
    cudaError_t e = emu_begin();
    if (e == cudaSuccess)
        e = emu_stream_of(h, &s);
    if (e == cudaSuccess && pending(s->slot))
        e = cudaErrorNotReady;
    else if (e == cudaSuccess)
        emu_vc_merge(emu.host_vc, s->vc);
    return emu_end(e);
}

static unsigned free_slot(void)
{
    for (unsigned i = 1; i < EMU_SLOTS; i++)
        if (!emu.stream[i])
            return i;
    return 0;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *out, unsigned int flags)
{
    cudaError_t e = emu_begin();
    if (e == cudaSuccess && (!out || (flags & ~(unsigned)cudaStreamNonBlocking)))
        e = cudaErrorInvalidValue;
    unsigned slot = e == cudaSuccess ? free_slot() : 0;
    if (e == cudaSuccess && (slot == 0 || emu_stream_start(slot, flags) != 0))
        e = cudaErrorMemoryAllocation;
    if (e == cudaSuccess)
        *out = emu.stream[slot];
    return emu_end(e);
}

cudaError_t cudaStreamCreate(cudaStream_t *out)
{
    return cudaStreamCreateWithFlags(out, cudaStreamDefault);
}

/* Stops s's worker once its queue is empty and frees it (lock held, released while joining). */
static void stop_stream(struct CUstream_st *s)
{
    while (pending(s->slot))
        emu_wait();
    emu.stream[s->slot] = NULL;
    s->stop = 1;
    emu_changed();
    emu_unlock();
    pthread_join(s->thread, NULL);
    emu_lock();
    free(s);
}

cudaError_t cudaStreamDestroy(cudaStream_t h)
{
    struct CUstream_st *s = NULL;
    cudaError_t e = emu_begin();
    if (e == cudaSuccess && (h == NULL || h == cudaStreamLegacy))
        e = cudaErrorInvalidResourceHandle;
    if (e == cudaSuccess)
        e = emu_stream_of(h, &s);
    if (e == cudaSuccess)
        stop_stream(s);
    return emu_end(e);
}

void emu_streams_teardown(void)
{
    for (unsigned i = EMU_SLOTS; i-- > 0;)
        if (emu.stream[i])
            stop_stream(emu.stream[i]);
}
