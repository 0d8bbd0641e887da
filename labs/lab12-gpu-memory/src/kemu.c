/* Lab 12: the kernel emulator's scheduler (see kemu.h): a block's threads as ucontext fibers,
 * run in turn until each waits at __syncthreads or a shuffle or ends; a barrier opens when every
 * live thread of the block waits there, a shuffle when every live lane of the warp does.
 * Provided: not yours to edit. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "kemu_int.h"
#include "kemu_trace.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define KEMU_ASAN 1
#endif

#define KEMU_STACK (256 * 1024) /* per thread: room for sanitizer builds' larger frames */

kemu_state_t kemu_g;
static ucontext_t sched_ctx;
static kthread_t *threads;
static char *stacks;
static size_t stacks_bytes;

extern char __start_kemu_shared[] __attribute__((weak));
extern char __stop_kemu_shared[] __attribute__((weak));

/* Switches from the scheduler into thread t and back. */
static void enter(kthread_t *t)
{
    kemu_g.cur = t;
#ifdef KEMU_ASAN
    void *fake = NULL;
    __sanitizer_start_switch_fiber(&fake, t->stack, kemu_g.stack_bytes);
#endif
    swapcontext(&sched_ctx, &t->ctx);
#ifdef KEMU_ASAN
    __sanitizer_finish_switch_fiber(fake, NULL, NULL);
#endif
    kemu_g.cur = NULL;
}

#ifdef KEMU_ASAN
static const void *sched_bottom; /* the scheduler's stack, as ASan must be told on each switch */
static size_t sched_size;
#endif

/* From the running thread back to the scheduler (it marked why first). */
static void leave(void)
{
    kthread_t *t = kemu_g.cur;
    kemu_trace_flush();
#ifdef KEMU_ASAN
    void *fake = NULL;
    __sanitizer_start_switch_fiber(t->state == KT_DONE ? NULL : &fake, sched_bottom, sched_size);
#endif
    swapcontext(&t->ctx, &sched_ctx);
#ifdef KEMU_ASAN
    __sanitizer_finish_switch_fiber(fake, &sched_bottom, &sched_size);
#endif
}

static void fiber_main(void)
{
#ifdef KEMU_ASAN
    __sanitizer_finish_switch_fiber(NULL, &sched_bottom, &sched_size);
#endif
    kemu_g.launch->body(kemu_g.launch->args);
    kemu_g.cur->state = KT_DONE;
    leave();
}

kemu_dim3_t kemu_thread_idx(void)
{
    return kemu_g.cur ? kemu_g.cur->idx : (kemu_dim3_t){0, 0, 0};
}

static kemu_dim3_t block_idx;

kemu_dim3_t kemu_block_idx(void)
{
    return block_idx;
}

kemu_dim3_t kemu_block_dim(void)
{
    return kemu_g.launch ? kemu_g.launch->block : (kemu_dim3_t){1, 1, 1};
}

kemu_dim3_t kemu_grid_dim(void)
{
    return kemu_g.launch ? kemu_g.launch->grid : (kemu_dim3_t){1, 1, 1};
}

void kemu_syncthreads(void)
{
    if (!kemu_g.cur)
        return;
    kemu_g.cur->state = KT_BARRIER;
    leave();
}

uint32_t kemu_shfl(int mode, unsigned mask, uint32_t v, int arg, int width, int site)
{
    kthread_t *t = kemu_g.cur;
    if (!t)
        return v;
    t->shfl_mask = mask;
    t->shfl_site = site;
    t->shfl_mode = mode;
    t->shfl_arg = arg;
    t->shfl_width = (width > 0 && width <= KEMU_WARP && !(width & (width - 1))) ? width : 32;
    t->shfl_in = v;
    t->state = KT_SHFL;
    leave();
    return t->shfl_out;
}

/* The lane a shuffle of lane `lane` reads, or -1 (it keeps its own value). */
static int shfl_source(const kthread_t *t, int lane)
{
    int w = t->shfl_width, base = lane & ~(w - 1), src;
    switch (t->shfl_mode) {
    case KEMU_SHFL_IDX: src = base + (t->shfl_arg & (w - 1)); break;
    case KEMU_SHFL_UP: src = lane - t->shfl_arg; break;
    case KEMU_SHFL_DOWN: src = lane + t->shfl_arg; break;
    default: src = lane ^ t->shfl_arg; break;
    }
    return (src >= base && src < base + w) ? src : -1;
}

/* Why the shuffle the n lanes of warp w all wait at is undefined in CUDA, into kemu's error
 * (-EILSEQ), or 0: lanes at different source lines or with different masks, a mask that leaves
 * out a lane taking part, or one that names a lane that has exited. */
