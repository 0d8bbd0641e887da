/* Lab 12: the kernel emulator's trace, and the checker that counts from it. The emulator runs
 * your kernels in your own process; it appends every access of global and shared memory, every
 * barrier and every warp shuffle to a trace in memory the grader shares with that process. The
 * grader copies the trace out, checks it against its own copies of the data (every value loaded
 * is the value there, every value stored is the answer, every output element is stored, every
 * input the output depends on is loaded, shared memory holds what was last stored in it), and
 * only then counts requests, sectors, wavefronts and barriers from it with the rules of kemu.h,
 * grouping the lanes of each warp into requests itself. Provided: not yours to edit. */
#ifndef KEMU_TRACE_H
#define KEMU_TRACE_H
#include <stddef.h>
#include <stdint.h>
#include "kemu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What an event is. KEMU_EV_MORE marks bytes 16.. of an access wider than 16 bytes (the model
 * counts a lane's first 16): it follows the event of the bytes before it directly. */
enum {
    KEMU_EV_GLD = 1, /* global load */
    KEMU_EV_GST,     /* global store */
    KEMU_EV_SLD,     /* shared load */
    KEMU_EV_SST,     /* shared store */
    KEMU_EV_BARRIER, /* a __syncthreads of the block completed */
    KEMU_EV_SHFL,    /* a shuffle of the warp of `thread` completed */
    KEMU_EV_FAULT,   /* an access outside every buffer, the shared memory and the stack */
    KEMU_EV_MORE = 0x80
};

/* One event, in the order the emulated threads ran it (32 bytes). */
typedef struct {
    uint8_t op;       /* KEMU_EV_*, with KEMU_EV_MORE for a continuation */
    uint8_t size;     /* bytes accessed, 1..16 (0 for a barrier or shuffle) */
    uint16_t thread;  /* the thread's linear index in its block: lane = % 32, warp = / 32 */
    uint32_t block;   /* the block's linear index: x + gx * (y + gy * z) */
    uint64_t addr;
    uint8_t value[16]; /* the bytes loaded or stored */
} kemu_event_t;

/* The trace: the harness sets cap (events that fit in ev) and zeroes the rest; the emulator sets
 * the shared-memory range and n, the events it ran (more than cap: the trace overflowed, and
 * only the first cap are there). */
typedef struct kemu_trace {
    uint64_t cap;
    uint64_t n;
    uint64_t shared_lo, shared_hi;
    kemu_event_t ev[];
} kemu_trace_t;

/* Bytes of a trace that holds `events` events. */
size_t kemu_trace_bytes(size_t events);

/* The counting rules, shared by the emulator and the checker. A request is the accesses of up
 * to KEMU_WARP lanes (addr[i], size[i] bytes each, 1..16). Sectors: the distinct 32-byte
 * sectors they touch, written sorted to s (room for 2 * KEMU_WARP), their number returned.
 * Wavefronts: the most distinct 4-byte words one of the 32 banks serves, and at least one per
 * 128 bytes of distinct words. n > KEMU_WARP counts the first KEMU_WARP. */
size_t kemu_request_sectors(const uintptr_t *addr, const uint8_t *size, unsigned n,
                            uintptr_t *s);
uint64_t kemu_request_wavefronts(const uintptr_t *addr, const uint8_t *size, unsigned n);

/* One buffer of the launch as the checker sees it: where the kernel had it (dev, bytes), the
 * harness's private copy of what it held before (init; NULL: nothing may be loaded from it
 * before the kernel stores there), and for an output the answer (want, non-NULL: the buffer is
 * writable, each store must store the answer's bytes and every byte must be stored). For an
 * input, need marks (one byte each, non-zero) the bytes the output depends on, which must be
 * loaded; NULL: all of them. */
typedef struct {
    const void *dev;
    size_t bytes;
    const void *init;
    const void *want;
    const uint8_t *need;
} kemu_tbuf_t;

/* A launch to check: its shape, its buffers, and shared_read: 1 when every shared byte a block
 * stores must also be loaded by that block (the benchmark's inputs, whose tiles are all full: a
 * trace that leaves shared loads out fails), 0 when dead shared stores are allowed. */
typedef struct {
    kemu_dim3_t grid, block;
    const kemu_tbuf_t *bufs;
    unsigned n_bufs;
    int shared_read;
} kemu_tcheck_t;

/* Checks the trace `shared` (in memory the student's process writes: copied out first), made
 * with room for `cap` events, of a launch of shape c->grid, c->block over c->bufs, and counts
 * into *st from the copy: requests (the k-th access of a class, global or shared, load or store,
 * by each lane of a warp since the warp's last barrier or shuffle), sectors, wavefronts, bytes,
 * L2 and DRAM bytes, barriers, shuffles, blocks (the grid's), faults. Returns 0 when the trace is
 * a complete and consistent run that computed the answer; -EPROTO (why: one sentence) when it is
 * not: more events than cap, an event malformed or outside the launch, an access outside the
 * buffers or the shared memory, a load of bytes memory did not hold, a store of bytes that are
 * not the answer, a shared load of bytes another thread stored with no barrier (or, in its warp,
 * shuffle) between, a shared byte stored and never loaded (with c->shared_read), an output
 * byte never stored (st->unwritten, st->unwritten_span), an input
 * byte the output needs never loaded; -EFAULT when the kernel faulted (st->first_fault);
 * -EINVAL for a NULL argument or an empty launch; -ENOMEM. */
int kemu_trace_check(const kemu_trace_t *shared, size_t cap, const kemu_tcheck_t *c,
                     kemu_stats_t *st, char *why, size_t len);

#ifdef __cplusplus
}
#endif
#endif
