/* Lab 07, the student's process: the workloads that loop over many allocator calls (the trace
 * replay, block sizes) and the CUDA back end of the GPU benchmark, which must live where the
 * allocator does. What they return is the student's word: the harness checks it. */
#include <errno.h>
#include <string.h>
#include "allocator.h"
#include "cudadev.h"
#include "lab07_serve.h"
#include "mm_emu.h"
#include "trace.h"

/* Workload "replay" (lab07_serve.h). Returns ca_trace_replay's result (-EINVAL for buffers of
 * the wrong size); out: the failed op's index. */
int serve_replay(const void *in, size_t in_len, void *out, size_t out_len)
{
    replay_in_t r;
    if (in_len != sizeof r || out_len != sizeof(replay_out_t))
        return -EINVAL;
    memcpy(&r, in, sizeof r);
    ca_trace_t t;
    memset(&t, 0, sizeof t);
    t.ops = (ca_op_t *)r.ops;
    t.nops = (size_t)r.end;
    size_t failed = 0;
    int rc = 0;
    for (uint64_t k = 0; rc == 0 && k < (r.reps ? r.reps : 1); k++)
        rc = ca_trace_replay(&t, (size_t)r.begin, (size_t)r.end, r.a, r.slots, &failed);
    replay_out_t o = { failed };
    memcpy(out, &o, sizeof o);
    return rc;
}

/* Workload "block_sizes" (lab07_serve.h). Returns 0, or -EINVAL for a wrong input size. */
int serve_block_sizes(const void *in, size_t in_len, void *out, size_t out_len)
{
    block_sizes_in_t b;
    (void)out, (void)out_len;
    if (in_len != sizeof b)
        return -EINVAL;
    memcpy(&b, in, sizeof b);
    for (uint64_t i = 0; i < b.n; i++)
        b.size[i] = ca_block_size(b.a, b.ptr[i]);
    return 0;
}

/* Workload "cuda_open" (lab07_serve.h): -ENODEV too where this process would run CUDA on the
 * emulated device (its timing is a model), with the reason. */
int serve_cuda_open(const void *in, size_t in_len, void *out, size_t out_len)
{
    cuda_open_in_t c;
    cuda_open_out_t o;
    if (in_len != sizeof c || out_len != sizeof o)
        return -EINVAL;
    memcpy(&c, in, sizeof c);
    memset(&o, 0, sizeof o);
    int rc = -ENODEV;
    ca_cudadev_t *d = NULL;
    if (ca_cuda_usable(o.why, sizeof o.why) && mm_cuda_backend(o.why, sizeof o.why) == 0)
        rc = ca_cudadev_create(&d, c.device); /* a GPU, not the emulated device */
    if (rc == 0) {
        ca_cudadev_backend(d, &o.be);
        o.dev = (uintptr_t)d;
    }
    memcpy(out, &o, sizeof o);
    return rc;
}

/* Workload "cuda_close": destroys the back end cuda_open made (in: its handle). Returns 0, or
 * -EINVAL for a wrong input size. */
int serve_cuda_close(const void *in, size_t in_len, void *out, size_t out_len)
{
    uint64_t h;
    (void)out, (void)out_len;
    if (in_len != sizeof h)
        return -EINVAL;
    memcpy(&h, in, sizeof h);
    ca_cudadev_destroy((ca_cudadev_t *)(uintptr_t)h);
    return 0;
}
