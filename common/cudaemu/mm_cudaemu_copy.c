/* The emulator's copies, memsets and kernel launches (see mm_cuda_api.h): each checks its
 * pointers, becomes a work item with its engine and modelled cost, is queued on its stream and
 * has its accesses to tracked memory noted for the race checks. */
#include <stdlib.h>
#include <string.h>
#include "mm_cudaemu_int.h"

/* One side of a transfer: where the emulator reads or writes it, and its tracked allocation
 * (NULL for ordinary host memory) at offset off. */
typedef struct {
    char *addr;
    emu_alloc_t *a;
    size_t off;
    int device;
} side_t;

/* A copy as asked for. */
typedef struct {
    void *dst;
    const void *src;
    size_t n;
    int kind;       /* enum cudaMemcpyKind */
    cudaStream_t stream;
    int sync;       /* cudaMemcpy: return when done */
} copy_req_t;

/* Operation names for the race report, by [sync][direction]. */
static const char *const copy_what[2][4] = {
    { "cudaMemcpyAsync host-to-host", "cudaMemcpyAsync host-to-device",
      "cudaMemcpyAsync device-to-host", "cudaMemcpyAsync device-to-device" },
    { "cudaMemcpy host-to-host", "cudaMemcpy host-to-device", "cudaMemcpy device-to-host",
      "cudaMemcpy device-to-device" },
};

/* [p, p + n) as a device range (device = 1) or a host one, into *out. cudaErrorInvalidValue: a
 * device range outside device memory, or a host range touching it, or NULL. */
static cudaError_t resolve(const void *p, size_t n, int device, side_t *out)
{
    *out = (side_t){ .device = device };
    if (!p || (!device && emu_touches_device(p, n)))
        return cudaErrorInvalidValue;
    out->a = emu_find(p, n, device ? EMU_DEVICE : EMU_PINNED);
    if (device && !out->a)
        return cudaErrorInvalidValue;
    out->off = out->a ? (size_t)((const char *)p - out->a->base) : 0;
    out->addr = out->a ? out->a->view + out->off : (char *)p;
    return cudaSuccess;
}

/* Which ends of a copy are on the device: bit 0 dst, bit 1 src (the value of the kind). */
static cudaError_t direction(const copy_req_t *r, int *dir)
{
    if (r->kind >= cudaMemcpyHostToHost && r->kind <= cudaMemcpyDeviceToDevice) {
        *dir = r->kind;
        return cudaSuccess;
    }
    if (r->kind != cudaMemcpyDefault)
        return cudaErrorInvalidMemcpyDirection;
    *dir = emu_touches_device(r->dst, r->n) | emu_touches_device(r->src, r->n) << 1;
    return cudaSuccess;
}

/* Sets the engine and modelled cost of copying n bytes from s to d. */
static void price(emu_item_t *it, const side_t *d, const side_t *s, size_t n)
{
    const mm_emu_config_t *c = &emu.cfg;
    double gbps = c->device_gbps;
    it->engine = EMU_ENG_COMPUTE;
    if (d->device != s->device) {
        const side_t *host = d->device ? s : d;
        it->engine = d->device ? EMU_ENG_H2D : EMU_ENG_D2H;
        gbps = host->a ? c->pinned_gbps : c->pageable_gbps;
    } else if (!d->device) {
        it->engine = EMU_ENG_NONE;
    }
    it->cost_ns = it->engine == EMU_ENG_NONE ? 0 : (double)n / gbps;
}

static void note(const struct CUstream_st *s, const side_t *side, size_t n, int write,
                 const char *what)
{
    if (side->a)
        emu_race_note(s, side->a, side->off, n, write, what);
}

/* Queues `it` (NULL: no memory) on st, or frees it. */
static cudaError_t enqueue_or_free(struct CUstream_st *st, emu_item_t *it)
{
    if (it && emu_enqueue(st, it) == cudaSuccess)
        return cudaSuccess;
    if (it)
        free(it->owned);
    free(it);
    return cudaErrorMemoryAllocation;
}

/* Builds the copy's item: a pageable source for the device is staged now. */
static emu_item_t *copy_item(const side_t *d, const side_t *s, size_t n)
{
    emu_item_t *it = emu_item_new(EMU_OP_COPY, EMU_ENG_NONE);
    if (!it)
        return NULL;
    it->issue_ns = emu_clock_ns(); /* the host's staging below is part of the copy */
    price(it, d, s, n);
    it->dst = d->addr;
    it->src = s->addr;
    it->bytes = n;
    if (d->device && !s->device && !s->a) {
        it->owned = malloc(n);
        if (!it->owned) {
            free(it);
            return NULL;
        }
        memcpy(it->owned, s->addr, n);
        it->src = it->owned;
    }
    return it;
}

