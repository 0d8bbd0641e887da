/* Lab 12: the kernel emulator's recorder and memory model (see kemu.h). Every load and store of
 * the instrumented kernel code arrives here with its address, size and call site. The k-th run of
 * one call site by the lanes of a warp is one request (the lanes ran one instruction together);
 * at the end of each block its requests are counted: a global request as its distinct 32-byte
 * sectors, a shared one as the passes its 32 banks of 4 bytes need (the most distinct words any
 * one bank is asked for). Provided: not yours to edit. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kemu_int.h"
#include "kemu_trace.h"

enum { SP_GLOBAL, SP_SHARED };

typedef struct {
    uintptr_t pc;
    uint32_t k;
    uint16_t warp;
    uint8_t space, write, n, used;
    uintptr_t addr[KEMU_WARP];
    uint8_t size[KEMU_WARP];
} request_t;

static request_t *reqs;      /* open-addressed by (warp, pc, k) */
static size_t reqs_cap, reqs_used;
static uintptr_t *sectors;   /* the launch's distinct sectors + 1 (0: empty slot) */
static size_t sectors_cap, sectors_used;
static uint8_t **written;    /* per span: one bit per byte a recorded store wrote */

static size_t mix(uintptr_t a, uint64_t b)
{
    uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull);
    h ^= h >> 29;
    return (size_t)(h * 0xBF58476D1CE4E5B9ull ^ (h >> 32));
}

/* Grows an open-addressed table to twice its size; 0 or -ENOMEM. */
static int grow_reqs(void)
{
    size_t cap = reqs_cap ? reqs_cap * 2 : 1024;
    request_t *n = calloc(cap, sizeof *n);
    if (!n)
        return -ENOMEM;
    for (size_t i = 0; i < reqs_cap; i++) {
        if (!reqs[i].used)
            continue;
        size_t j = mix(reqs[i].pc, (uint64_t)reqs[i].k << 16 | reqs[i].warp) & (cap - 1);
        while (n[j].used)
            j = (j + 1) & (cap - 1);
        n[j] = reqs[i];
    }
    free(reqs);
    reqs = n, reqs_cap = cap;
    return 0;
}

/* The request of (warp, pc, k), made empty with its space if new; NULL if out of memory. */
static request_t *request(unsigned warp, uintptr_t pc, uint32_t k, int space, int write)
{
    if ((reqs_used + 1) * 2 > reqs_cap && grow_reqs() != 0)
        return NULL;
    size_t j = mix(pc, (uint64_t)k << 16 | warp) & (reqs_cap - 1);
    while (reqs[j].used && !(reqs[j].pc == pc && reqs[j].k == k && reqs[j].warp == warp))
        j = (j + 1) & (reqs_cap - 1);
    request_t *r = &reqs[j];
    if (!r->used) {
        r->used = 1, r->pc = pc, r->k = k, r->warp = (uint16_t)warp;
        r->space = (uint8_t)space, r->write = (uint8_t)write, r->n = 0;
        reqs_used++;
    }
    return r;
}

/* Adds sector s to the launch's distinct sectors; 0 or -ENOMEM. */
static int add_sector(uintptr_t s)
{
    if ((sectors_used + 1) * 2 > sectors_cap) {
        size_t cap = sectors_cap ? sectors_cap * 2 : 4096;
        uintptr_t *n = calloc(cap, sizeof *n);
        if (!n)
            return -ENOMEM;
        for (size_t i = 0; i < sectors_cap; i++) {
            if (!sectors[i])
                continue;
            size_t j = mix(sectors[i], 0) & (cap - 1);
            while (n[j])
                j = (j + 1) & (cap - 1);
            n[j] = sectors[i];
        }
        free(sectors);
        sectors = n, sectors_cap = cap;
    }
    size_t j = mix(s + 1, 0) & (sectors_cap - 1);
    while (sectors[j] && sectors[j] != s + 1)
        j = (j + 1) & (sectors_cap - 1);
    if (!sectors[j])
        sectors[j] = s + 1, sectors_used++;
    return 0;
}

