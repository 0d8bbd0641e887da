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
    /* ===== YOUR CODE HERE: the plan, src and dst, what you pinned, one device buffer and one
     * event per slot, one stream per plan stream ===== */
    const pt_plan_t *plan;
    /* ===== END YOUR CODE ===== */
};

int pt_pipe_create(pt_pipe_t **out, const pt_plan_t *plan, const uint32_t *src, uint32_t *dst)
{
    /* ===== YOUR CODE HERE =====
     * All the checks of pipeline.h first (no CUDA call before them). Then pin src and dst
     * (cudaHostRegister, unless cudaPointerGetAttributes says cudaMemoryTypeHost already),
     * cudaMalloc the slots, cudaEventCreateWithFlags(cudaEventDisableTiming) one event per
     * slot, cudaStreamCreateWithFlags(cudaStreamNonBlocking) the streams. On any failure undo
     * everything (pt_pipe_destroy can do that if it copes with a half-built pipeline). */
    (void)out, (void)plan, (void)src, (void)dst;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int pt_pipe_run(pt_pipe_t *p, unsigned rounds, double *seconds)
{
    /* ===== YOUR CODE HERE =====
     * For each chunk, on its stream: wait for its slot's event if the chunk has a wait
     * (cudaStreamWaitEvent), cudaMemcpyAsync in, pt_launch_transform in place, cudaMemcpyAsync
     * out, cudaEventRecord the slot's event. Then synchronize every stream. Time it with
     * mm_now_ns / mm_elapsed_s (mm_timer.h). */
    (void)p, (void)rounds, (void)seconds;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

void pt_pipe_destroy(pt_pipe_t *p)
{
    /* ===== YOUR CODE HERE ===== */
    free(p);
    /* ===== END YOUR CODE ===== */
}

#endif /* MM_HAVE_CUDA */
