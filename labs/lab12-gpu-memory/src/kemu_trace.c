/* Lab 12: the emulator's side of the trace (kemu_trace.h): every access of global and shared
 * memory, in the order the fibers ran them, with the bytes loaded or stored; barriers, shuffles
 * and faults. A load's bytes are read when the recorder sees it (just before it happens: no other
 * fiber runs in between); a store's once it has happened, at the thread's next event or switch.
 * Provided: not yours to edit. */
#include <string.h>
#include "kemu_int.h"
#include "kemu_trace.h"

static kemu_trace_t *tr;     /* the launch's trace, or NULL */
static uint64_t n, cap;      /* events run, events that fit */
static struct {
    int op;                  /* 0: none */
    unsigned thread;
    uintptr_t addr;
    size_t bytes;
} pending;                   /* the running thread's last store, recorded before it happened */

static uint32_t block_linear(void)
{
    kemu_dim3_t b = kemu_block_idx(), g = kemu_grid_dim();
    return b.x + g.x * (b.y + g.y * b.z);
}

static void emit(int op, unsigned thread, uintptr_t a, size_t size, const void *value)
{
    uint64_t i = n++;
    if (i >= cap)
        return;
    kemu_event_t *e = &tr->ev[i];
    uint64_t v[2] = {0, 0};
    if (value)
        memcpy(v, value, size);
    e->op = (uint8_t)op, e->size = (uint8_t)size, e->thread = (uint16_t)thread;
    e->block = block_linear(), e->addr = a;
    memcpy(e->value, v, sizeof v);
}

/* An access of `bytes` bytes at a, with the bytes there now: one event per 16 bytes. */
static void emit_access(int op, unsigned thread, uintptr_t a, size_t bytes)
{
    for (size_t at = 0; at < bytes; at += 16)
        emit(at ? op | KEMU_EV_MORE : op, thread, a + at, bytes - at < 16 ? bytes - at : 16,
             (const void *)(a + at));
}

void kemu_trace_begin(void)
{
    tr = kemu_g.launch->trace;
    n = 0, cap = tr ? tr->cap : 0;
    pending.op = 0;
    if (tr)
        tr->shared_lo = kemu_g.shared_lo, tr->shared_hi = kemu_g.shared_hi;
}

void kemu_trace_flush(void)
{
    if (!tr || !pending.op)
        return;
    int op = pending.op;
    pending.op = 0;
    emit_access(op, pending.thread, pending.addr, pending.bytes);
}

void kemu_trace_access(int op, uintptr_t a, size_t bytes)
{
    if (!tr || !kemu_g.cur)
        return;
    kemu_trace_flush();
    if (op == KEMU_EV_GST || op == KEMU_EV_SST)
        pending.op = op, pending.thread = kemu_g.cur->linear, pending.addr = a,
        pending.bytes = bytes;
    else
        emit_access(op, kemu_g.cur->linear, a, bytes);
}

void kemu_trace_event(int op, unsigned thread, uintptr_t a)
{
    if (!tr)
        return;
    kemu_trace_flush();
    emit(op, thread, a, 0, NULL);
}

void kemu_trace_end(void)
{
    kemu_trace_flush();
    if (tr)
        tr->n = n;
    tr = NULL;
}