/* Counts one request into its class. */
static void count(const request_t *r)
{
    kemu_stats_t *st = kemu_g.st;
    kemu_class_t *c = r->space == SP_SHARED ? (r->write ? &st->sst : &st->sld)
                                            : (r->write ? &st->gst : &st->gld);
    c->requests++;
    for (unsigned i = 0; i < r->n; i++)
        c->bytes += r->size[i];
    if (r->space == SP_SHARED) {
        c->wavefronts += kemu_request_wavefronts(r->addr, r->size, r->n);
        return;
    }
    uintptr_t s[KEMU_WARP * 2];
    size_t d = kemu_request_sectors(r->addr, r->size, r->n, s);
    c->sectors += d;
    st->l2_bytes += d * KEMU_SECTOR;
    for (size_t i = 0; i < d; i++)
        if (add_sector(s[i]) != 0)
            kemu_g.failed = -ENOMEM;
}

void kemu_rec_block_end(unsigned n_threads)
{
    (void)n_threads;
    for (size_t i = 0; i < reqs_cap; i++)
        if (reqs[i].used)
            count(&reqs[i]);
    if (reqs)
        memset(reqs, 0, reqs_cap * sizeof *reqs);
    reqs_used = 0;
}

/* Bitmaps for the writable spans of launch l; 0 or -ENOMEM. */
static int begin_coverage(const kemu_launch_t *l)
{
    written = calloc(l->n_spans ? l->n_spans : 1, sizeof *written);
    if (!written)
        return -ENOMEM;
    for (unsigned i = 0; i < l->n_spans; i++)
        if (l->spans[i].writable && !(written[i] = calloc(l->spans[i].bytes / 8 + 1, 1)))
            return -ENOMEM;
    return 0;
}

/* The first byte of a writable span no recorded store wrote, into st. */
static void end_coverage(const kemu_launch_t *l, kemu_stats_t *st)
{
    for (unsigned i = 0; i < l->n_spans && written; i++) {
        for (size_t b = 0; written[i] && b < l->spans[i].bytes && st->unwritten < 0; b++)
            if (!(written[i][b / 8] >> (b % 8) & 1))
                st->unwritten = (int64_t)b, st->unwritten_span = i;
        free(written[i]);
    }
    free(written);
    written = NULL;
}

int kemu_rec_begin(void)
{
    kemu_trace_begin();
    return begin_coverage(kemu_g.launch);
}

void kemu_rec_end(void)
{
    kemu_stats_t *st = kemu_g.st;
    kemu_trace_end();
    end_coverage(kemu_g.launch, st);
    st->dram_bytes = sectors_used * KEMU_SECTOR;
    free(reqs);
    free(sectors);
    reqs = NULL, sectors = NULL;
    reqs_cap = reqs_used = sectors_cap = sectors_used = 0;
}

/* The span holding [a, a + n), or -1. */
static int find_span(uintptr_t a, size_t n)
{
    const kemu_launch_t *l = kemu_g.launch;
    for (unsigned i = 0; i < l->n_spans; i++) {
        uintptr_t b = (uintptr_t)l->spans[i].base;
        if (a >= b && a + n <= b + l->spans[i].bytes)
            return (int)i;
    }
    return -1;
}

/* How many times thread t ran call site pc before (its k for this run); -1 if t has run more
 * than KEMU_PCS sites. */
static int64_t next_run(kthread_t *t, uintptr_t pc)
{
    for (unsigned i = 0; i < t->n_pcs; i++)
        if (t->pcs[i] == pc)
            return t->pc_runs[i]++;
    if (t->n_pcs == KEMU_PCS)
        return -1;
    t->pcs[t->n_pcs] = pc;
    t->pc_runs[t->n_pcs++] = 1;
    return 0;
}

static void fault(uintptr_t a)
{
    kemu_trace_event(KEMU_EV_FAULT, kemu_g.cur ? kemu_g.cur->linear : 0, a);
    if (!kemu_g.st->faults++)
        kemu_g.st->first_fault = a;
}

