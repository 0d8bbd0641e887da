/* Lab 12: the harness's trace checker (kemu_trace.h). Replays a copy of the trace against the
 * harness's own copies of the buffers (values loaded and stored, shared memory as the block last
 * stored it, with the barriers and shuffles that order it), then groups each block's accesses
 * into warp requests and counts them with the rules the emulator uses (kemu_count.c). Nothing of
 * the student's process is taken on its word but the order of the accesses, which the checks
 * bind to the data. Provided: not yours to edit. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kemu_trace.h"

enum { CL_GLD, CL_GST, CL_SLD, CL_SST, CLASSES };

#define WARPS (KEMU_MAX_BLOCK_THREADS / KEMU_WARP)

/* One open request: the lanes' accesses so far. */
typedef struct {
    unsigned n;
    uintptr_t addr[KEMU_WARP];
    uint8_t size[KEMU_WARP];
} request_t;

/* A warp's open requests of one class since its last barrier or shuffle: the k-th access of each
 * lane joins request k. */
typedef struct {
    request_t *r;
    size_t open, cap;
} open_t;

typedef struct {
    uint8_t *val;      /* the bytes last stored */
    uint32_t *gen;     /* the block (+ 1) that stored each byte, 0: none */
    uint16_t *who;     /* the thread that stored it */
    uint32_t *bar;     /* the block's barriers then */
    uint32_t *wsync;   /* the storing warp's barriers and shuffles then */
    uint32_t *read;    /* the block (+ 1) that last loaded each byte */
} shadow_t;

typedef struct {
    const kemu_tcheck_t *c;
    kemu_stats_t *st;
    char *why;
    size_t len;
    unsigned threads;
    uint64_t blocks;
    uint8_t **mem, **set; /* per buffer: its bytes now (outputs), bytes loaded/stored */
    uintptr_t sh_lo, sh_hi;
    shadow_t sh;
    uint32_t block, gen, bar; /* the block being replayed, its number + 1, its barriers */
    uint32_t wsync[WARPS];    /* each warp's barriers and shuffles in the block */
    uint32_t lane_k[KEMU_MAX_BLOCK_THREADS][CLASSES]; /* accesses of each class since */
    open_t open[WARPS][CLASSES];
    uintptr_t *sec; /* every request's sectors, for DRAM's distinct ones */
    size_t n_sec, cap_sec;
} chk_t;

static int bad(chk_t *k, size_t i, const kemu_event_t *e, const char *fmt, ...)
{
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (e)
        snprintf(k->why, k->len, "the trace of your kernel's accesses is not a run of it: event "
                 "%zu (block %u, thread %u): %s", i, e->block, e->thread, what);
    else
        snprintf(k->why, k->len, "the trace of your kernel's accesses is not a run of it: %s",
                 what);
    return -EPROTO;
}

/* With c->shared_read: -EPROTO if the block replayed stored a shared byte it never loaded. */
static int shared_unread(chk_t *k)
{
    for (size_t o = 0; k->c->shared_read && o < k->sh_hi - k->sh_lo; o++)
        if (k->sh.gen[o] == k->gen && k->sh.read[o] != k->gen)
            return bad(k, 0, NULL, "block %u stores shared byte %zu and never loads it",
                       k->block, o);
    return 0;
}

/* The launch's sectors so far, and d more; 0 or -ENOMEM. */
static int add_sectors(chk_t *k, const uintptr_t *s, size_t d)
{
    if (!d)
        return 0;
    if (k->n_sec + d > k->cap_sec) {
        size_t cap = k->cap_sec ? k->cap_sec * 2 : 4096;
        uintptr_t *p = realloc(k->sec, cap * sizeof *p);
        if (!p)
            return -ENOMEM;
        k->sec = p, k->cap_sec = cap;
    }
    memcpy(k->sec + k->n_sec, s, d * sizeof *s);
    k->n_sec += d;
    return 0;
}

