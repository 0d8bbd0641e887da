/* mm_emu.h: the emulated CUDA device's own calls (mm_emu_*), and the choice between it and the
 * real CUDA runtime (mm_cuda_emulated, mm_cuda_backend: common/cudaemu/mm_cuda_shim.c).
 * Usable with either <cuda_runtime_api.h>: the toolkit's (nvcc builds: the emulator then runs
 * behind the shim) or the emulator's (mm_cuda_api.h, which includes this file). */
#ifndef MM_EMU_H
#define MM_EMU_H
#include <stddef.h>
#include <stdint.h>
#ifndef MM_CUDA_API_H
#include <cuda_runtime_api.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- The emulator's own calls ------------------------------------------------------------ */

/* An emulated kernel: runs on the host, returns 0, or non-zero for a fault (the error becomes
 * sticky: cudaErrorLaunchFailure). It reaches device memory through mm_emu_view. */
typedef int (*mm_emu_fn_t)(void *arg);

/* A range of device memory a kernel reads or writes, declared for the race checks. */
typedef struct {
    const void *ptr;
    size_t bytes;
    int writes; /* 1: the kernel writes (and may read) it; 0: only reads */
} mm_emu_span_t;

/* A kernel launch in full. */
typedef struct {
    mm_emu_fn_t fn;
    const void *arg;             /* passed to fn: copied at launch when arg_size > 0, like a */
    size_t arg_size;             /* kernel's parameters, else passed as is (it must live on) */
    const mm_emu_span_t *spans;  /* device memory it touches (may be NULL: then unchecked) */
    unsigned n_spans;
    double model_ns;             /* > 0: its modelled duration; 0: fn's CPU time x kernel_scale */
} mm_emu_kernel_t;

/* Launches kernel k on `stream`: fn(arg) runs on the compute engine in stream order.
 * cudaErrorInvalidValue: k or k->fn NULL, model_ns negative, a span not inside one device
 * allocation, or no memory for the argument copy. cudaErrorInvalidResourceHandle: not a live
 * stream. */
cudaError_t mm_emu_launch_kernel(cudaStream_t stream, const mm_emu_kernel_t *k);
/* mm_emu_launch_kernel with fn, arg, arg_size and nothing else: no declared spans, timed. */
cudaError_t mm_emu_launch(cudaStream_t stream, mm_emu_fn_t fn, const void *arg,
                          size_t arg_size);
/* For emulated kernels: where host code can read and write the `bytes` bytes of device memory at
 * dev; NULL if they are not inside one device allocation (a kernel then returns non-zero). */
void *mm_emu_view(const void *dev, size_t bytes);

/* The model's settings. */
typedef struct {
    int devices;           /* 1, or 0: a machine without a GPU (every call: cudaErrorNoDevice) */
    size_t device_bytes;   /* device memory capacity (4 GiB) */
    double pinned_gbps;    /* copies between the device and page-locked memory (25 GB/s) */
    double pageable_gbps;  /* ... and ordinary host memory (12.5 GB/s) */
    double device_gbps;    /* device-to-device copies and memsets (1000 GB/s) */
    double kernel_scale;   /* a kernel's modelled time: its host function's CPU time x this (1) */
    int pace;              /* 1: work also takes at least its modelled time in real time (1) */
    int race;              /* race mode: random delays before each work item (0) */
    uint64_t race_seed;    /* seeds the delays */
    unsigned race_delay_us; /* the longest delay (2000) */
} mm_emu_config_t;

/* The settings in force (the defaults above, with MLMEM_CUDA_RACE=<seed> turning race mode on
 * with that seed, until mm_emu_configure). */
void mm_emu_config_get(mm_emu_config_t *c);
/* Replaces the settings; copies and memsets queued before keep their modelled cost, and streams
 * their queues. cudaErrorInvalidValue: c
 * NULL, devices not 0 or 1, device_bytes 0, a bandwidth not positive and finite, kernel_scale
 * negative or not finite. */
cudaError_t mm_emu_configure(const mm_emu_config_t *c);

/* The number of races found so far; the first one's description in buf[0..n) (may be NULL),
 * naming both streams as mm_emu_stream_id does ("stream 2", "the default stream"), the two
 * operations and the bytes they share; "" when none. */
unsigned mm_emu_race_report(char *buf, size_t n);
/* The number by which reports name a live stream (0: the legacy default stream); -1 if dead. */
int mm_emu_stream_id(cudaStream_t stream);

/* Waits for all work, then frees everything (streams, events, memory, registrations), clears
 * errors and races and forgets the settings: the next call starts afresh. Handles from before
 * are dead. */
void mm_emu_shutdown(void);

/* ---- Real or emulated (mm_cuda_shim.c, in programs that link the shim) -------------------- */

/* 1 if this process's CUDA calls run on the emulator, 0 if on the real runtime; decided once,
 * at the first call of either this or any CUDA function: MLMEM_CUDA=emulate forces the emulator,
 * MLMEM_CUDA=real the real runtime (libcudart.so.13 or libcudart.so, loaded at run time); else
 * the real runtime if it loads, lists a device and creates a context on device 0 (cudaSetDevice,
 * cudaFree(0)), the emulator otherwise. */
int mm_cuda_emulated(void);
/* mm_cuda_emulated(), with the reason for the choice in why[0..n) (why may be NULL), for
 * reports: "no usable GPU: <the runtime's message> (<its error name>)", "MLMEM_CUDA=emulate",
 * "MLMEM_CUDA=real", "a usable GPU", or why a build without nvcc emulates. */
int mm_cuda_backend(char *why, size_t n);

#ifdef __cplusplus
}
#endif
#endif