/* Global or shared space of [a, a + n) for a store or load; -1 if it is not for the model
 * (the thread's stack, or a fault, already counted). */
static int space_of(kthread_t *t, uintptr_t a, size_t n, int write)
{
    if (a >= kemu_g.shared_lo && a + n <= kemu_g.shared_hi)
        return SP_SHARED;
    if (a >= (uintptr_t)t->stack && a + n <= (uintptr_t)t->stack + kemu_g.stack_bytes) {
        kemu_g.st->local_accesses++;
        return -1;
    }
    int s = find_span(a, n);
    if (s < 0 || (write && !kemu_g.launch->spans[s].writable)) {
        fault(a);
        return -1;
    }
    if (write && written && written[s]) {
        size_t off = a - (uintptr_t)kemu_g.launch->spans[s].base;
        for (size_t b = off; b < off + n; b++)
            written[s][b / 8] |= (uint8_t)(1u << (b % 8));
    }
    return SP_GLOBAL;
}

static void record(uintptr_t pc, const void *p, size_t n, int write)
{
    kthread_t *t = kemu_g.cur;
    if (!t || n == 0)
        return;
    int space = space_of(t, (uintptr_t)p, n, write);
    if (space < 0)
        return;
    kemu_trace_access(space == SP_SHARED ? (write ? KEMU_EV_SST : KEMU_EV_SLD)
                                         : (write ? KEMU_EV_GST : KEMU_EV_GLD),
                      (uintptr_t)p, n);
    int64_t k = next_run(t, pc);
    request_t *r = k < 0 ? NULL : request(t->linear / KEMU_WARP, pc, (uint32_t)k, space, write);
    if (!r) {
        kemu_g.failed = -ENOMEM;
        return;
    }
    if (r->n < KEMU_WARP) {
        r->addr[r->n] = (uintptr_t)p;
        r->size[r->n++] = (uint8_t)(n > 16 ? 16 : n); /* the model: at most 16 B a lane */
    }
}

#define RA() ((uintptr_t)__builtin_return_address(0))
void kemu_tsan_init(void) {}
void kemu_tsan_func_entry(void *pc) { (void)pc; }
void kemu_tsan_func_exit(void) {}
void kemu_tsan_read1(void *p) { record(RA(), p, 1, 0); }
void kemu_tsan_read2(void *p) { record(RA(), p, 2, 0); }
void kemu_tsan_read4(void *p) { record(RA(), p, 4, 0); }
void kemu_tsan_read8(void *p) { record(RA(), p, 8, 0); }
void kemu_tsan_read16(void *p) { record(RA(), p, 16, 0); }
void kemu_tsan_write1(void *p) { record(RA(), p, 1, 1); }
void kemu_tsan_write2(void *p) { record(RA(), p, 2, 1); }
void kemu_tsan_write4(void *p) { record(RA(), p, 4, 1); }
void kemu_tsan_write8(void *p) { record(RA(), p, 8, 1); }
void kemu_tsan_write16(void *p) { record(RA(), p, 16, 1); }
void kemu_tsan_unaligned_read2(void *p) { record(RA(), p, 2, 0); }
void kemu_tsan_unaligned_read4(void *p) { record(RA(), p, 4, 0); }
void kemu_tsan_unaligned_read8(void *p) { record(RA(), p, 8, 0); }
void kemu_tsan_unaligned_read16(void *p) { record(RA(), p, 16, 0); }
void kemu_tsan_unaligned_write2(void *p) { record(RA(), p, 2, 1); }
void kemu_tsan_unaligned_write4(void *p) { record(RA(), p, 4, 1); }
void kemu_tsan_unaligned_write8(void *p) { record(RA(), p, 8, 1); }
void kemu_tsan_unaligned_write16(void *p) { record(RA(), p, 16, 1); }
void kemu_tsan_read_range(void *p, size_t n) { record(RA(), p, n, 0); }
void kemu_tsan_write_range(void *p, size_t n) { record(RA(), p, n, 1); }
