/* Lab 07: a simulated GPU (src/simdev.c, provided: do not edit): memory with a capacity, counted
 * raw calls that can be made slow on purpose, and streams and events whose work finishes when a
 * test says so. The tests and the benchmark run the allocator on it, on any machine. */
#ifndef CA_SIMDEV_H
#define CA_SIMDEV_H
#include <stddef.h>
#include <stdint.h>
#include "backend.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CA_SIMDEV_ALIGN 512     /* every raw_alloc address is a multiple of this */
#define CA_SIMDEV_FRESH 0xCD    /* fill of memory that raw_alloc hands out (backed devices) */
#define CA_SIMDEV_POISON 0xDB   /* fill of memory that raw_free takes back (backed devices) */
#define CA_SIMDEV_MAX_EVENTS 4096 /* events recorded and not yet released, at most */

typedef struct {
    size_t capacity;     /* device bytes, a multiple of CA_SIMDEV_ALIGN (> 0) */
    uint64_t latency_ns; /* modelled cost of every raw_alloc and raw_free (a busy wait), 0: none */
    int backed;          /* 1: the memory is host memory you may read and write (tests), filled
                          * with CA_SIMDEV_FRESH / CA_SIMDEV_POISON; 0: addresses only, as on a
                          * real GPU the host must never dereference them (large traces) */
} ca_simdev_config_t;

typedef struct {
    uint64_t alloc_calls;   /* raw_alloc calls, failed ones included */
    uint64_t alloc_fails;   /* ... of which failed */
    uint64_t free_calls;    /* raw_free calls, rejected ones included */
    uint64_t free_errors;   /* ... of which rejected (-EINVAL: foreign pointer, double free) */
    uint64_t syncs;         /* synchronize calls */
    size_t live_bytes;      /* bytes handed out by raw_alloc and not yet freed */
    size_t peak_bytes;      /* the most live_bytes has been */
    size_t live_regions;    /* regions handed out and not yet freed */
    size_t live_events;     /* events recorded and not yet released */
} ca_simdev_stats_t;

typedef struct ca_simdev ca_simdev_t;

/* Creates a device. Free with ca_simdev_destroy. Returns 0 and sets *out;
 *   -EINVAL: NULL arguments, capacity 0 or not a multiple of CA_SIMDEV_ALIGN;
 *   -ENOMEM: out of memory (a backed device allocates `capacity` host bytes). */
int ca_simdev_create(ca_simdev_t **out, const ca_simdev_config_t *cfg);

/* Frees the device and its memory (any regions still live go with it); NULL is ignored. */
void ca_simdev_destroy(ca_simdev_t *d);

/* Fills *be with this device's function table (name "simdev"). The device must outlive every
 * user of the table. */
void ca_simdev_backend(ca_simdev_t *d, ca_backend_t *be);

/* Copies the device's counters into *out. */
void ca_simdev_stats(const ca_simdev_t *d, ca_simdev_stats_t *out);

/* Sets peak_bytes to live_bytes (to measure the peak of one phase). */
void ca_simdev_reset_peak(ca_simdev_t *d);

/* Models a kernel queued on `stream`: events recorded on that stream after this call are not
 * done until ca_simdev_complete(stream) or synchronize. Out-of-range streams are ignored. */
void ca_simdev_launch(ca_simdev_t *d, ca_stream_t stream);

/* All work queued on `stream` so far has finished: its events recorded so far are done. */
void ca_simdev_complete(ca_simdev_t *d, ca_stream_t stream);

/* Makes the next raw_alloc fail with `err` (a negative errno, e.g. -EIO) without touching the
 * device: fault injection for tests. 0 cancels. */
void ca_simdev_fail_next_alloc(ca_simdev_t *d, int err);

/* 1 if [p, p + size) lies inside one live region of this device, else 0. */
int ca_simdev_owns(const ca_simdev_t *d, const void *p, size_t size);

#ifdef __cplusplus
}
#endif
#endif
