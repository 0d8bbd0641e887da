/* Lab 03 tests: the recorders that the instrumented copy of src/copy.c calls (lab.mk renames
 * its __tsan_* calls and memcpy/memmove/memset to the tvtrace_ functions here), and the model
 * cache they feed (trace.h). */
#include "trace.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    unsigned sets, ways;
    uint64_t *tag; /* tag[set * ways + w]: line numbers, most recently used first; ~0 empty */
} cache_t;

/* Model addresses: the source at 0, the destination at dst_base (a multiple of both caches'
 * way size), so that the counts do not depend on where malloc put the buffers. */
static struct {
    int on;
    uintptr_t src, dst;
    size_t src_bytes, dst_bytes, dst_base;
    unsigned char *need_rd, *need_wr, *rd, *wr, *seen; /* bitmaps: bytes, bytes, lines */
    cache_t l1, l2;
    trace_stats_t st;
} T;

static int cache_init(cache_t *c, size_t bytes, unsigned ways)
{
    c->ways = ways;
    c->sets = (unsigned)(bytes / TRACE_LINE / ways);
    c->tag = malloc((size_t)c->sets * ways * sizeof *c->tag);
    if (!c->tag)
        return -ENOMEM;
    memset(c->tag, 0xFF, (size_t)c->sets * ways * sizeof *c->tag);
    return 0;
}

/* 1 on a hit. Either way the line becomes the set's most recently used. */
static int cache_access(cache_t *c, uint64_t line)
{
    uint64_t *t = c->tag + (size_t)(line % c->sets) * c->ways;
    unsigned w = 0;
    while (w < c->ways && t[w] != line)
        w++;
    int hit = w < c->ways;
    memmove(t + 1, t, (hit ? w : c->ways - 1) * sizeof *t);
    t[0] = line;
    return hit;
}

static void set_bits(unsigned char *bits, size_t from, size_t n)
{
    for (size_t i = from; i < from + n; i++)
        bits[i / 8] |= (unsigned char)(1u << (i % 8));
}

static int64_t first_missing(const unsigned char *need, const unsigned char *done, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((need[i / 8] >> (i % 8) & 1) && !(done[i / 8] >> (i % 8) & 1))
            return (int64_t)i;
    return -1;
}

/* One access of n bytes at a: the part inside the source or the destination is recorded. */
static void record(const void *p, size_t n, int write)
{
    uintptr_t a = (uintptr_t)p;
    size_t off, len, base;
    if (!T.on || n == 0)
        return;
    if (a + n > T.src && a < T.src + T.src_bytes) {
        off = a > T.src ? a - T.src : 0;
        len = (a + n < T.src + T.src_bytes ? a + n - T.src : T.src_bytes) - off;
        base = 0;
        if (!write)
            set_bits(T.rd, off, len);
    } else if (a + n > T.dst && a < T.dst + T.dst_bytes) {
        off = a > T.dst ? a - T.dst : 0;
        len = (a + n < T.dst + T.dst_bytes ? a + n - T.dst : T.dst_bytes) - off;
        base = T.dst_base;
        if (write)
            set_bits(T.wr, off, len);
    } else {
        return;
    }
    for (uint64_t line = (base + off) / TRACE_LINE; line <= (base + off + len - 1) / TRACE_LINE;
         line++) {
        T.st.accesses++;
        if (!(T.seen[line / 8] >> (line % 8) & 1)) {
            T.seen[line / 8] |= (unsigned char)(1u << (line % 8));
            T.st.lines++;
        }
        if (!cache_access(&T.l1, line)) {
            T.st.l1_misses++;
            if (!cache_access(&T.l2, line))
                T.st.l2_misses++;
        }
    }
}

int trace_begin(const void *src, size_t src_bytes, void *dst, size_t dst_bytes)
{
    size_t way = TRACE_L2_BYTES / TRACE_L2_WAYS;
    memset(&T, 0, sizeof T);
    T.src = (uintptr_t)src, T.src_bytes = src_bytes;
    T.dst = (uintptr_t)dst, T.dst_bytes = dst_bytes;
    T.dst_base = (src_bytes + way - 1) / way * way + way;
    size_t lines = (T.dst_base + dst_bytes) / TRACE_LINE + 1;
    T.need_rd = calloc(src_bytes / 8 + 1, 1), T.rd = calloc(src_bytes / 8 + 1, 1);
    T.need_wr = calloc(dst_bytes / 8 + 1, 1), T.wr = calloc(dst_bytes / 8 + 1, 1);
    T.seen = calloc(lines / 8 + 1, 1);
    if (!T.need_rd || !T.rd || !T.need_wr || !T.wr || !T.seen ||
        cache_init(&T.l1, TRACE_L1_BYTES, TRACE_L1_WAYS) ||
        cache_init(&T.l2, TRACE_L2_BYTES, TRACE_L2_WAYS)) {
        trace_stats_t ignored;
        trace_end(&ignored);
        return -ENOMEM;
    }
    T.on = 1;
    return 0;
}

void trace_need_read(size_t off, size_t n)
{
    set_bits(T.need_rd, off, n);
}

void trace_need_write(size_t off, size_t n)
{
    set_bits(T.need_wr, off, n);
}

