/* Lab 03 tests: the model cache (trace.h) that replays the access log of the instrumented copy
 * of src/copy.c (serve/trace_log.h). */
#include "trace.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "../serve/trace_log.h"

typedef struct {
    unsigned sets, ways;
    uint64_t *tag; /* tag[set * ways + w]: line numbers, most recently used first; ~0 empty */
} cache_t;

/* Model addresses: the source at 0, the destination at dst_base (a multiple of both caches'
 * way size), so that the counts do not depend on where the buffers are. */
static struct {
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

/* One logged access: n bytes at offset off of the destination (dst) or the source, clipped to
 * that buffer. */
static void account(int dst, size_t off, size_t n, int write)
{
    size_t bytes = dst ? T.dst_bytes : T.src_bytes, base = dst ? T.dst_base : 0;
    if (off >= bytes || n == 0)
        return;
    size_t len = n < bytes - off ? n : bytes - off;
    if (!dst && !write)
        set_bits(T.rd, off, len);
    if (dst && write)
        set_bits(T.wr, off, len);
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

void trace_replay(const uint64_t *log, size_t n)
{
    for (size_t i = 0; i < n; i++)
        account(!!(log[i] & TV_LOG_DST), TV_LOG_OFF(log[i]), TV_LOG_LEN(log[i]),
                !!(log[i] & TV_LOG_WRITE));
}

int trace_begin(size_t src_bytes, size_t dst_bytes)
{
    size_t way = TRACE_L2_BYTES / TRACE_L2_WAYS;
    memset(&T, 0, sizeof T);
    T.src_bytes = src_bytes, T.dst_bytes = dst_bytes;
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
    *st = T.st;
    st->unread = T.need_rd && T.rd ? first_missing(T.need_rd, T.rd, T.src_bytes) : -1;
    st->unwritten = T.need_wr && T.wr ? first_missing(T.need_wr, T.wr, T.dst_bytes) : -1;
    free(T.need_rd), free(T.rd), free(T.need_wr), free(T.wr), free(T.seen);
    free(T.l1.tag), free(T.l2.tag);
    memset(&T, 0, sizeof T);
}