/* Counts one request of class cls. */
static int count_request(chk_t *k, const request_t *r, int cls)
{
    kemu_class_t *c = cls == CL_GLD ? &k->st->gld : cls == CL_GST ? &k->st->gst
                    : cls == CL_SLD ? &k->st->sld : &k->st->sst;
    uintptr_t s[KEMU_WARP * 2];
    for (unsigned i = 0; i < r->n; i++)
        c->bytes += r->size[i];
    c->requests++;
    if (cls == CL_SLD || cls == CL_SST) {
        c->wavefronts += kemu_request_wavefronts(r->addr, r->size, r->n);
        return 0;
    }
    size_t d = kemu_request_sectors(r->addr, r->size, r->n, s);
    c->sectors += d;
    k->st->l2_bytes += d * KEMU_SECTOR;
    return add_sectors(k, s, d);
}

/* Counts and closes warp w's open requests (at its barrier or shuffle, or the block's end). */
static int close_warp(chk_t *k, unsigned w)
{
    for (int cls = 0; cls < CLASSES; cls++) {
        open_t *o = &k->open[w][cls];
        for (size_t i = 0; i < o->open; i++)
            if (count_request(k, &o->r[i], cls))
                return -ENOMEM;
        o->open = 0;
    }
    memset(k->lane_k[w * KEMU_WARP], 0, sizeof k->lane_k[0] * KEMU_WARP);
    return 0;
}

/* Ends the block replayed (with c->shared_read, its shared bytes all loaded; its requests
 * counted), and starts block b. */
static int next_block(chk_t *k, uint32_t b)
{
    int rc = shared_unread(k);
    for (unsigned w = 0; w < WARPS && !rc; w++)
        rc = close_warp(k, w);
    if (rc)
        return rc;
    k->block = b, k->gen++, k->bar = 0;
    memset(k->wsync, 0, sizeof k->wsync);
    return 0;
}

/* Access e (not a continuation) of class cls joins its request: its lane's k-th of the class
 * since the warp's last barrier or shuffle. */
static int join(chk_t *k, const kemu_event_t *e, int cls)
{
    unsigned t = e->thread;
    open_t *o = &k->open[t / KEMU_WARP][cls];
    uint32_t at = k->lane_k[t][cls]++;
    if (at >= o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 16;
        request_t *p = realloc(o->r, cap * sizeof *p);
        if (!p)
            return -ENOMEM;
        o->r = p, o->cap = cap;
    }
    for (; o->open <= at; o->open++)
        o->r[o->open].n = 0;
    request_t *r = &o->r[at];
    r->addr[r->n] = (uintptr_t)e->addr, r->size[r->n++] = e->size;
    return 0;
}

/* The buffer holding [a, a + n), or -1. */
static int find_buf(const chk_t *k, uintptr_t a, size_t n)
{
    for (unsigned i = 0; i < k->c->n_bufs; i++) {
        uintptr_t b = (uintptr_t)k->c->bufs[i].dev;
        if (a >= b && a - b <= k->c->bufs[i].bytes && n <= k->c->bufs[i].bytes - (a - b))
            return (int)i;
    }
    return -1;
}

/* A global load or store: within a buffer, the bytes memory held or the answer's. */
static int global_access(chk_t *k, size_t i, const kemu_event_t *e, int store)
{
    int b = find_buf(k, (uintptr_t)e->addr, e->size);
    if (b < 0)
        return bad(k, i, e, "an access of %u bytes at %p, outside the kernel's buffers", e->size,
                   (void *)(uintptr_t)e->addr);
    const kemu_tbuf_t *buf = &k->c->bufs[b];
    size_t off = (uintptr_t)e->addr - (uintptr_t)buf->dev;
    if (store && !buf->want)
        return bad(k, i, e, "a store into input buffer %d", b);
    if (store && memcmp(e->value, (const uint8_t *)buf->want + off, e->size))
        return bad(k, i, e, "stores bytes at offset %zu of buffer %d that are not the answer",
                   off, b);
    const uint8_t *now = buf->want ? k->mem[b] + off : (const uint8_t *)buf->init + off;
    for (unsigned j = 0; !store && buf->want && !buf->init && j < e->size; j++)
        if (!k->set[b][off + j])
            return bad(k, i, e, "loads byte %zu of output buffer %d before storing it",
                       off + j, b);
    if (!store && memcmp(e->value, now, e->size))
        return bad(k, i, e, "loads bytes at offset %zu of buffer %d that memory did not hold",
                   off, b);
    if (store)
        memcpy(k->mem[b] + off, e->value, e->size);
    memset(k->set[b] + off, 1, e->size);
    return 0;
}