void trace_end(trace_stats_t *st)
{
    T.on = 0;
    *st = T.st;
    st->unread = T.need_rd && T.rd ? first_missing(T.need_rd, T.rd, T.src_bytes) : -1;
    st->unwritten = T.need_wr && T.wr ? first_missing(T.need_wr, T.wr, T.dst_bytes) : -1;
    free(T.need_rd), free(T.rd), free(T.need_wr), free(T.wr), free(T.seen);
    free(T.l1.tag), free(T.l2.tag);
    memset(&T, 0, sizeof T);
}

/* The recorders. Their names are the ThreadSanitizer entry points with __tsan_ replaced by
 * tvtrace_tsan_ (lab.mk); the compiler calls them before the access. Declared here only: no
 * other code calls them. */
#define RECORDER(name, n, write)                                                              \
    void tvtrace_tsan_##name(const void *p);                                                  \
    void tvtrace_tsan_##name(const void *p) { record(p, n, write); }
RECORDER(read1, 1, 0)
RECORDER(read2, 2, 0)
RECORDER(read4, 4, 0)
RECORDER(read8, 8, 0)
RECORDER(read16, 16, 0)
RECORDER(write1, 1, 1)
RECORDER(write2, 2, 1)
RECORDER(write4, 4, 1)
RECORDER(write8, 8, 1)
RECORDER(write16, 16, 1)
RECORDER(unaligned_read2, 2, 0)
RECORDER(unaligned_read4, 4, 0)
RECORDER(unaligned_read8, 8, 0)
RECORDER(unaligned_read16, 16, 0)
RECORDER(unaligned_write2, 2, 1)
RECORDER(unaligned_write4, 4, 1)
RECORDER(unaligned_write8, 8, 1)
RECORDER(unaligned_write16, 16, 1)
RECORDER(volatile_read1, 1, 0)
RECORDER(volatile_read2, 2, 0)
RECORDER(volatile_read4, 4, 0)
RECORDER(volatile_read8, 8, 0)
RECORDER(volatile_read16, 16, 0)
RECORDER(volatile_write1, 1, 1)
RECORDER(volatile_write2, 2, 1)
RECORDER(volatile_write4, 4, 1)
RECORDER(volatile_write8, 8, 1)
RECORDER(volatile_write16, 16, 1)

void tvtrace_tsan_read_range(const void *p, size_t n);
void tvtrace_tsan_read_range(const void *p, size_t n) { record(p, n, 0); }
void tvtrace_tsan_write_range(const void *p, size_t n);
void tvtrace_tsan_write_range(const void *p, size_t n) { record(p, n, 1); }
void tvtrace_tsan_init(void);
void tvtrace_tsan_init(void) {}
void tvtrace_tsan_func_entry(const void *ret);
void tvtrace_tsan_func_entry(const void *ret) { (void)ret; }
void tvtrace_tsan_func_exit(void);
void tvtrace_tsan_func_exit(void) {}

/* memcpy and friends: the copy in 64-byte steps, each read then written, as a real memcpy
 * streams through the lines. */
static void record_copy(void *d, const void *s, size_t n)
{
    for (size_t i = 0; i < n; i += TRACE_LINE) {
        size_t k = n - i < TRACE_LINE ? n - i : TRACE_LINE;
        record((const char *)s + i, k, 0);
        record((char *)d + i, k, 1);
    }
}

void *tvtrace_memcpy(void *d, const void *s, size_t n);
void *tvtrace_memcpy(void *d, const void *s, size_t n)
{
    record_copy(d, s, n);
    return memcpy(d, s, n);
}

void *tvtrace_memmove(void *d, const void *s, size_t n);
void *tvtrace_memmove(void *d, const void *s, size_t n)
{
    record_copy(d, s, n);
    return memmove(d, s, n);
}

void *tvtrace_memset(void *d, int c, size_t n);
void *tvtrace_memset(void *d, int c, size_t n)
{
    record(d, n, 1);
    return memset(d, c, n);
}

void *tvtrace_memcpy_chk(void *d, const void *s, size_t n, size_t dn);
void *tvtrace_memcpy_chk(void *d, const void *s, size_t n, size_t dn)
{
    if (n > dn)
        abort(); /* what _FORTIFY_SOURCE's check does */
    return tvtrace_memcpy(d, s, n);
}

void *tvtrace_memmove_chk(void *d, const void *s, size_t n, size_t dn);
void *tvtrace_memmove_chk(void *d, const void *s, size_t n, size_t dn)
{
    if (n > dn)
        abort();
    return tvtrace_memmove(d, s, n);
}

void *tvtrace_memset_chk(void *d, int c, size_t n, size_t dn);
void *tvtrace_memset_chk(void *d, int c, size_t n, size_t dn)
{
    if (n > dn)
        abort();
    return tvtrace_memset(d, c, n);
}

/* Newer clang calls these instead of memcpy/memmove/memset under -fsanitize=thread. */
void *tvtrace_tsan_memcpy(void *d, const void *s, size_t n);
void *tvtrace_tsan_memcpy(void *d, const void *s, size_t n) { return tvtrace_memcpy(d, s, n); }
void *tvtrace_tsan_memmove(void *d, const void *s, size_t n);
void *tvtrace_tsan_memmove(void *d, const void *s, size_t n) { return tvtrace_memmove(d, s, n); }
void *tvtrace_tsan_memset(void *d, int c, size_t n);
void *tvtrace_tsan_memset(void *d, int c, size_t n) { return tvtrace_memset(d, c, n); }
