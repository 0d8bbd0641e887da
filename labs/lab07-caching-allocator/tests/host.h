/* Lab 07, the harness's end of the forwarding back end (serve/forward.c). The devices the
 * student's allocator runs on live here, in the harness: every call its back end makes comes here
 * as a callback and runs on the harness's own device, so raw calls, bytes reserved and the peak
 * are counted where the student's code cannot reach them. The tests and the benchmark use it
 * (bench/host.c builds this file's code into the benchmark). */
#ifndef LAB07_HOST_H
#define LAB07_HOST_H
#include <stddef.h>
#include "backend.h"

#define HOST_MAX_DEVICES 8

/* Serves back end *be (the harness's own table: a simulated device's or CUDA's; copied) to the
 * student's process as a device number. Returns it (>= 0), or -ENOSPC when
 * HOST_MAX_DEVICES are attached. */
int host_attach(const ca_backend_t *be);

/* Forgets device dev and the regions it handed out; calls for it fail with -EINVAL after. */
void host_detach(int dev);

/* Sets *out to the forwarding table for dev, in memory shared with the student's process (the
 * `be` of ca_create); local_events: its events answered there, done at once (lab07_serve.h's
 * fwd_dev_in_t). Returns 0, or what the student's process answered (-errno). */
int host_backend(int dev, int local_events, ca_backend_t **out);

/* 1 if [p, p + n) lies inside one region device dev handed out through a forwarded raw_alloc
 * and has not taken back, else 0. */
int host_owns(int dev, const void *p, size_t n);

#endif