/* A shared store: its bytes, who stored them and when, for the loads that follow. */
static void shared_store(chk_t *k, const kemu_event_t *e, size_t off)
{
    for (unsigned j = 0; j < e->size; j++) {
        k->sh.val[off + j] = e->value[j], k->sh.gen[off + j] = k->gen;
        k->sh.who[off + j] = e->thread, k->sh.bar[off + j] = k->bar;
        k->sh.wsync[off + j] = k->wsync[e->thread / KEMU_WARP];
    }
}

/* A shared load: of bytes this block stored, as last stored, ordered after another thread's
 * store by a barrier or (same warp) a barrier or shuffle. */
static int shared_load(chk_t *k, size_t i, const kemu_event_t *e, size_t off)
{
    for (unsigned j = 0; j < e->size; j++) {
        size_t o = off + j;
        unsigned who = k->sh.who[o];
        if (k->sh.gen[o] != k->gen)
            return bad(k, i, e, "loads shared byte %zu, which no thread of the block stored", o);
        if (k->sh.val[o] != e->value[j])
            return bad(k, i, e, "loads shared byte %zu, not as it was last stored", o);
        if (who != e->thread && k->sh.bar[o] == k->bar &&
            (who / KEMU_WARP != e->thread / KEMU_WARP ||
             k->sh.wsync[o] == k->wsync[e->thread / KEMU_WARP]))
            return bad(k, i, e, "loads shared byte %zu that thread %u stored with no "
                       "__syncthreads between", o, who);
        k->sh.read[o] = k->gen;
    }
    return 0;
}

static int shared_access(chk_t *k, size_t i, const kemu_event_t *e, int store)
{
    uintptr_t a = (uintptr_t)e->addr;
    if (a < k->sh_lo || a > k->sh_hi || e->size > k->sh_hi - a)
        return bad(k, i, e, "a shared access outside the kernels' shared memory");
    if (store)
        shared_store(k, e, a - k->sh_lo);
    return store ? 0 : shared_load(k, i, e, a - k->sh_lo);
}

/* Event i's access (a continuation follows the same thread's 16 bytes before it). */
static int access(chk_t *k, size_t i, const kemu_event_t *e, const kemu_event_t *prev)
{
    int op = e->op & ~KEMU_EV_MORE, cls = op - KEMU_EV_GLD;
    if (e->size < 1 || e->size > 16)
        return bad(k, i, e, "an access of %u bytes", e->size);
    if ((e->op & KEMU_EV_MORE) &&
        (!prev || (prev->op & ~KEMU_EV_MORE) != op || prev->thread != e->thread ||
         prev->block != e->block || prev->size != 16 || prev->addr + 16 != e->addr))
        return bad(k, i, e, "a continuation that continues no access");
    int rc = cls == CL_GLD || cls == CL_GST ? global_access(k, i, e, cls == CL_GST)
                                            : shared_access(k, i, e, cls == CL_SST);
    if (rc || (e->op & KEMU_EV_MORE))
        return rc;
    return join(k, e, cls);
}

/* Replays event i. */
static int replay(chk_t *k, size_t i, const kemu_event_t *e, const kemu_event_t *prev)
{
    int op = e->op & ~KEMU_EV_MORE;
    if (e->block >= k->blocks || e->block < k->block || e->thread >= k->threads)
        return bad(k, i, e, "outside the launch, or a block out of order");
    int rc = e->block != k->block ? next_block(k, e->block) : 0;
    if (rc)
        return rc;
    if (op >= KEMU_EV_GLD && op <= KEMU_EV_SST)
        return access(k, i, e, prev);
    if (e->op == KEMU_EV_BARRIER) {
        k->bar++, k->st->barriers++;
        for (unsigned w = 0; w < WARPS && !rc; w++)
            k->wsync[w]++, rc = close_warp(k, w);
        return rc;
    }
    if (e->op == KEMU_EV_SHFL) {
        k->wsync[e->thread / KEMU_WARP]++, k->st->shuffles++;
        return close_warp(k, e->thread / KEMU_WARP);
    }
    if (e->op == KEMU_EV_FAULT) {
        k->st->faults++, k->st->first_fault = (uintptr_t)e->addr;
        snprintf(k->why, k->len, "the kernel touched memory outside its buffers (first at %p)",
                 (void *)(uintptr_t)e->addr);
        return -EFAULT;
    }
    return bad(k, i, e, "an event of unknown kind %u", e->op);
}