static int shuffle_undefined(const kthread_t *w, unsigned n)
{
    const kthread_t *a = w;
    while (a->state != KT_SHFL)
        a++;   /* one lane at least waits (try_shuffle) */
    const char *why = NULL;
    unsigned lane;
    for (lane = 0; lane < n && !why; lane++) {
        if (w[lane].state == KT_DONE)
            why = (a->shfl_mask >> lane & 1) ? "names a lane that has exited" : NULL;
        else if (w[lane].shfl_site != a->shfl_site || w[lane].shfl_mask != a->shfl_mask)
            why = "meets lanes at another shuffle (another line or mask)";
        else if (!(w[lane].shfl_mask >> lane & 1))
            why = "leaves out a lane taking part";
    }
    if (!why)
        return 0;
    snprintf(kemu_g.st->error, sizeof kemu_g.st->error, "block (%u,%u,%u), warp %u: the shuffle "
             "at line %d with mask 0x%08x %s (lane %u); CUDA leaves its result undefined",
             block_idx.x, block_idx.y, block_idx.z, w[0].linear / KEMU_WARP, a->shfl_site,
             a->shfl_mask, why, lane - 1);
    return -EILSEQ;
}

/* Completes the shuffle of warp w (threads [first, first + n)) if all its live lanes wait at
 * one; returns 1 if it did, 0 if not, -EILSEQ if the shuffle is undefined (shuffle_undefined). */
static int try_shuffle(kthread_t *w, unsigned n)
{
    unsigned waiting = 0, live = 0;
    for (unsigned i = 0; i < n; i++) {
        live += w[i].state != KT_DONE;
        waiting += w[i].state == KT_SHFL;
    }
    if (waiting == 0 || waiting != live)
        return 0;
    if (shuffle_undefined(w, n))
        return -EILSEQ;
    for (unsigned i = 0; i < n; i++) {
        if (w[i].state != KT_SHFL)
            continue;
        int s = shfl_source(&w[i], (int)i);
        w[i].shfl_out = (s >= 0 && (unsigned)s < n && w[s].state == KT_SHFL) ? w[s].shfl_in
                                                                              : w[i].shfl_in;
    }
    for (unsigned i = 0; i < n; i++)
        if (w[i].state == KT_SHFL)
            w[i].state = KT_RUN;
    kemu_g.st->shuffles++;
    kemu_trace_event(KEMU_EV_SHFL, w[0].linear, 0);
    return 1;
}

/* Opens the barrier if every live thread waits at it; returns 1 if it did. */
static int try_barrier(unsigned n)
{
    unsigned waiting = 0, live = 0;
    for (unsigned i = 0; i < n; i++) {
        live += threads[i].state != KT_DONE;
        waiting += threads[i].state == KT_BARRIER;
    }
    if (waiting == 0 || waiting != live)
        return 0;
    for (unsigned i = 0; i < n; i++)
        if (threads[i].state == KT_BARRIER)
            threads[i].state = KT_RUN;
    kemu_g.st->barriers++;
    kemu_trace_event(KEMU_EV_BARRIER, 0, 0);
    return 1;
}

/* Runs one block's n threads to their end; 0, -EDEADLK or -EILSEQ (try_shuffle). */
static int run_block(unsigned n)
{
    for (;;) {
        int ran = 0, live = 0;
        for (unsigned i = 0; i < n; i++) {
            if (threads[i].state == KT_RUN) {
                enter(&threads[i]);
                ran = 1;
            }
            live += threads[i].state != KT_DONE;
        }
        if (!live)
            return 0;
        for (unsigned w = 0; w < n; w += KEMU_WARP) {
            int rc = try_shuffle(&threads[w], n - w < KEMU_WARP ? n - w : KEMU_WARP);
            if (rc < 0)
                return rc;
            ran |= rc;
        }
        ran |= try_barrier(n);
        if (!ran) {
            snprintf(kemu_g.st->error, sizeof kemu_g.st->error,
                     "block (%u,%u,%u): threads wait at __syncthreads while others of the block "
                     "wait at a warp shuffle (or a shuffle's warp is split): none can go on",
                     block_idx.x, block_idx.y, block_idx.z);
            return -EDEADLK;
        }
    }
}

/* The context every fiber starts from (getcontext in a function of its own: it is never
 * resumed, so it returns once, and no caller's variable lives across it). */
static __attribute__((noinline)) void context_template(ucontext_t *u)
{
    getcontext(u);
}

