/* mm_cuda_api.h: an emulated CUDA device, for machines without a GPU.
 *
 * The subset of the CUDA runtime API that labs 05 and 07 use, with CUDA's own names, types and
 * numbers (cudaError_t values, flags, struct cudaPointerAttributes), so that C written against
 * <cuda_runtime_api.h> compiles unchanged against this header (include/cuda_runtime_api.h
 * forwards here) and runs on the host. Plus the emulator's own calls (mm_emu_*): kernels, the
 * model's settings, race mode and its report.
 *
 * What is emulated
 *   - One device, 0. Device memory: the address cudaMalloc returns is a reserved range that host
 *     code cannot read or write (a host dereference faults, as with a real GPU); the bytes live
 *     in a separate mapping that copies and kernels (mm_emu_view) use. Fresh memory holds the
 *     byte MM_EMU_POISON_FRESH, not zeros; a freed range stays reserved for a while (the last
 *     64 freed, within 1 GiB of address space), so a stale pointer faults on the host and is
 *     refused by every call. An allocation takes twice its size in address space (RLIMIT_AS),
 *     once in memory. Capacity is a setting: beyond it cudaMalloc fails with
 *     cudaErrorMemoryAllocation.
 *   - Page-locked host memory (cudaHostAlloc, cudaHostRegister) is tracked, so that
 *     cudaPointerGetAttributes tells device, page-locked and ordinary host memory apart and
 *     copies from or to it use the pinned bandwidth.
 *   - Streams: each has a worker thread running its work in order. Three engines, one H2D copy
 *     engine, one D2H copy engine and one compute engine (kernels, memsets, D2D copies): work on
 *     different engines overlaps, work on the same engine does not, as on a GPU with one copy
 *     engine per direction.
 *   - Time is a model: a copy takes bytes / bandwidth (settings: pinned 25 GB/s, pageable
 *     12.5 GB/s, on-device 1000 GB/s), a kernel the CPU time of its host function times a scale.
 *     Events read the model's clock, which also counts the time a stream waits for the host to
 *     give it work. With `pace` set (the default) work also takes at least its modelled time in
 *     real time, so polling, synchronizing and wall-clock timing behave plausibly.
 *   - The legacy default stream (NULL, cudaStreamLegacy): its work waits for earlier work of
 *     every blocking stream (cudaStreamCreate, cudaStreamDefault) and such streams' later work
 *     waits for it; cudaStreamNonBlocking streams do not synchronize with it. cudaMemcpy and
 *     cudaMemset use it: cudaMemcpy returns when its copy is done (in every direction; CUDA lets
 *     a D2D or staged H2D copy return earlier), cudaMemset does not wait (as CUDA, for device
 *     memory). cudaStreamSynchronize(NULL) waits for the blocking streams too.
 *   - cudaMemcpyAsync with ordinary (pageable) host memory, as the CUDA documentation describes:
 *     to the device, the source is copied to a staging buffer before the call returns (the
 *     caller may reuse it at once) and the transfer runs later in stream order at the pageable
 *     bandwidth; to the host, the call returns only once the copy is complete.
 *   - Errors: each failed call sets the calling thread's last error, which stays until
 *     cudaGetLastError returns and clears it (cudaPeekAtLastError only returns it);
 *     cudaErrorNotReady from a query is not an error and is not kept. A failed kernel (its host
 *     function returned non-zero) is a sticky error, as an illegal address is on a GPU: every
 *     later call fails with cudaErrorLaunchFailure until mm_emu_shutdown.
 *   - Race detection (always on): every copy, memset and declared kernel access to tracked
 *     memory (device, page-locked) is checked against earlier accesses from other streams;
 *     when nothing orders them (no event wait, no host synchronization, no legacy-stream
 *     ordering) and one of them writes, the first such conflict is kept for mm_emu_race_report.
 *     Race mode (MLMEM_CUDA_RACE=<seed>, or the settings) adds seeded random delays before each
 *     work item so that missing synchronization also gives wrong output.
 *   - Thread-safe: any thread may call anything.
 *
 * What is not
 *   - No real kernels: a "kernel" is a host function launched with mm_emu_launch (run by the
 *     stream's worker while it holds the compute engine); it reaches device memory through
 *     mm_emu_view and must not call the runtime.
 *   - No unified or managed memory, no mapped (zero-copy) access, no peer devices, no graphs, no
 *     per-thread default stream (cudaStreamPerThread is not defined), no stream priorities.
 *   - Timing is a model: pinned versus pageable bandwidth is a setting, not a measurement.
 *   - At most MM_EMU_MAX_STREAMS - 1 streams exist at a time; cudaStreamDestroy waits for the
 *     stream's work (CUDA returns at once and releases it later). A stream that reuses a
 *     destroyed stream's slot is taken as ordered after its work by the race checks.
 *   - Host memory accesses are not watched: a host read of a buffer that a stream still writes
 *     is not reported. One host clock of what has finished is shared by all host threads.
 *
 * How the labs use it: a lab's CUDA code is compiled against this header where no CUDA toolkit
 * is present (against the toolkit's where nvcc works), and linked with the emulator compiled
 * with MM_EMU_PRIVATE_NAMES (its entry points are then mm_emu_cudaX) and with mm_cuda_shim.c,
 * which defines the cudaX functions: each calls the real runtime where a GPU is usable and this
 * emulator otherwise (MLMEM_CUDA=emulate or =real forces the choice; see mm_emu.h). */