/* The first byte of buffer b that is not covered (an output's not stored, an input's the answer
 * needs not loaded), or -1. */
static int64_t uncovered(const chk_t *k, unsigned b)
{
    const kemu_tbuf_t *buf = &k->c->bufs[b];
    if (buf->want || !buf->need) {
        const uint8_t *z = memchr(k->set[b], 0, buf->bytes);
        return z ? (int64_t)(z - k->set[b]) : -1;
    }
    for (size_t o = 0; o < buf->bytes; o++)
        if (!k->set[b][o] && buf->need[o])
            return (int64_t)o;
    return -1;
}

/* Every output byte stored, then every input byte the output needs loaded. */
static int coverage(chk_t *k)
{
    for (unsigned b = 0; b < k->c->n_bufs; b++) {
        int64_t o = k->c->bufs[b].want ? uncovered(k, b) : -1;
        if (o >= 0) {
            k->st->unwritten = o, k->st->unwritten_span = b;
            snprintf(k->why, k->len, "no store of your kernel wrote byte %lld of the output "
                     "(buffer %u): every element must be written by the kernel's own stores",
                     (long long)o, b);
            return -EPROTO;
        }
    }
    for (unsigned b = 0; b < k->c->n_bufs; b++) {
        int64_t o = k->c->bufs[b].want ? -1 : uncovered(k, b);
        if (o >= 0)
            return bad(k, 0, NULL, "byte %lld of input buffer %u, which the answer depends on, "
                       "is never loaded", (long long)o, b);
    }
    return 0;
}

static int cmp_uptr(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return (x > y) - (x < y);
}

/* DRAM bytes: the launch's distinct sectors. */
static void dram(chk_t *k)
{
    size_t d = 0;
    if (k->n_sec)
        qsort(k->sec, k->n_sec, sizeof *k->sec, cmp_uptr);
    for (size_t i = 0; i < k->n_sec; i++)
        d += i == 0 || k->sec[i] != k->sec[i - 1];
    k->st->dram_bytes = d * KEMU_SECTOR;
}

/* The checker's memory: the buffers' states, the shared shadow; 0 or -ENOMEM. */
static int setup(chk_t *k)
{
    size_t sh = k->sh_hi - k->sh_lo + 1;
    k->mem = calloc(k->c->n_bufs, sizeof *k->mem);
    k->set = calloc(k->c->n_bufs, sizeof *k->set);
    if (!k->mem || !k->set)
        return -ENOMEM;
    for (unsigned b = 0; b < k->c->n_bufs; b++) {
        const kemu_tbuf_t *buf = &k->c->bufs[b];
        if (!(k->set[b] = calloc(buf->bytes + 1, 1)))
            return -ENOMEM;
        if (buf->want && !(k->mem[b] = calloc(buf->bytes + 1, 1)))
            return -ENOMEM;
        if (buf->want && buf->init)
            memcpy(k->mem[b], buf->init, buf->bytes);
    }
    k->sh.val = calloc(sh, 1), k->sh.gen = calloc(sh, sizeof *k->sh.gen);
    k->sh.who = calloc(sh, sizeof *k->sh.who), k->sh.bar = calloc(sh, sizeof *k->sh.bar);
    k->sh.wsync = calloc(sh, sizeof *k->sh.wsync), k->sh.read = calloc(sh, sizeof *k->sh.read);
    return k->sh.val && k->sh.gen && k->sh.who && k->sh.bar && k->sh.wsync && k->sh.read
               ? 0 : -ENOMEM;
}

