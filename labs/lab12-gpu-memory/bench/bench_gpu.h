/* Lab 12 benchmark, the GPU half (bench_gpu.c): your three kernels compiled by nvcc and timed on
 * a real GPU against a device-to-device copy, where there is one; skipped with the reason
 * elsewhere. */
#ifndef BENCH_GPU_H
#define BENCH_GPU_H
#include <stddef.h>
#include "mm_json.h"

/* Writes the GPU_METRICS into the open "metrics" object: measured, skipped (no GPU, no nvcc, the
 * emulated CUDA device, a run too noisy to time) or failed (your kernel's output was wrong on the
 * GPU, it faulted, or nvcc refused it). Also fills name[0..n) with the GPU's name or why none was
 * timed, for the info object. Runs before any of your code runs on the CPU. */
void bench_gpu(mm_json_t *j, char *name, size_t n);

/* The device code of your src/kernels.cu (nvcc -fatbin, built in the sandbox; gpu_image.c), its
 * length (0: none), and what nvcc said ("ok", its errors, or why it did not run). */
const void *gpu_image(size_t *len);
const char *gpu_image_log(void);

#endif
