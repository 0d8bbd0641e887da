/* Lab 07 tests: a simulated device in the harness with your allocator on it (in your process,
 * over the forwarding back end: host.h), and fill/verify patterns that prove two live blocks
 * never share a byte. Used by every check_*.c of this lab. */
#ifndef CA_SUPPORT_H
#define CA_SUPPORT_H
#include <stddef.h>
#include <stdint.h>
#include "allocator.h"
#include "simdev.h"

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)

typedef struct {
    ca_simdev_t *dev;  /* the harness's device: its counters are the evidence */
    int id;            /* its number for the forwarding back end (host.h) */
    ca_backend_t *be;  /* the forwarding table, in shared memory */
    ca_allocator_t *a; /* your allocator: a handle into your process */
} td_t;

/* A backed device of `capacity` bytes and a fresh allocator on it (asserts on failure). */
void td_open(td_t *t, size_t capacity);
/* The same on a device configured by *cfg. */
void td_open_cfg(td_t *t, const ca_simdev_config_t *cfg);
/* Destroys the allocator (if t->a is not NULL), then the device. */
void td_close(td_t *t);

/* The device's counters / your allocator's statistics (asserts that ca_get_stats works). */
ca_simdev_stats_t td_dev(const td_t *t);
ca_stats_t td_stats(const td_t *t);

/* ca_alloc that must succeed; checks the 512-byte alignment and that the memory is the device's. */
void *td_alloc(td_t *t, size_t size, ca_stream_t stream);
/* ca_free that must succeed. */
void td_free(td_t *t, void *p);

/* The back end's raw calls so far (raw_alloc and raw_free), read from `dev`. */
typedef unsigned long long (*td_raw_calls_t)(const void *dev);

/* After every block has been freed, each of size[0..n) again, alone (ca_alloc, then ca_free on
 * stream 0), must come from the cache: the segment it was carved from is whole and free again.
 * All of them at once need not fit (best fit may put a small block into the segment a large one
 * came from: 5, 14, 12 MiB), so this checks one at a time. Asserts. */
void td_reuse_each_size(ca_allocator_t *a, const size_t *size, int n, td_raw_calls_t raw_calls,
                        const void *dev);

/* Fills n bytes at p (device memory of t's backed device: asserted before it is touched) with
 * the pattern of `tag` / checks them (returns 1 if intact). Blocks larger than 64 KiB get their
 * first and last 16 KiB patterned, which is enough to see a poisoned (released) segment or a
 * neighbour written over an edge. */
void td_fill(const td_t *t, void *p, size_t n, uint32_t tag);
int td_intact(const td_t *t, const void *p, size_t n, uint32_t tag);

#endif