#ifndef MM_CUDA_API_H
#define MM_CUDA_API_H
#include <stddef.h>
#include <stdint.h>
#include "mm_cuda_values.h"
#ifdef MM_EMU_PRIVATE_NAMES
#include "mm_cuda_private_names.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define MM_EMU_ENUM_(name, value) name = value,
#define MM_EMU_ERROR_ENUM_(name, value, message) name = value,
enum cudaError { MM_EMU_ERRORS(MM_EMU_ERROR_ENUM_) };
enum cudaMemcpyKind { MM_EMU_MEMCPY_KINDS(MM_EMU_ENUM_) };
enum cudaMemoryType { MM_EMU_MEMORY_TYPES(MM_EMU_ENUM_) };
enum { MM_EMU_FLAGS(MM_EMU_ENUM_) };
#undef MM_EMU_ENUM_
#undef MM_EMU_ERROR_ENUM_

typedef enum cudaError cudaError_t;
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;

/* What cudaPointerGetAttributes says about a pointer (the toolkit's layout). */
struct cudaPointerAttributes {
    MM_EMU_POINTER_ATTRIBUTES_FIELDS
};

/* The legacy default stream, the same as NULL. */
#define cudaStreamLegacy ((cudaStream_t)0x1)

/* Compile-time knobs of the emulator (mm_cudaemu*.c). */
#define MM_EMU_MAX_STREAMS 64    /* stream slots, the legacy default stream's included */
#define MM_EMU_POISON_FRESH 0xCD /* every byte of fresh device memory */
#define MM_EMU_POISON_FREED 0xDD /* every byte of page-locked memory given back (cudaFreeHost) */

/* ---- Errors ------------------------------------------------------------------------------ */

/* Returns the calling thread's last error and resets it to cudaSuccess; after a failed kernel,
 * cudaErrorLaunchFailure whenever no other error is pending. */
cudaError_t cudaGetLastError(void);
/* Returns the calling thread's last error (as cudaGetLastError) without resetting it. */
cudaError_t cudaPeekAtLastError(void);
/* The runtime's message for `e` (a static string), "unrecognized error code" if unknown. */
const char *cudaGetErrorString(cudaError_t e);
/* The enumerator's name for `e`, e.g. "cudaErrorNotReady"; "unrecognized error code" if unknown. */
const char *cudaGetErrorName(cudaError_t e);

/* ---- Device ------------------------------------------------------------------------------ */

/* Sets *count to 1. cudaErrorInvalidValue: count is NULL. cudaErrorNoDevice (and *count = 0):
 * the settings say there is no device. */
cudaError_t cudaGetDeviceCount(int *count);
/* Makes `device` current: only 0 exists. cudaErrorInvalidDevice: any other number. */
cudaError_t cudaSetDevice(int device);
/* Sets *device to 0. cudaErrorInvalidValue: device is NULL. */
cudaError_t cudaGetDevice(int *device);
/* Waits until all work of every stream is done; the host then knows it finished. */
cudaError_t cudaDeviceSynchronize(void);
/* Device memory left and in all (the capacity setting). cudaErrorInvalidValue: a NULL pointer. */
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes);

/* ---- Memory ------------------------------------------------------------------------------ */

/* Allocates `size` bytes of device memory, page-aligned, every byte MM_EMU_POISON_FRESH, into
 * *ptr; size 0 gives NULL. Counts size rounded up to 512 bytes against the capacity.
 * cudaErrorInvalidValue: ptr is NULL. cudaErrorMemoryAllocation: over capacity, or no memory. */
cudaError_t cudaMalloc(void **ptr, size_t size);
/* Waits for all device work (as CUDA does), then frees device memory from cudaMalloc; NULL is
 * a no-op. cudaErrorInvalidValue: ptr is not the start of a live device allocation. */
cudaError_t cudaFree(void *ptr);
/* Allocates `size` bytes of page-locked host memory (page-aligned) into *ptr, remembering the
 * flags (cudaHostAllocDefault, Portable, Mapped, WriteCombined); size 0 gives NULL.
 * cudaErrorInvalidValue: ptr NULL or unknown flags. cudaErrorMemoryAllocation: no memory. */
cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags);
/* cudaHostAlloc with cudaHostAllocDefault. */
cudaError_t cudaMallocHost(void **ptr, size_t size);
/* Waits for all device work, fills the block with MM_EMU_POISON_FREED and frees memory from
 * cudaHostAlloc; NULL is a no-op. cudaErrorInvalidValue: not the start of such a block. */
