/* Lab 10's workloads (serve/rl_serve.c, calls.toml's [[workload]]s), run in the student's process
 * for the benchmark: what the harness sends and what comes back. Every address in them is in the
 * memory shared with that process (mm_shared_alloc). What comes back is the student process's
 * word: the benchmark checks it (bench/passes.c). */
#ifndef RL_SERVE_H
#define RL_SERVE_H
#include <stdint.h>

/* Workload "pin": the thread that serves the harness's calls (so every kernel the benchmark
 * times) pinned to core `core` (mm_hw_try_pin); returns 0, or the pin's error (-errno). */
typedef struct {
    uint32_t core;
} rl_pin_in_t;

/* The kernels "passes" runs: GEMV traces A (x here) alone; softmax and LayerNorm x and y. */
enum { RL_PASS_GEMV, RL_PASS_SOFTMAX, RL_PASS_LAYERNORM, RL_PASS_KERNELS };

/* Workload "passes": one call of kernel `kernel` on x (rows x cols floats, page-aligned, a whole
 * number of pages) into y (rows x cols floats for softmax and LayerNorm, rows for GEMV), with
 * vec (GEMV's x), gamma and beta (cols floats each, untraced), under the page tracer
 * (serve/pagetrace.h): a model cache of window_bytes, counting stopped after cap_faults. */
typedef struct {
    uint32_t kernel;           /* RL_PASS_* */
    uint32_t rows, cols;
    uint64_t x, y, vec, gamma, beta;
    uint64_t window_bytes, cap_faults;
} rl_passes_in_t;

/* What the trace saw (pt_stats_t's fields) and the kernel's return code. */
typedef struct {
    int32_t rc;                /* the kernel's */
    int32_t capped;
    uint64_t page;             /* the page size the trace used */
    uint64_t pages, faults, touched;
} rl_passes_out_t;

#endif
