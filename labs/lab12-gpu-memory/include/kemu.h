/* Lab 12: the kernel emulator. Runs a CUDA kernel on the host, every thread of a block as a fiber
 * of its own, and counts what a profiler would for each warp's memory instructions: global
 * sectors per request, shared-memory wavefronts per request (bank conflicts), bytes at a
 * modelled L2 and DRAM. Provided: not yours to edit. The model and what it leaves out: README.md,
 * section 2.5. Your src/kernels.cu is compiled for it as C++ (include/kemu_cuda.h gives it CUDA's
 * names) with the compiler's ThreadSanitizer instrumentation, whose calls before each load and
 * store lab.mk renames to the kemu_tsan_* recorders below. */
#ifndef KEMU_H
#define KEMU_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KEMU_WARP 32
#define KEMU_MAX_BLOCK_THREADS 1024
#define KEMU_SECTOR 32            /* bytes: the unit L1 asks L2 for (every GPU since Maxwell) */
#define KEMU_BANKS 32             /* shared memory: 32 banks ... */
#define KEMU_BANK_BYTES 4         /* ... of 4 bytes each */
#define KEMU_MAX_SHARED (48 * 1024) /* static __shared__ bytes a kernel may declare */

typedef struct {
    unsigned x, y, z;
} kemu_dim3_t;

/* One buffer a kernel may touch: global memory. writable 0: the kernel may only read it. */
typedef struct {
    const void *base;
    size_t bytes;
    int writable;
} kemu_span_t;

struct kemu_trace; /* kemu_trace.h */

/* One launch: grid and block shape, and body(args), which every emulated thread runs (it calls
 * the kernel with its arguments); trace: where to append every access (kemu_trace.h), or NULL. */
typedef struct {
    kemu_dim3_t grid, block;
    void (*body)(void *args);
    void *args;
    const kemu_span_t *spans;
    unsigned n_spans;
    struct kemu_trace *trace;
} kemu_launch_t;

/* Counts for one class of memory instruction (global loads, global stores, shared loads, shared
 * stores). A request is one instruction of one warp (the lanes that ran it); Nsight Compute calls
 * it a request too. */
typedef struct {
    uint64_t requests;
    uint64_t sectors;    /* global: distinct 32-byte sectors of each request, summed */
    uint64_t wavefronts; /* shared: passes through the banks each request needed, summed */
    uint64_t bytes;      /* bytes the lanes asked for */
} kemu_class_t;

typedef struct {
    kemu_class_t gld, gst, sld, sst;
    uint64_t l2_bytes;   /* sectors moved between L1 and L2 (no L1 hits modelled), x 32 */
    uint64_t dram_bytes; /* distinct sectors of the launch x 32: an L2 that holds the working set */
    uint64_t barriers;   /* __syncthreads completed, summed over blocks */
    uint64_t shuffles;   /* warp shuffles completed (one per warp instruction) */
    uint64_t blocks;
    uint64_t local_accesses; /* loads and stores to a thread's own stack (not counted above) */
    uint64_t faults;     /* accesses outside every span, the shared memory and the stack */
    uintptr_t first_fault;
    int64_t unwritten;   /* first byte offset of a writable span no recorded store wrote, or -1 */
    unsigned unwritten_span;
    char error[200];     /* why kemu_run failed, in words; "" on success */
} kemu_stats_t;

/* Runs the launch: blocks one after another (x fastest, then y, z), each block's threads as
 * fibers that switch at __syncthreads and at warp shuffles. Fills *st. Returns 0, or:
 *   -EINVAL:  l, st or l->body NULL; a zero grid or block dimension; more than
 *             KEMU_MAX_BLOCK_THREADS threads in a block;
 *   -ENOMEM:  no memory for the fibers or the records;
 *   -EFAULT:  the kernel loaded or stored outside its spans, its shared memory and its stack
 *             (st->first_fault), or stored into a span that is not writable;
 *   -EDEADLK: threads of a block waited at different barriers or shuffles, so none could go on;
 *   -EILSEQ:  the lanes of a warp met at shuffles of different source lines or masks, or a
 *             shuffle's mask named a lane that had exited or left out one taking part (CUDA
 *             leaves the result undefined: "Warp Shuffle Functions");
 *   -E2BIG:   the kernels declare more than KEMU_MAX_SHARED bytes of __shared__ memory.
 * On failure st->error says what happened. Not reentrant: one launch at a time per process. */
int kemu_run(const kemu_launch_t *l, kemu_stats_t *st);

/* Sectors per request of global loads and stores together (0 when there were none). */
double kemu_sectors_per_request(const kemu_stats_t *st);
/* Wavefronts per request of shared loads and stores together (0 when there were none). */
double kemu_wavefronts_per_request(const kemu_stats_t *st);

/* What the kernel code calls (through include/kemu_cuda.h): the running thread's coordinates,
 * the block barrier, and a warp shuffle of 32 bits (mode: KEMU_SHFL_*; arg: the source lane,
 * the delta or the xor mask; width: a power of two up to 32; mask: the lanes taking part, as
 * CUDA's; site: the source line of the call, so that lanes meeting at different shuffles show). */
enum { KEMU_SHFL_IDX, KEMU_SHFL_UP, KEMU_SHFL_DOWN, KEMU_SHFL_XOR };
kemu_dim3_t kemu_thread_idx(void);
kemu_dim3_t kemu_block_idx(void);
kemu_dim3_t kemu_block_dim(void);
kemu_dim3_t kemu_grid_dim(void);
void kemu_syncthreads(void);
uint32_t kemu_shfl(int mode, unsigned mask, uint32_t v, int arg, int width, int site);

/* The recorders that the instrumented kernel code calls before each access (lab.mk renames
 * ThreadSanitizer's __tsan_* calls to these). */
void kemu_tsan_init(void);
void kemu_tsan_func_entry(void *pc);
void kemu_tsan_func_exit(void);
void kemu_tsan_read1(void *p);
void kemu_tsan_read2(void *p);
void kemu_tsan_read4(void *p);
void kemu_tsan_read8(void *p);
void kemu_tsan_read16(void *p);
void kemu_tsan_write1(void *p);
void kemu_tsan_write2(void *p);
void kemu_tsan_write4(void *p);
void kemu_tsan_write8(void *p);
void kemu_tsan_write16(void *p);
void kemu_tsan_unaligned_read2(void *p);
void kemu_tsan_unaligned_read4(void *p);
void kemu_tsan_unaligned_read8(void *p);
void kemu_tsan_unaligned_read16(void *p);
void kemu_tsan_unaligned_write2(void *p);
void kemu_tsan_unaligned_write4(void *p);
void kemu_tsan_unaligned_write8(void *p);
void kemu_tsan_unaligned_write16(void *p);
void kemu_tsan_read_range(void *p, size_t n);
void kemu_tsan_write_range(void *p, size_t n);

#ifdef __cplusplus
}
#endif
#endif