cudaError_t cudaFreeHost(void *ptr);
/* The flags cudaHostAlloc was given for the block holding ptr. cudaErrorInvalidValue: flags is
 * NULL, or ptr is not in a cudaHostAlloc block (registered memory included, as in CUDA). */
cudaError_t cudaHostGetFlags(unsigned int *flags, void *ptr);
/* Page-locks [ptr, ptr + size) of ordinary host memory (nothing is touched). cudaErrorInvalidValue:
 * ptr NULL, size 0, unknown flags, or the range overlaps device memory.
 * cudaErrorHostMemoryAlreadyRegistered: it overlaps page-locked memory. */
cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags);
/* Unlocks a range registered at exactly ptr. cudaErrorHostMemoryNotRegistered: there is none. */
cudaError_t cudaHostUnregister(void *ptr);
/* Fills *attr for ptr (any address): cudaMemoryTypeDevice for device memory (devicePointer =
 * ptr, hostPointer NULL), cudaMemoryTypeHost for page-locked memory (both pointers ptr),
 * cudaMemoryTypeUnregistered otherwise (device -2, hostPointer ptr). cudaErrorInvalidValue:
 * attr is NULL. */
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attr, const void *ptr);

/* ---- Copies and memsets ------------------------------------------------------------------ */

/* Copies `count` bytes in stream order (see the header comment for pageable memory); kind
 * cudaMemcpyDefault infers the direction from the pointers; count 0 does nothing.
 * cudaErrorInvalidValue: a device side that is not entirely inside one device allocation, or a
 * host side that touches device memory. cudaErrorInvalidMemcpyDirection: an unknown kind.
 * cudaErrorInvalidResourceHandle: not a live stream. */
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream);
/* cudaMemcpyAsync on the legacy default stream, returning when the copy is done. */
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
/* Sets `count` bytes of device memory to (unsigned char)value in stream order.
 * cudaErrorInvalidValue: the range is not inside one device allocation. */
cudaError_t cudaMemsetAsync(void *dst, int value, size_t count, cudaStream_t stream);
/* cudaMemsetAsync on the legacy default stream (it does not wait for the memset). */
cudaError_t cudaMemset(void *dst, int value, size_t count);

/* ---- Streams ----------------------------------------------------------------------------- */

/* Creates a stream (a worker thread) into *stream; flags cudaStreamDefault (blocking: ordered
 * with the legacy default stream) or cudaStreamNonBlocking. cudaErrorInvalidValue: stream NULL
 * or unknown flags. cudaErrorMemoryAllocation: MM_EMU_MAX_STREAMS - 1 streams exist already,
 * or no thread could start. */
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
/* cudaStreamCreateWithFlags with cudaStreamDefault. */
cudaError_t cudaStreamCreate(cudaStream_t *stream);
/* Waits for the stream's work, then destroys it. cudaErrorInvalidResourceHandle: not a live
 * stream (the legacy default stream included). */
cudaError_t cudaStreamDestroy(cudaStream_t stream);
/* Waits until the work queued on the stream so far is done (NULL: and that of every blocking
 * stream); the host then knows it finished. */
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
/* cudaSuccess if the stream's queued work is done, else cudaErrorNotReady (not kept as the
 * last error). */
cudaError_t cudaStreamQuery(cudaStream_t stream);
/* Makes the stream's later work wait until the event's latest record (at the time of this
 * call) is reached; an event never recorded makes it wait for nothing. cudaErrorInvalidValue:
 * flags is not 0. cudaErrorInvalidResourceHandle: a dead stream or event. */
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags);

/* ---- Events ------------------------------------------------------------------------------ */

/* Creates an event; flags from cudaEventDefault, BlockingSync, DisableTiming, Interprocess
 * (only DisableTiming changes anything here). cudaErrorInvalidValue: event NULL, unknown flags. */
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
/* cudaEventCreateWithFlags with cudaEventDefault. */
cudaError_t cudaEventCreate(cudaEvent_t *event);
/* Destroys an event; a pending record still completes (waits on it still work).
 * cudaErrorInvalidResourceHandle: not a live event. */
cudaError_t cudaEventDestroy(cudaEvent_t event);
/* Records the event at the stream's current end: it completes, and takes the model's time,
 * when the stream's earlier work is done. Replaces any earlier record of the event. */
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
/* cudaSuccess if the event's latest record is reached (or it was never recorded), else
 * cudaErrorNotReady (not kept as the last error). */
cudaError_t cudaEventQuery(cudaEvent_t event);
/* Waits until the event's latest record is reached (at once if never recorded). */
cudaError_t cudaEventSynchronize(cudaEvent_t event);
/* Sets *ms to the model's time from start's record to end's (may be negative).
 * cudaErrorInvalidValue: ms NULL. cudaErrorInvalidResourceHandle: a dead event, one never
 * recorded, or one created with cudaEventDisableTiming. cudaErrorNotReady: one is not reached. */
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);

#ifdef __cplusplus
}
#endif

/* The emulator's own calls (mm_emu_*) and the back-end choice (mm_cuda_emulated). */
#include "mm_emu.h"
#endif
