/* Lab 07: the CUDA back end (see cudadev.h). Provided: the grader builds its own copy. Host code
 * only (C, no nvcc needed): on a real GPU where one is usable, on the emulated device elsewhere.
 * Every CUDA error becomes a negative errno and is cleared, so that one failure does not leak
 * into the next call. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>
#include "cudadev.h"
#include "mm_cuda_check.h"

#define MAX_EVENTS 4096

struct ca_cudadev {
    int device;
    int selected; /* cudaSetDevice succeeded */
    cudaStream_t stream[CA_MAX_STREAMS];
    int have_stream[CA_MAX_STREAMS];
    cudaEvent_t event[MAX_EVENTS];
    int created[MAX_EVENTS], used[MAX_EVENTS];
    unsigned long long raw_calls;
};

int ca_cuda_errno(int cuda_error)
{
    return mm_cuda_errno((cudaError_t)cuda_error);
}

/* The errno of `e`, after clearing the runtime's last-error state. */
static int fail(cudaError_t e)
{
    (void)cudaGetLastError();
    return ca_cuda_errno((int)e);
}

int ca_cuda_usable(char *why, size_t n)
{
    return mm_cuda_usable(why, n) > 0;
}

static int select_device(ca_cudadev_t *d)
{
    if (d->selected)
        return 0;
    cudaError_t e = cudaSetDevice(d->device);
    if (e != cudaSuccess)
        return fail(e);
    d->selected = 1;
    return 0;
}

int ca_cudadev_create(ca_cudadev_t **out, int device)
{
    if (!out || device < 0)
        return -EINVAL;
    ca_cudadev_t *d = (ca_cudadev_t *)calloc(1, sizeof *d);
    if (!d)
        return -ENOMEM;
    d->device = device;
    *out = d;
    return 0;
}

void ca_cudadev_destroy(ca_cudadev_t *d)
{
    if (!d)
        return;
    if (d->selected) {
        for (int i = 0; i < MAX_EVENTS; i++)
            if (d->created[i])
                cudaEventDestroy(d->event[i]);
        for (int s = 0; s < CA_MAX_STREAMS; s++)
            if (d->have_stream[s])
                cudaStreamDestroy(d->stream[s]);
        (void)cudaGetLastError();
    }
    free(d);
}

void *ca_cudadev_stream(ca_cudadev_t *d, ca_stream_t s)
{
    if (!d || s >= CA_MAX_STREAMS || select_device(d) != 0)
        return NULL;
    if (!d->have_stream[s]) {
        cudaError_t e = cudaStreamCreateWithFlags(&d->stream[s], cudaStreamNonBlocking);
        if (e != cudaSuccess) {
            fail(e);
            return NULL;
        }
        d->have_stream[s] = 1;
    }
    return (void *)d->stream[s];
}

static int cu_raw_alloc(void *ctx, size_t size, void **out)
{
    ca_cudadev_t *d = (ca_cudadev_t *)ctx;
    d->raw_calls++;
    if (!out || size == 0)
        return -EINVAL;
    int rc = select_device(d);
    if (rc != 0)
        return rc;
    cudaError_t e = cudaMalloc(out, size);
    return e == cudaSuccess ? 0 : fail(e);
}

static int cu_raw_free(void *ctx, void *ptr)
{
    ca_cudadev_t *d = (ca_cudadev_t *)ctx;
    d->raw_calls++;
    int rc = select_device(d);
    if (rc != 0)
        return rc;
    cudaError_t e = cudaFree(ptr);
    return e == cudaSuccess ? 0 : fail(e);
}

static int cu_record_event(void *ctx, ca_stream_t stream, ca_event_t *out)
{
    ca_cudadev_t *d = (ca_cudadev_t *)ctx;
    if (stream >= CA_MAX_STREAMS || !out)
        return -EINVAL;
    int rc = select_device(d);
    if (rc != 0)
        return rc;
    cudaStream_t st = (cudaStream_t)ca_cudadev_stream(d, stream);
    if (!st)
        return -EIO;
    int i = 0;
    while (i < MAX_EVENTS && d->used[i])
        i++;
    if (i == MAX_EVENTS)
        return -ENOMEM;
    if (!d->created[i]) {
        cudaError_t e = cudaEventCreateWithFlags(&d->event[i], cudaEventDisableTiming);
        if (e != cudaSuccess)
            return fail(e);
        d->created[i] = 1;
    }
    cudaError_t e = cudaEventRecord(d->event[i], st);
    if (e != cudaSuccess)
        return fail(e);
    d->used[i] = 1;
    *out = (ca_event_t)i + 1;
    return 0;
}

static int event_index(const ca_cudadev_t *d, ca_event_t ev)
{
    return ev == 0 || ev > MAX_EVENTS || !d->used[ev - 1] ? -1 : (int)(ev - 1);
}

static int cu_query_event(void *ctx, ca_event_t ev)
{
    ca_cudadev_t *d = (ca_cudadev_t *)ctx;
    int rc, i = event_index(d, ev);
    if (i < 0)
        return -EINVAL;
    cudaError_t e = cudaEventQuery(d->event[i]);
    if (e == cudaSuccess)
        return 1;
    rc = fail(e);
    return rc == -EAGAIN ? 0 : rc; /* not ready yet */
}

static int cu_release_event(void *ctx, ca_event_t ev)
{
    ca_cudadev_t *d = (ca_cudadev_t *)ctx;
    int i = event_index(d, ev);
    if (i < 0)
        return -EINVAL;
    d->used[i] = 0;
    return 0;
}

static int cu_synchronize(void *ctx)
{
    ca_cudadev_t *d = (ca_cudadev_t *)ctx;
    int rc = select_device(d);
    if (rc != 0)
        return rc;
    cudaError_t e = cudaDeviceSynchronize();
    return e == cudaSuccess ? 0 : fail(e);
}

void ca_cudadev_backend(ca_cudadev_t *d, ca_backend_t *be)
{
    be->name = "cuda";
    be->ctx = d;
    be->raw_alloc = cu_raw_alloc;
    be->raw_free = cu_raw_free;
    be->record_event = cu_record_event;
    be->query_event = cu_query_event;
    be->release_event = cu_release_event;
    be->synchronize = cu_synchronize;
}

unsigned long long ca_cudadev_raw_calls(const ca_cudadev_t *d)
{
    return d ? d->raw_calls : 0;
}
