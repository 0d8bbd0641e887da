/* Lab 05: provided helpers (src/gpu.c, src/kernels.cu, src/kernels_host.c: not yours to edit;
 * the grader builds its own copy): is there a usable GPU (real or emulated), CUDA errors as
 * errnos, the machine's RAM, the transform kernel and its host-side oracle, a checksum. Where no
 * GPU is usable (or MLMEM_CUDA=emulate), the CUDA calls run on the emulated device
 * (common/cudaemu/): the same API, with streams, events and copy engines, timing from a model. */
#ifndef PT_GPU_H
#define PT_GPU_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PT_PIN_PERCENT 10 /* this lab pins at most 10 % of RAM */

/* Why a build has no GPU parts (only a build without MM_HAVE_CUDA, which common/lab-build.mk
 * never makes). */
#define PT_NO_CUDA_BUILD "built without CUDA (no nvcc, or it cannot compile here: see the build)"

/* 1 if this process can run work on CUDA device 0, a real GPU or the emulated device (which is
 * used where no GPU is usable), with pt_gpu_backend's description in why[0..n) (why may be
 * NULL); else 0 with the reason: the runtime's message and error name, e.g. "CUDA driver version
 * is insufficient for CUDA runtime version (cudaErrorInsufficientDriver)", or PT_NO_CUDA_BUILD. */
int pt_gpu_usable(char *why, size_t n);

/* 1 if the CUDA calls run on the emulated device (timing is then a model), 0 on a real GPU; the
 * choice and its reason in why[0..n) (why may be NULL), e.g. "emulated device (no usable GPU:
 * no CUDA-capable device is detected (cudaErrorNoDevice))" or "real CUDA device (a usable GPU)". */
int pt_gpu_backend(char *why, size_t n);

/* Maps a cudaError_t (passed as an int) to a negative errno, clears the runtime's last error and
 * remembers a failure for pt_cuda_last_error:
 *   0:       success;
 *   -ENOMEM: out of memory;
 *   -EINVAL: invalid value;
 *   -ENODEV: no usable device (none, a bad one, no driver or one too old, a busy
 *            exclusive-process GPU, a system not ready);
 *   -EAGAIN: not ready;
 *   -EEXIST: memory already registered;
 *   -EIO:    anything else. */
int pt_cuda_errno(int cuda_error);

/* The last failure (a cudaError_t as an int) that pt_cuda_errno saw in this thread since the
 * previous call, 0 if none; forgets it. What went wrong where only an errno came back (e.g. a
 * kernel launch's real error). */
int pt_cuda_last_error(void);

/* Physical memory of this machine in bytes (sysconf), at least 1. */
size_t pt_ram_bytes(void);

/* The transform: `rounds` steps of the 32-bit LCG x = x * 1664525 + 1013904223 (mod 2^32). */
#define PT_LCG_A 1664525u
#define PT_LCG_C 1013904223u

/* Launches the transform kernel on `stream` (a cudaStream_t; NULL: the default stream) over n
 * words: out[i] = transform(in[i], rounds); in == out is allowed. Device pointers. Its cost grows
 * with `rounds`: 0 rounds is a plain device-to-device copy. Returns 0 or a negative errno (the
 * launch's error). n == 0 launches nothing. */
int pt_launch_transform(const uint32_t *in, uint32_t *out, size_t n, unsigned rounds,
                        void *stream);

/* The transform with `rounds` rounds is the affine map x -> a * x + b (mod 2^32): sets *a, *b in
 * O(rounds) so that a host can check millions of results quickly. */
void pt_transform_coeffs(unsigned rounds, uint32_t *a, uint32_t *b);

/* A checksum of v[0..n) that depends on every word and its position. */
uint64_t pt_checksum(const uint32_t *v, size_t n);

#ifdef __cplusplus
}
#endif
#endif
