/* Lab 07, the harness's end of the forwarding back end (see host.h). */
#include "host.h"
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../serve/lab07_serve.h"
#include "mm_call.h"

typedef struct {
    uintptr_t addr;
    size_t size;
} region_t;

/* One attached device: its table and the regions handed out through it, unordered. */
typedef struct {
    int used;
    ca_backend_t be;
    region_t *region;
    size_t n, cap;
} host_dev_t;

static host_dev_t devs[HOST_MAX_DEVICES];

static int remember(host_dev_t *d, uintptr_t addr, size_t size)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 64;
        region_t *v = realloc(d->region, cap * sizeof *v);
        if (!v)
            return -ENOMEM;
        d->region = v;
        d->cap = cap;
    }
    d->region[d->n++] = (region_t){ addr, size };
    return 0;
}

static void forget(host_dev_t *d, uintptr_t addr)
{
    for (size_t i = 0; i < d->n; i++)
        if (d->region[i].addr == addr) {
            d->region[i] = d->region[--d->n];
            return;
        }
}

/* A raw_alloc whose region the harness cannot remember is given back: never one it would not
 * know of. */
static fwd_ret_t run_alloc(host_dev_t *d, uint64_t size)
{
    void *p = NULL;
    fwd_ret_t r = { 0, 0, 0 };
    r.rc = d->be.raw_alloc(d->be.ctx, (size_t)size, &p);
    if (r.rc == 0 && remember(d, (uintptr_t)p, (size_t)size) != 0) {
        d->be.raw_free(d->be.ctx, p);
        r.rc = -ENOMEM;
    }
    r.value = r.rc == 0 ? (uintptr_t)p : 0;
    return r;
}

/* One forwarded call on the harness's device; the student's arguments are numbers to it. */
static fwd_ret_t run(const fwd_req_t *q)
{
    fwd_ret_t r = { -EINVAL, 0, 0 };
    if (q->dev >= HOST_MAX_DEVICES || !devs[q->dev].used)
        return r;
    host_dev_t *d = &devs[q->dev];
    ca_event_t ev = 0;
    switch (q->op) {
    case FWD_RAW_ALLOC:
        return run_alloc(d, q->arg);
    case FWD_RAW_FREE:
        r.rc = d->be.raw_free(d->be.ctx, (void *)(uintptr_t)q->arg);
        if (r.rc == 0)
            forget(d, (uintptr_t)q->arg);
        break;
    case FWD_RECORD_EVENT:
        if (q->arg < CA_MAX_STREAMS)
            r.rc = d->be.record_event(d->be.ctx, (ca_stream_t)q->arg, &ev);
        r.value = r.rc == 0 ? ev : 0;
        break;
    case FWD_QUERY_EVENT:
        r.rc = d->be.query_event(d->be.ctx, q->arg);
        break;
    case FWD_RELEASE_EVENT:
        r.rc = d->be.release_event(d->be.ctx, q->arg);
        break;
    case FWD_SYNCHRONIZE:
        r.rc = d->be.synchronize(d->be.ctx);
        break;
    }
    return r;
}

static void on_backend(const void *args, size_t len, void *ret, void *ctx)
{
    fwd_req_t q;
    fwd_ret_t r = { -EINVAL, 0, 0 };
    (void)ctx;
    if (len == sizeof q) {
        memcpy(&q, args, sizeof q);
        r = run(&q);
    }
    memcpy(ret, &r, sizeof r);
}

int host_attach(const ca_backend_t *be)
{
    for (int i = 0; i < HOST_MAX_DEVICES; i++)
        if (!devs[i].used) {
            mm_call_on_callback(FWD_CALLBACK, on_backend, NULL);
            devs[i] = (host_dev_t){ 1, *be, NULL, 0, 0 };
            return i;
        }
    return -ENOSPC;
}

void host_detach(int dev)
{
    if (dev < 0 || dev >= HOST_MAX_DEVICES)
        return;
    free(devs[dev].region);
    memset(&devs[dev], 0, sizeof devs[dev]);
}

int host_backend(int dev, int local_events, ca_backend_t **out)
{
    fwd_dev_in_t in = { (uint32_t)dev, local_events != 0 };
    ca_backend_t be;
    int rc = mm_call_work("fwd_backend", &in, sizeof in, &be, sizeof be);
    if (rc != 0)
        return rc;
    *out = mm_shared_alloc(sizeof be);
    **out = be;
    return 0;
}

int host_owns(int dev, const void *p, size_t n)
{
    uintptr_t a = (uintptr_t)p;
    if (dev < 0 || dev >= HOST_MAX_DEVICES)
        return 0;
    for (size_t i = 0; i < devs[dev].n; i++) {
        const region_t *r = &devs[dev].region[i];
        if (a >= r->addr && a - r->addr <= r->size && n <= r->size - (a - r->addr))
            return 1;
    }
    return 0;
}
