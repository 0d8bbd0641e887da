/* Lab 12: the kernel emulator's inside, shared by its scheduler (kemu.c) and its recorder and
 * memory model (kemu_rec.c). Provided: not yours to edit. */
#ifndef KEMU_INT_H
#define KEMU_INT_H
#include <stdint.h>
#include <ucontext.h>
#include "kemu.h"

#define KEMU_PCS 64 /* distinct load/store sites one thread may run (more: -ENOMEM) */

typedef enum { KT_RUN, KT_BARRIER, KT_SHFL, KT_DONE } kthread_state_t;

/* One emulated thread: its fiber, where it waits, its pending shuffle, and how many times it has
 * run each load/store site (the k-th run of a site by every lane of a warp is one request). */
typedef struct {
    ucontext_t ctx;
    char *stack;
    kthread_state_t state;
    kemu_dim3_t idx;
    unsigned linear; /* x + y * bx + z * bx * by: lane = linear % 32, warp = linear / 32 */
    int shfl_mode, shfl_arg, shfl_width, shfl_site;
    unsigned shfl_mask;
    uint32_t shfl_in, shfl_out;
    unsigned n_pcs;
    uintptr_t pcs[KEMU_PCS];
    uint32_t pc_runs[KEMU_PCS];
} kthread_t;

/* What the recorder needs of the running launch. */
typedef struct {
    const kemu_launch_t *launch;
    kemu_stats_t *st;
    kthread_t *cur;           /* the thread running now, NULL outside a kernel */
    size_t stack_bytes;
    uintptr_t shared_lo, shared_hi;
    int failed;               /* a recorder error (-ENOMEM) to report at the end */
} kemu_state_t;

extern kemu_state_t kemu_g;

/* Recorder (kemu_rec.c): set up for kemu_g.launch (0 or -ENOMEM), the end of a block (its warps'
 * requests counted), the end of the launch (coverage and DRAM; frees everything). */
int kemu_rec_begin(void);
void kemu_rec_block_end(unsigned n_threads);
void kemu_rec_end(void);

/* Trace (kemu_trace.c), when the launch has one (kemu_launch_t.trace; else these do nothing):
 * begin and end with the recorder; an access of `bytes` bytes at a by the running thread
 * (op: KEMU_EV_GLD..SST); a barrier, shuffle or fault (thread: the warp's first thread for a
 * shuffle, the faulting thread); flush: the running thread's last store has happened (called
 * whenever a thread leaves for the scheduler). */
void kemu_trace_begin(void);
void kemu_trace_access(int op, uintptr_t a, size_t bytes);
void kemu_trace_event(int op, unsigned thread, uintptr_t a);
void kemu_trace_flush(void);
void kemu_trace_end(void);

#endif
