/* Lab 05's boundary protocol: what the student's process (serve/) and the harness (tests/,
 * bench/) both know. The student's code drives the CUDA runtime (a GPU or the emulated device)
 * in its own process, so what the tests must ask that runtime about memory of that process (is
 * it page-locked, does a copy to the device and back keep it) is asked there, by these
 * workloads; the harness compares the bytes that come back with what it wrote itself. What that
 * runtime says of page-locking is this process's word: the tests that use it are worth no
 * points (lab.toml). */
#ifndef LAB05_SERVE_H
#define LAB05_SERVE_H
#include <stdint.h>

/* Workload "gpu_state": no input; out gpu_state_t: pt_gpu_usable and pt_gpu_backend in the
 * student's process, where the CUDA code runs. Returns 0. */
typedef struct {
    int32_t usable, emulated; /* 1 or 0 */
    char why[300];            /* pt_gpu_usable's reason, or the backend's description */
} gpu_state_t;

/* Workload "host_probe": in host_probe_in_t, out host_probe_out_t. What the CUDA runtime says
 * about host address `addr` (the student's memory); if `back` (shared memory, `bytes` long) is
 * not 0, first fills [addr, addr + bytes) with probe_byte(seed, i) (written there, by the CPU:
 * pinned memory may be a mapping that only its own process can write), then copies it to a fresh
 * device buffer and from there into back. Returns 0, or -EINVAL for buffers of the wrong size. */
typedef struct {
    uint64_t addr, bytes, back, seed;
} host_probe_in_t;

/* Byte i of the pattern `seed`: what a round trip must bring back. */
static inline unsigned char probe_byte(uint64_t seed, uint64_t i)
{
    return (unsigned char)(seed + i * 7 + (i >> 12));
}
typedef struct {
    int32_t pinned;     /* cudaPointerGetAttributes: 1 page-locked host memory, 0 not, -1 error */
    int32_t flags_rc;   /* cudaHostGetFlags' cudaError_t */
    uint32_t flags;     /* its flags */
    int32_t copy_rc;    /* the round trip's first failure (a cudaError_t); 0: none, or not asked */
} host_probe_out_t;

/* Workload "pinned_alloc": in pinned_alloc_in_t, out uint64_t (an address of this process):
 * cudaHostAlloc(..., cudaHostAllocDefault), every byte then set to `fill`. Returns the
 * cudaError_t. "pinned_free": in uint64_t
 * (that address), cudaFreeHost; returns the cudaError_t. */
typedef struct {
    uint64_t bytes;
    uint32_t fill, pad;
} pinned_alloc_in_t;

/* Workload "race_report": out char[RACE_REPORT_MAX]: the emulated device's first race
 * (mm_emu_race_report), "" elsewhere. Returns the number of races found (0: none). */
#define RACE_REPORT_MAX 320

/* Workload "cuda_last_error": no input; out char[CUDA_ERROR_MAX]: the runtime's message and name
 * of the last CUDA failure pt_cuda_errno saw in this process ("" if none), which it forgets
 * (pt_cuda_last_error). Returns that cudaError_t. For the benchmark's reports only. */
#define CUDA_ERROR_MAX 200

/* Workload "device_sync": waits for every stream of the process's device (cudaDeviceSynchronize;
 * nothing where no device is usable). Returns the cudaError_t. The benchmark calls it before it
 * times a baseline of its own: the idle check sees only CPU time, not GPU work still queued. */

#endif