/* Fibers for n threads with block shape b, each starting at fiber_main. */
static void make_threads(unsigned n, kemu_dim3_t b)
{
    static ucontext_t base;
    context_template(&base);
    for (unsigned i = 0; i < n; i++) {
        kthread_t *t = &threads[i];
        memset(t, 0, sizeof *t);
        t->stack = stacks + (size_t)i * KEMU_STACK;
        t->linear = i;
        t->idx = (kemu_dim3_t){i % b.x, (i / b.x) % b.y, i / (b.x * b.y)};
        t->ctx = base;
        t->ctx.uc_stack.ss_sp = t->stack;
        t->ctx.uc_stack.ss_size = KEMU_STACK;
        t->ctx.uc_link = NULL;
        makecontext(&t->ctx, fiber_main, 0);
    }
}

/* Memory for n fibers, kept between launches; 0 or -ENOMEM. */
static int reserve(unsigned n)
{
    size_t need = (size_t)n * KEMU_STACK;
    if (need <= stacks_bytes)
        return 0;
    if (stacks)
        munmap(stacks, stacks_bytes);
    free(threads);
    stacks = mmap(NULL, need, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                  -1, 0);
    threads = calloc(n, sizeof *threads);
    if (stacks == MAP_FAILED || !threads) {
        if (stacks != MAP_FAILED)
            munmap(stacks, need);
        free(threads);
        stacks = NULL, threads = NULL, stacks_bytes = 0;
        return -ENOMEM;
    }
    stacks_bytes = need;
    return 0;
}

/* Checks the launch's shape and shared memory; 0, -EINVAL or -E2BIG with st->error set. */
static int check_launch(const kemu_launch_t *l, kemu_stats_t *st)
{
    const kemu_dim3_t g = l->grid, b = l->block;
    size_t shared = (size_t)(__stop_kemu_shared - __start_kemu_shared);
    if (!l->body || !g.x || !g.y || !g.z || !b.x || !b.y || !b.z ||
        (uint64_t)b.x * b.y * b.z > KEMU_MAX_BLOCK_THREADS) {
        snprintf(st->error, sizeof st->error, "bad launch: grid (%u,%u,%u), block (%u,%u,%u)",
                 g.x, g.y, g.z, b.x, b.y, b.z);
        return -EINVAL;
    }
    if (__start_kemu_shared && shared > KEMU_MAX_SHARED) {
        snprintf(st->error, sizeof st->error,
                 "the kernels declare %zu bytes of __shared__ memory; at most %d", shared,
                 KEMU_MAX_SHARED);
        return -E2BIG;
    }
    return 0;
}

/* Runs every block in order; 0 or the first block's error. */
static int run_grid(const kemu_launch_t *l, unsigned n)
{
    const kemu_dim3_t g = l->grid;
    for (unsigned z = 0; z < g.z; z++)
        for (unsigned y = 0; y < g.y; y++)
            for (unsigned x = 0; x < g.x; x++) {
                block_idx = (kemu_dim3_t){x, y, z};
                make_threads(n, l->block);
                int rc = run_block(n);
                kemu_rec_block_end(n);
                kemu_g.st->blocks++;
                if (rc)
                    return rc;
            }
    return 0;
}

int kemu_run(const kemu_launch_t *l, kemu_stats_t *st)
{
    if (!l || !st)
        return -EINVAL;
    memset(st, 0, sizeof *st);
    st->unwritten = -1;
    int rc = check_launch(l, st);
    if (rc)
        return rc;
    unsigned n = l->block.x * l->block.y * l->block.z;
    kemu_g.launch = l, kemu_g.st = st, kemu_g.stack_bytes = KEMU_STACK;
    kemu_g.shared_lo = (uintptr_t)__start_kemu_shared;
    kemu_g.shared_hi = (uintptr_t)__stop_kemu_shared;
    if (reserve(n) != 0 || kemu_rec_begin() != 0) {
        snprintf(st->error, sizeof st->error, "out of memory for %u emulated threads", n);
        rc = -ENOMEM;
    } else {
        rc = run_grid(l, n);
    }
    kemu_rec_end();
    if (!rc && kemu_g.failed)
        rc = kemu_g.failed;
    if (!rc && st->faults)
        rc = -EFAULT;
    kemu_g.launch = NULL, kemu_g.st = NULL, kemu_g.failed = 0;
    return rc;
}

double kemu_sectors_per_request(const kemu_stats_t *st)
{
    uint64_t r = st->gld.requests + st->gst.requests;
    return r ? (double)(st->gld.sectors + st->gst.sectors) / (double)r : 0.0;
}

double kemu_wavefronts_per_request(const kemu_stats_t *st)
{
    uint64_t r = st->sld.requests + st->sst.requests;
    return r ? (double)(st->sld.wavefronts + st->sst.wavefronts) / (double)r : 0.0;
}