/* Queues the copy, and waits for it when asked to or when it lands in pageable memory. */
static cudaError_t copy(const copy_req_t *r)
{
    struct CUstream_st *st = NULL;
    side_t d, s;
    int dir = 0;
    cudaError_t e = emu_stream_of(r->stream, &st);
    if (e == cudaSuccess)
        e = direction(r, &dir);
    if (e != cudaSuccess || r->n == 0)
        return e;
    e = resolve(r->dst, r->n, dir & 1, &d);
    if (e == cudaSuccess)
        e = resolve(r->src, r->n, dir >> 1, &s);
    emu_item_t *it = e == cudaSuccess ? copy_item(&d, &s, r->n) : NULL;
    if (e == cudaSuccess)
        e = enqueue_or_free(st, it);
    if (e != cudaSuccess)
        return e;
    const char *what = copy_what[r->sync][dir];
    note(st, &d, r->n, 1, what);
    note(st, &s, r->n, 0, what);
    if (r->sync || (!d.device && !d.a))
        return emu_wait_done(st->slot, it->seq, st->vc);
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    copy_req_t r = { dst, src, count, (int)kind, stream, 0 };
    cudaError_t e = emu_begin();
    if (e == cudaSuccess)
        e = copy(&r);
    return emu_end(e);
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    copy_req_t r = { dst, src, count, (int)kind, NULL, 1 };
    cudaError_t e = emu_begin();
    if (e == cudaSuccess)
        e = copy(&r);
    return emu_end(e);
}

static cudaError_t memset_on(void *dst, int value, size_t n, cudaStream_t stream,
                             const char *what)
{
    struct CUstream_st *st = NULL;
    side_t d;
    cudaError_t e = emu_stream_of(stream, &st);
    if (e != cudaSuccess || n == 0)
        return e;
    e = resolve(dst, n, 1, &d);
    if (e != cudaSuccess)
        return e;
    emu_item_t *it = emu_item_new(EMU_OP_MEMSET, EMU_ENG_COMPUTE);
    if (it) {
        it->dst = d.addr;
        it->bytes = n;
        it->value = (unsigned char)value;
        it->cost_ns = (double)n / emu.cfg.device_gbps;
    }
    e = enqueue_or_free(st, it);
    if (e != cudaSuccess)
        return e;
    note(st, &d, n, 1, what);
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *dst, int value, size_t count, cudaStream_t stream)
{
    cudaError_t e = emu_begin();
    if (e == cudaSuccess)
        e = memset_on(dst, value, count, stream, "cudaMemsetAsync");
    return emu_end(e);
}

cudaError_t cudaMemset(void *dst, int value, size_t count)
{
    cudaError_t e = emu_begin();
    if (e == cudaSuccess)
        e = memset_on(dst, value, count, NULL, "cudaMemset");
    return emu_end(e);
}

/* Whether kernel k's description is usable: a function, a cost, arguments, spans inside device
 * memory. */
static int kernel_ok(const mm_emu_kernel_t *k)
{
    side_t d;
    if (!k || !k->fn || !(k->model_ns >= 0) || (k->n_spans && !k->spans) ||
        (k->arg_size && !k->arg))
        return 0;
    for (unsigned i = 0; i < k->n_spans; i++)
        if (k->spans[i].bytes && resolve(k->spans[i].ptr, k->spans[i].bytes, 1, &d) != 0)
            return 0;
    return 1;
}

/* The kernel's item, with a copy of its arguments when arg_size > 0; NULL if out of memory. */
static emu_item_t *kernel_item(const mm_emu_kernel_t *k)
{
    emu_item_t *it = emu_item_new(EMU_OP_KERNEL, EMU_ENG_COMPUTE);
    if (!it)
        return NULL;
    it->fn = k->fn;
    it->model_ns = k->model_ns;
    it->arg = (void *)k->arg;
    if (k->arg_size) {
        it->owned = it->arg = malloc(k->arg_size);
        if (!it->owned) {
            free(it);
            return NULL;
        }
        memcpy(it->owned, k->arg, k->arg_size);
    }
    return it;
}

static cudaError_t launch(cudaStream_t stream, const mm_emu_kernel_t *k)
{
    struct CUstream_st *st = NULL;
    side_t d;
    cudaError_t e = emu_stream_of(stream, &st);
    if (e == cudaSuccess && !kernel_ok(k))
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess)
        e = enqueue_or_free(st, kernel_item(k));
    for (unsigned i = 0; e == cudaSuccess && i < k->n_spans; i++) {
        const mm_emu_span_t *sp = &k->spans[i];
        if (sp->bytes && resolve(sp->ptr, sp->bytes, 1, &d) == cudaSuccess)
            note(st, &d, sp->bytes, sp->writes, "kernel");
    }
    return e;
}

cudaError_t mm_emu_launch_kernel(cudaStream_t stream, const mm_emu_kernel_t *k)
{
    cudaError_t e = emu_begin();
    if (e == cudaSuccess)
        e = launch(stream, k);
    return emu_end(e);
}

cudaError_t mm_emu_launch(cudaStream_t stream, mm_emu_fn_t fn, const void *arg, size_t arg_size)
{
    mm_emu_kernel_t k = { .fn = fn, .arg = arg, .arg_size = arg_size };
    return mm_emu_launch_kernel(stream, &k);
}

void *mm_emu_view(const void *dev, size_t bytes)
{
    emu_lock();
    emu_alloc_t *a = dev ? emu_find(dev, bytes ? bytes : 1, EMU_DEVICE) : NULL;
    void *v = a ? a->view + ((const char *)dev - a->base) : NULL;
    emu_unlock();
    return v;
}
