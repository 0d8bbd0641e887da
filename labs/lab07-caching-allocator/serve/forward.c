/* Lab 07, the student's process: the forwarding back end. The allocator there gets this table;
 * each of its calls goes to the harness (FWD_CALLBACK), whose own device does the work and keeps
 * the counts, so that raw calls, bytes reserved and the peak are the harness's word. */
#include <errno.h>
#include <string.h>
#include "lab07_serve.h"
#include "mm_serve.h"

/* ctx carries the harness's device number, plus one (never NULL). */
static uint32_t dev_of(void *ctx)
{
    return (uint32_t)((uintptr_t)ctx - 1);
}

/* Asks the harness to run `op` on device ctx with `arg`. Returns the back end's result (or
 * -EPIPE when the harness is gone); *value: what it set. */
static int forward(void *ctx, uint32_t op, uint64_t arg, uint64_t *value)
{
    fwd_req_t req = { dev_of(ctx), op, arg };
    fwd_ret_t ret = { -EPIPE, 0, 0 };
    int rc = mm_serve_callback(FWD_CALLBACK, &req, sizeof req, &ret, sizeof ret);
    if (rc != 0)
        return rc;
    if (value)
        *value = ret.value;
    return ret.rc;
}

static int fwd_raw_alloc(void *ctx, size_t size, void **out)
{
    uint64_t v = 0;
    int rc = forward(ctx, FWD_RAW_ALLOC, size, &v);
    if (rc == 0 && out)
        *out = (void *)(uintptr_t)v;
    return out ? rc : -EINVAL;
}

static int fwd_raw_free(void *ctx, void *ptr)
{
    return forward(ctx, FWD_RAW_FREE, (uintptr_t)ptr, NULL);
}

static int fwd_record_event(void *ctx, ca_stream_t stream, ca_event_t *out)
{
    uint64_t v = 0;
    if (!out)
        return -EINVAL;
    int rc = forward(ctx, FWD_RECORD_EVENT, stream, &v);
    if (rc == 0)
        *out = v;
    return rc;
}

static int fwd_query_event(void *ctx, ca_event_t ev)
{
    return forward(ctx, FWD_QUERY_EVENT, ev, NULL);
}

static int fwd_release_event(void *ctx, ca_event_t ev)
{
    return forward(ctx, FWD_RELEASE_EVENT, ev, NULL);
}

static int fwd_synchronize(void *ctx)
{
    return forward(ctx, FWD_SYNCHRONIZE, 0, NULL);
}

/* Events answered here (fwd_dev_in_t.local_events): done once recorded; ids never reused. */
static uint64_t local_events; /* the last id handed out */

static int local_record_event(void *ctx, ca_stream_t stream, ca_event_t *out)
{
    (void)ctx;
    if (stream >= CA_MAX_STREAMS || !out)
        return -EINVAL;
    *out = ++local_events;
    return 0;
}

static int local_query_event(void *ctx, ca_event_t ev)
{
    (void)ctx;
    return ev && ev <= local_events ? 1 : -EINVAL;
}

static int local_release_event(void *ctx, ca_event_t ev)
{
    (void)ctx;
    return ev && ev <= local_events ? 0 : -EINVAL;
}

/* Workload "fwd_backend" (lab07_serve.h): the table for the harness's device in->dev. Returns 0,
 * or -EINVAL for buffers of the wrong size. */
int serve_fwd_backend(const void *in, size_t in_len, void *out, size_t out_len)
{
    fwd_dev_in_t d;
    if (in_len != sizeof d || out_len != sizeof(ca_backend_t))
        return -EINVAL;
    memcpy(&d, in, sizeof d);
    ca_backend_t be = { "forward", (void *)((uintptr_t)d.dev + 1), fwd_raw_alloc, fwd_raw_free,
                        fwd_record_event, fwd_query_event, fwd_release_event, fwd_synchronize };
    if (d.local_events) {
        be.record_event = local_record_event;
        be.query_event = local_query_event;
        be.release_event = local_release_event;
    }
    memcpy(out, &be, sizeof be);
    return 0;
}
