/* Lab 05, part D: the pipeline on a GPU (contract in include/pipeline.h).
 * Background and hints: labs/lab05-pinned-transfers/README.md, `make hint LAB=05`.
 * Compiled only where nvcc exists; without it, src/gpu.c supplies versions that return -ENODEV. */
#include "pipeline.h"
#ifdef MM_HAVE_CUDA
#include <errno.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>
#include "bandwidth.h"
#include "gpu.h"
#include "mm_timer.h"

struct pt_pipe {
    const pt_plan_t *plan;
    const uint32_t *src;
    uint32_t *dst;
    int registered_src, registered_dst; /* we page-locked them: unregister at the end */
    uint32_t *slot[PT_MAX_SLOTS];
    cudaStream_t stream[PT_MAX_STREAMS];
    cudaEvent_t done[PT_MAX_SLOTS]; /* recorded after each copy out from the slot */
};

static int overlapping(const void *a, const void *b, size_t n)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y + n && y < x + n;
}

static int check_args(pt_pipe_t **out, const pt_plan_t *plan, const uint32_t *src,
                      const uint32_t *dst)
{
    if (!out || !plan || !src || !dst || plan->n == 0 || !plan->chunks ||
        plan->elem != sizeof(uint32_t) || plan->streams == 0 ||
        plan->streams > PT_MAX_STREAMS || plan->slots == 0 || plan->slots > PT_MAX_SLOTS ||
        overlapping(src, dst, plan->total))
        return -EINVAL;
    size_t budget = 0;
    pt_pin_budget(pt_ram_bytes(), PT_PIN_PERCENT, &budget);
    return plan->total > budget / 2 ? -ENOSPC : 0;
}

/* Page-locks [p, p + n) unless it is pinned already; *mine says whether we did. */
static int pin(const void *p, size_t n, int *mine)
{
    struct cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) == cudaSuccess && a.type == cudaMemoryTypeHost)
        return 0;
    (void)cudaGetLastError();
    cudaError_t e = cudaHostRegister((void *)p, n, cudaHostRegisterDefault);
    if (e == cudaErrorHostMemoryAlreadyRegistered) {
        (void)cudaGetLastError();
        return 0;
    }
    *mine = e == cudaSuccess;
    return pt_cuda_errno(e);
}

static int make_resources(pt_pipe_t *p)
{
    cudaError_t e = cudaSuccess;
    for (unsigned k = 0; k < p->plan->slots && e == cudaSuccess; k++) {
        e = cudaMalloc((void **)&p->slot[k], p->plan->slot_bytes);
        if (e == cudaSuccess)
            e = cudaEventCreateWithFlags(&p->done[k], cudaEventDisableTiming);
    }
    for (unsigned s = 0; s < p->plan->streams && e == cudaSuccess; s++)
        e = cudaStreamCreateWithFlags(&p->stream[s], cudaStreamNonBlocking);
    return pt_cuda_errno(e);
}

int pt_pipe_create(pt_pipe_t **out, const pt_plan_t *plan, const uint32_t *src, uint32_t *dst)
{
    int rc = check_args(out, plan, src, dst);
    if (rc != 0)
        return rc;
    pt_pipe_t *p = calloc(1, sizeof *p);
    if (!p)
        return -ENOMEM;
    p->plan = plan;
    p->src = src;
    p->dst = dst;
    rc = pin(src, plan->total, &p->registered_src);
    if (rc == 0)
        rc = pin(dst, plan->total, &p->registered_dst);
    if (rc == 0)
        rc = make_resources(p);
    if (rc != 0) {
        pt_pipe_destroy(p);
        return rc;
    }
    *out = p;
    return 0;
}

/* Chunk i: wait for its slot, copy in, transform in place, copy out, mark the slot free. */
static int issue(pt_pipe_t *p, size_t i, unsigned rounds)
{
    const pt_chunk_t *c = &p->plan->chunks[i];
    cudaStream_t s = p->stream[c->stream];
    uint32_t *buf = p->slot[c->slot];
    const unsigned char *from = (const unsigned char *)p->src + c->offset;
    unsigned char *to = (unsigned char *)p->dst + c->offset;
    cudaError_t e = cudaSuccess;
    if (c->wait >= 0 && p->plan->chunks[c->wait].stream != c->stream)
        e = cudaStreamWaitEvent(s, p->done[c->slot], 0);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(buf, from, c->len, cudaMemcpyHostToDevice, s);
    if (e != cudaSuccess)
        return pt_cuda_errno(e);
    int rc = pt_launch_transform(buf, buf, c->len / sizeof(uint32_t), rounds, s);
    if (rc != 0)
        return rc;
    e = cudaMemcpyAsync(to, buf, c->len, cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess)
        e = cudaEventRecord(p->done[c->slot], s);
    return pt_cuda_errno(e);
}

int pt_pipe_run(pt_pipe_t *p, unsigned rounds, double *seconds)
{
    if (!p)
        return -EINVAL;
    uint64_t t0 = mm_now_ns();
    int rc = 0;
    for (size_t i = 0; i < p->plan->n && rc == 0; i++)
        rc = issue(p, i, rounds);
    for (unsigned s = 0; s < p->plan->streams; s++) {
        int r = pt_cuda_errno(cudaStreamSynchronize(p->stream[s]));
        rc = rc ? rc : r;
    }
    if (seconds)
        *seconds = mm_elapsed_s(t0);
    return rc;
}

void pt_pipe_destroy(pt_pipe_t *p)
{
    if (!p)
        return;
    for (unsigned s = 0; s < PT_MAX_STREAMS; s++)
        if (p->stream[s]) {
            cudaStreamSynchronize(p->stream[s]);
            cudaStreamDestroy(p->stream[s]);
        }
    for (unsigned k = 0; k < PT_MAX_SLOTS; k++) {
        if (p->done[k])
            cudaEventDestroy(p->done[k]);
        cudaFree(p->slot[k]);
    }
    if (p->registered_src)
        cudaHostUnregister((void *)p->src);
    if (p->registered_dst)
        cudaHostUnregister(p->dst);
    (void)cudaGetLastError();
    free(p);
}

#endif /* MM_HAVE_CUDA */
