/* Lab 07's boundary protocol: what the student's process (serve/) and the harness (tests/,
 * bench/) both know. The allocator runs in the student's process over a forwarding back end whose
 * every call is a callback (FWD_CALLBACK) to the harness, where the harness's own device does
 * the work and keeps the counts; the trace is replayed there by the workload "replay". */
#ifndef LAB07_SERVE_H
#define LAB07_SERVE_H
#include <stdint.h>
#include "backend.h"
#include "trace.h"

/* The callback every forwarded back-end call makes (mm_serve_callback / mm_call_on_callback). */
#define FWD_CALLBACK "ca.backend"

enum { FWD_RAW_ALLOC = 1, FWD_RAW_FREE, FWD_RECORD_EVENT, FWD_QUERY_EVENT, FWD_RELEASE_EVENT,
       FWD_SYNCHRONIZE };

/* One back-end call: device `dev` (the harness's number for it), FWD_* `op`, and its argument
 * (a size, a device address, a stream or an event; 0 if none). */
typedef struct {
    uint32_t dev, op;
    uint64_t arg;
} fwd_req_t;

/* Its answer: the back end's result and the value it set (an address or an event). */
typedef struct {
    int32_t rc;
    uint32_t pad;
    uint64_t value;
} fwd_ret_t;

/* Workload "fwd_backend": in fwd_dev_in_t, out ca_backend_t (the forwarding table for device
 * `dev`, its pointers this process's own). With local_events, events are answered in this
 * process, each done once recorded, as the harness's device answers them when no work was
 * launched on it (the timed metric, where nothing launches work): no round trip per event; raw
 * calls still go to the harness. */
typedef struct {
    uint32_t dev, local_events;
} fwd_dev_in_t;

/* Workload "replay": ca_trace_replay of ops[begin, end) on allocator a (this process's handle),
 * each tensor's address in slots[id] (both arrays in shared memory), `reps` times in a row (0
 * reads 1: a step that frees what it allocates can be timed as one call of many steps). Returns
 * its result (the first that is not 0); out: replay_out_t. */
typedef struct {
    const ca_op_t *ops;
    uint64_t begin, end;
    ca_allocator_t *a;
    void **slots;
    uint64_t reps;
} replay_in_t;
typedef struct {
    uint64_t failed_op;
} replay_out_t;

/* Workload "block_sizes": size[i] = ca_block_size(a, ptr[i]) for i < n (arrays in shared
 * memory). Returns 0. */
typedef struct {
    const ca_allocator_t *a;
    void *const *ptr;
    uint64_t *size;
    uint64_t n;
} block_sizes_in_t;

/* Workload "cuda_open": a CUDA back end in this process for GPU `device` (the GPU benchmark).
 * Returns 0 with out's handle and table; or -ENODEV with out.why (no usable GPU here, or only
 * the emulated device), -errno. */
typedef struct {
    int32_t device;
} cuda_open_in_t;
typedef struct {
    uint64_t dev; /* ca_cudadev_t *, this process's */
    ca_backend_t be;
    char why[200];
} cuda_open_out_t;

/* Workload "cuda_close": in uint64_t, the handle cuda_open gave. Returns 0. */

#endif
