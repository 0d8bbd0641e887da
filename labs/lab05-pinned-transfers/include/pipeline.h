/* Lab 05, part D: the pipeline on a GPU. Runs a plan: for every chunk, copy it in (H2D), run the
 * transform kernel on it, copy it out (D2H), on the chunk's stream, reusing the chunk's slot
 * only after the slot's previous chunk has been copied out. Needs the CUDA runtime (a build
 * without nvcc gets versions that return -ENODEV, from src/gpu.c). */
#ifndef PT_PIPELINE_H
#define PT_PIPELINE_H
#include <stdint.h>
#include "plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pt_pipe pt_pipe_t;

/* Prepares to run `plan` (which must outlive the pipeline) from src to dst, two host arrays of
 * plan->total bytes (32-bit words: plan->elem must be 4) that must not overlap: page-locks both
 * with cudaHostRegister unless they are pinned already (cudaPointerGetAttributes says
 * cudaMemoryTypeHost, or cudaHostRegister says cudaErrorHostMemoryAlreadyRegistered: then they
 * are left as they are; a buffer only partly pinned is not supported, CUDA refuses copies that
 * span pinned and unpinned memory), allocates plan->slots device buffers of plan->slot_bytes,
 * and creates plan->streams streams and one event per slot.
 * Returns 0 and sets *out; on failure *out is untouched and nothing is left pinned or allocated.
 * Checks first, before any CUDA call:
 *   -EINVAL: out, plan, src or dst is NULL, the plan has no chunks, plan->elem != 4, or src and
 *            dst overlap;
 *   -ENOSPC: pinning src and dst (2 * total bytes) would exceed
 *            pt_pin_budget(pt_ram_bytes(), PT_PIN_PERCENT).
 * Then:
 *   -ENODEV: no usable GPU;
 *   -ENOMEM: out of memory;
 *   another negative errno from pt_cuda_errno. */
int pt_pipe_create(pt_pipe_t **out, const pt_plan_t *plan, const uint32_t *src, uint32_t *dst);

/* Runs the plan once: for every element, dst[i] = the transform of src[i] with `rounds` rounds
 * (see pt_launch_transform in gpu.h), chunk by chunk on the plan's streams, with the slot waits
 * of the plan as event waits. Returns when everything has finished. Sets *seconds (may be NULL)
 * to the wall time from the first call issued to the end. Returns 0;
 *   -EINVAL: p is NULL;
 *   a negative errno from pt_cuda_errno if CUDA fails. */
int pt_pipe_run(pt_pipe_t *p, unsigned rounds, double *seconds);

/* Waits for outstanding work, destroys the streams and events, frees the device buffers and
 * unregisters what pt_pipe_create registered. NULL is ignored. */
void pt_pipe_destroy(pt_pipe_t *p);

#ifdef __cplusplus
}
#endif
#endif