static void teardown(chk_t *k)
{
    for (unsigned b = 0; b < k->c->n_bufs && k->set; b++) {
        free(k->set[b]);
        if (k->mem)
            free(k->mem[b]);
    }
    free(k->mem), free(k->set);
    free(k->sh.val), free(k->sh.gen), free(k->sh.who), free(k->sh.bar), free(k->sh.wsync);
    free(k->sh.read);
    for (unsigned w = 0; w < WARPS; w++)
        for (int cls = 0; cls < CLASSES; cls++)
            free(k->open[w][cls].r);
    free(k->sec);
    free(k);
}

/* The trace's header, read once (the student's process may still change it): its events, -EPROTO
 * for more than cap or a shared memory that is not a range of at most KEMU_MAX_SHARED bytes. */
static int header(chk_t *k, const kemu_trace_t *shared, size_t cap, size_t *n)
{
    const volatile kemu_trace_t *v = shared;
    uint64_t want = v->n;
    k->sh_lo = (uintptr_t)v->shared_lo, k->sh_hi = (uintptr_t)v->shared_hi;
    *n = 0;
    if (want > cap)
        return bad(k, 0, NULL, "it holds %llu events, more than the %zu its buffer has room for",
                   (unsigned long long)want, cap);
    if (k->sh_hi < k->sh_lo || k->sh_hi - k->sh_lo > KEMU_MAX_SHARED)
        return bad(k, 0, NULL, "its shared memory is not a range of at most %d bytes",
                   KEMU_MAX_SHARED);
    *n = want;
    return 0;
}

#define CHUNK 4096 /* events copied out of the student's memory at a time */

/* Replays the n events, each chunk copied out of the student's memory first (its process may
 * still change them: each is read once). */
static int replay_all(chk_t *k, const kemu_trace_t *shared, size_t n)
{
    kemu_event_t *ev = malloc((CHUNK + 1) * sizeof *ev);
    int rc = ev ? 0 : -ENOMEM;
    for (size_t at = 0; at < n && !rc; at += CHUNK) {
        size_t m = n - at < CHUNK ? n - at : CHUNK;
        if (at)
            ev[0] = ev[CHUNK]; /* the chunk before's last event, for a continuation */
        memcpy(ev + 1, (const void *)(shared->ev + at), m * sizeof *ev);
        for (size_t i = 0; i < m && !rc; i++)
            rc = replay(k, at + i, &ev[i + 1], at + i ? &ev[i] : NULL);
        ev[CHUNK] = ev[m];
    }
    free(ev);
    return rc;
}

static int check(chk_t *k, const kemu_trace_t *shared, size_t cap)
{
    size_t n;
    int rc = header(k, shared, cap, &n);
    if (!rc)
        rc = setup(k);
    if (!rc)
        rc = replay_all(k, shared, n);
    if (!rc)
        rc = next_block(k, k->block);
    if (!rc)
        rc = coverage(k);
    if (!rc)
        dram(k);
    return rc;
}

int kemu_trace_check(const kemu_trace_t *shared, size_t cap, const kemu_tcheck_t *c,
                     kemu_stats_t *st, char *why, size_t len)
{
    if (!shared || !c || !st || !why || !len || (c->n_bufs && !c->bufs))
        return -EINVAL;
    memset(st, 0, sizeof *st);
    st->unwritten = -1;
    why[0] = '\0';
    uint64_t threads = (uint64_t)c->block.x * c->block.y * c->block.z;
    uint64_t blocks = (uint64_t)c->grid.x * c->grid.y * c->grid.z;
    if (!threads || threads > KEMU_MAX_BLOCK_THREADS || !blocks || blocks > UINT32_MAX)
        return -EINVAL;
    chk_t *k = calloc(1, sizeof *k);
    if (!k)
        return -ENOMEM;
    k->c = c, k->st = st, k->why = why, k->len = len;
    k->threads = (unsigned)threads, k->blocks = blocks, k->gen = 1;
    st->blocks = blocks;
    int rc = check(k, shared, cap);
    if (rc == -ENOMEM)
        snprintf(why, len, "out of memory to check the trace");
    teardown(k);
    return rc;
}
