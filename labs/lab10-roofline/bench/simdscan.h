/* Lab 10 benchmark: "reductions in SIMD lanes", read from your compiled code. The build
 * disassembles the object it links your files into (`objdump -dr`, lab.mk) and copies the
 * listing into the benchmark, which reads it before it calls any of your code. For a kernel: the
 * functions it reaches by calls and jumps; their innermost loops (a branch back to an address at
 * or before it); and in each loop the packed floating-point adds, FMAs and maxima (`vaddps`,
 * `vfmadd231ps`, `vmaxps` on xmm, ymm or zmm; `fadd`, `fmla`, `fmax` on v or z registers) that
 * read a register the loop writes later but has not written yet: a partial result carried from
 * one iteration to the next in SIMD lanes. A reduction left as one chain adds with scalar
 * instructions (`vaddss`, `fadd s0`) and has none. x86-64 (SSE, AVX, AVX-512) and aarch64
 * (NEON, SVE); other targets find nothing. */
#ifndef RL_SIMDSCAN_H
#define RL_SIMDSCAN_H
#include <stddef.h>

typedef struct {
    int found;       /* the function is in the listing */
    int add_loops;   /* innermost loops with a carried packed add or FMA */
    int max_loops;   /* innermost loops with a carried packed max or min */
    int functions;   /* functions reached from it (itself included) */
    char example[120]; /* the first carried packed add seen: "dot: vfmadd231ps ..." */
} ss_kernel_t;

/* Scans the objdump listing (NUL-terminated text) for function `fn`. Returns 0 with *out filled
 * (out->found 0 when the listing has no such function), -EINVAL (a NULL argument) or -ENOMEM. */
int ss_scan(const char *listing, const char *fn, ss_kernel_t *out);

#endif
