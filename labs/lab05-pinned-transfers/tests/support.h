/* Lab 05 tests: what the test files share. Your code, and the CUDA runtime it drives, run in a
 * process of their own (calls.toml): the GPU questions are asked there (serve/cuda_work.c), and
 * your memory is read with mm_peek. GPU tests skip, with the reason, where this build has no
 * CUDA (no nvcc) or your process no usable GPU: a skip is never a pass. */
#ifndef PT_SUPPORT_H
#define PT_SUPPORT_H
#include <stddef.h>
#include "gpu.h"
#include "mm_call.h"
#include "mm_check.h"
#include "plan.h"
#include "../serve/lab05_serve.h"

/* Ends the test as skipped unless the GPU code was compiled (nvcc was found and works). */
#ifdef MM_HAVE_CUDA
#define NEED_CUDA_BUILD() ((void)0)
#else
#define NEED_CUDA_BUILD() MM_SKIP("%s: the GPU code is not compiled", PT_NO_CUDA_BUILD)
#endif

/* pt_gpu_usable and pt_gpu_backend in your process (workload "gpu_state"). */
gpu_state_t student_gpu(void);

/* Ends the test as skipped unless your process has a usable CUDA device. */
#define NEED_GPU()                                                                       \
    do {                                                                                 \
        gpu_state_t need_gpu_ = student_gpu();                                           \
        if (!need_gpu_.usable)                                                           \
            MM_SKIP("no usable CUDA device: %s", need_gpu_.why);                         \
    } while (0)

/* A copy of p[0..n) in memory shared with your process (at least 1 byte). */
void *share(const void *p, size_t n);

/* A copy of *p in shared memory: a plan your process may keep (pt_pipe_create). */
pt_plan_t *share_plan(const pt_plan_t *p);

/* p->n chunks read from your process (p->chunks is its memory), into memory the caller frees;
 * fails the test if they cannot be read. NULL when p->n is 0. */
pt_chunk_t *peek_chunks(const pt_plan_t *p);

#endif
