/* The emulator's events (see mm_cuda_api.h) and the marks under them: a mark is a point in a
 * stream's work, reached when the stream gets there, with the model's time and what came
 * before (for the race checks). An event holds its latest record's mark. */
#include <stdlib.h>
#include <string.h>
#include "mm_cudaemu_int.h"

#define EVENT_FLAGS                                                                           \
    ((unsigned)(cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess))

void emu_mark_put(emu_mark_t *m)
{
    if (m && --m->refs == 0)
        free(m);
}

/* Queues `it` on s, with the legacy default stream's ordering when `implicit`. */
static cudaError_t queue(struct CUstream_st *s, emu_item_t *it, int implicit)
{
    if (implicit)
        return emu_enqueue(s, it);
    emu_push(s, it);
    return cudaSuccess;
}

emu_mark_t *emu_record(struct CUstream_st *s, int implicit)
{
    emu_mark_t *m = calloc(1, sizeof *m);
    emu_item_t *it = emu_item_new(EMU_OP_RECORD, EMU_ENG_NONE);
    if (!m || !it)
        goto fail;
    it->mark = m;
    if (queue(s, it, implicit) != cudaSuccess)
        goto fail;
    m->refs = 2; /* the caller's and the record item's */
    memcpy(m->vc, s->vc, sizeof m->vc);
    return m;
fail:
    free(m);
    free(it);
    return NULL;
}

cudaError_t emu_wait_mark(struct CUstream_st *s, emu_mark_t *m, int implicit)
{
    emu_item_t *it = emu_item_new(EMU_OP_WAIT, EMU_ENG_NONE);
    if (!it)
        return cudaErrorMemoryAllocation;
    it->mark = m;
    m->refs++;
    cudaError_t e = queue(s, it, implicit);
    if (e != cudaSuccess) {
        m->refs--;
        free(it);
        return e;
    }
    emu_vc_merge(s->vc, m->vc);
    return cudaSuccess;
}

/* Whether h is a live event. */
static cudaError_t event_ok(cudaEvent_t h)
{
    for (struct CUevent_st *ev = emu.events; ev; ev = ev->next)
        if (ev == h)
            return cudaSuccess;
    return cudaErrorInvalidResourceHandle;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *out, unsigned int flags)
{
    cudaError_t e = emu_begin();
    if (e == cudaSuccess && (!out || (flags & ~EVENT_FLAGS)))
        e = cudaErrorInvalidValue;
    struct CUevent_st *ev = e == cudaSuccess ? calloc(1, sizeof *ev) : NULL;
    if (e == cudaSuccess && !ev)
        e = cudaErrorMemoryAllocation;
    if (e == cudaSuccess) {
        ev->flags = flags;
        ev->next = emu.events;
        emu.events = ev;
        *out = ev;
    }
    return emu_end(e);
}

cudaError_t cudaEventCreate(cudaEvent_t *out)
{
    return cudaEventCreateWithFlags(out, cudaEventDefault);
}

cudaError_t cudaEventDestroy(cudaEvent_t h)
{
    cudaError_t e = emu_begin();
    if (e == cudaSuccess)
        e = event_ok(h);
    for (struct CUevent_st **p = &emu.events; e == cudaSuccess && *p; p = &(*p)->next)
        if (*p == h) {
            *p = h->next;
            emu_mark_put(h->mark);
            free(h);
            break;
        }
    return emu_end(e);
}

cudaError_t cudaEventRecord(cudaEvent_t h, cudaStream_t stream)
{
    struct CUstream_st *s = NULL;
    cudaError_t e = emu_begin();
    if (e == cudaSuccess)
        e = event_ok(h);
    if (e == cudaSuccess)
        e = emu_stream_of(stream, &s);
    emu_mark_t *m = e == cudaSuccess ? emu_record(s, 1) : NULL;
    if (e == cudaSuccess && !m)
        e = cudaErrorMemoryAllocation;
    if (e == cudaSuccess) {
        emu_mark_put(h->mark);
        h->mark = m;
    }
    return emu_end(e);
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t h, unsigned int flags)
{
    struct CUstream_st *s = NULL;
    cudaError_t e = emu_begin();
    if (e == cudaSuccess && flags != 0)
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess)
        e = emu_stream_of(stream, &s);
    if (e == cudaSuccess)
        e = event_ok(h);
    if (e == cudaSuccess && h->mark)
        e = emu_wait_mark(s, h->mark, 1);
    return emu_end(e);
}

cudaError_t cudaEventQuery(cudaEvent_t h)
{
    cudaError_t e = emu_begin();
    if (e == cudaSuccess)
        e = event_ok(h);
    if (e == cudaSuccess && h->mark && !h->mark->done)
        e = cudaErrorNotReady;
    else if (e == cudaSuccess && h->mark)
        emu_vc_merge(emu.host_vc, h->mark->vc);
    return emu_end(e);
}

cudaError_t cudaEventSynchronize(cudaEvent_t h)
{
    cudaError_t e = emu_begin();
    if (e == cudaSuccess)
        e = event_ok(h);
    emu_mark_t *m = e == cudaSuccess ? h->mark : NULL;
    if (m) {
        m->refs++; /* the event may be destroyed or re-recorded while we wait */
        while (!m->done)
            emu_wait();
        emu_vc_merge(emu.host_vc, m->vc);
        emu_mark_put(m);
        e = emu.sticky;
    }
    return emu_end(e);
}

/* The mark of a timed, recorded event h for cudaEventElapsedTime, into *m. */
static cudaError_t timed_mark(cudaEvent_t h, const emu_mark_t **m)
{
    cudaError_t e = event_ok(h);
    if (e == cudaSuccess && (!h->mark || (h->flags & cudaEventDisableTiming)))
        e = cudaErrorInvalidResourceHandle;
    if (e == cudaSuccess && !h->mark->done)
        e = cudaErrorNotReady;
    if (e == cudaSuccess)
        *m = h->mark;
    return e;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    const emu_mark_t *a = NULL, *b = NULL;
    cudaError_t e = emu_begin();
    if (e == cudaSuccess && !ms)
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess)
        e = timed_mark(start, &a);
    if (e == cudaSuccess)
        e = timed_mark(end, &b);
    if (e == cudaSuccess)
        *ms = (float)(((double)b->vtime - (double)a->vtime) / 1e6);
    return emu_end(e);
}

void emu_events_teardown(void)
{
    while (emu.events) {
        struct CUevent_st *ev = emu.events;
        emu.events = ev->next;
        emu_mark_put(ev->mark);
        free(ev);
    }
}
