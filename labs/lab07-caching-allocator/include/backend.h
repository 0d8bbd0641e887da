/* Lab 07: the back end a caching allocator sits on, as a table of functions (the shape of SQLite's
 * sqlite3_mem_methods). Two back ends implement it: a simulated device (simdev.h, everywhere) and
 * CUDA (cudadev.h, cudaMalloc/cudaFree on a GPU). The allocator sees only this table. */
#ifndef CA_BACKEND_H
#define CA_BACKEND_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A stream: an in-order queue of device work, named by a small integer 0..CA_MAX_STREAMS-1.
 * Work queued on one stream runs in order; work on different streams may run at the same time. */
typedef unsigned ca_stream_t;
#define CA_MAX_STREAMS 64

/* An event: a marker recorded on a stream, done once all the work queued on that stream before
 * it has finished (cudaEventRecord / cudaEventQuery). Opaque; 0 is never a valid event. */
typedef uint64_t ca_event_t;

typedef struct ca_backend {
    const char *name; /* "simdev", "cuda" */
    void *ctx;        /* passed back as the first argument of every call */
    /* Reserves `size` bytes of device memory (size > 0, a multiple of 512) and sets *out to its
     * address, aligned to at least 512 bytes. Slow: think cudaMalloc. Returns 0;
     *   -ENOMEM: the device has no room;
     *   -EINVAL: size 0;
     *   other negative errnos for other failures. */
    int (*raw_alloc)(void *ctx, size_t size, void **out);
    /* Returns a whole region from raw_alloc to the device. Slow and synchronizing: think
     * cudaFree. Returns 0; -EINVAL for a pointer raw_alloc did not return (or already freed). */
    int (*raw_free)(void *ctx, void *ptr);
    /* Records an event on `stream` and sets *out. Returns 0, -EINVAL, -ENOMEM. */
    int (*record_event)(void *ctx, ca_stream_t stream, ca_event_t *out);
    /* Returns 1 if the event is done, 0 if not yet, -EINVAL for an unknown event. */
    int (*query_event)(void *ctx, ca_event_t ev);
    /* Forgets an event (every recorded event is released exactly once). Returns 0 or -EINVAL. */
    int (*release_event)(void *ctx, ca_event_t ev);
    /* Waits until all work on all streams is done (cudaDeviceSynchronize). Returns 0 or -errno. */
    int (*synchronize)(void *ctx);
} ca_backend_t;

#ifdef __cplusplus
}
#endif
#endif
