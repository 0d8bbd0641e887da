/* Lab 03 serve code (runs in the student's process): the recorders that the instrumented copy of
 * src/copy.c calls (lab.mk renames its __tsan_* calls and memcpy/memmove/memset to the tvtrace_
 * functions here), which log each access to the traced source and destination (trace_log.h),
 * and the trace workload that runs a traced copy. The log is data for the harness: its model
 * cache (tests/trace.c) replays it, checks its coverage and counts the misses. */
#include "trace_log.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int serve_trace(const void *in, size_t in_len, void *out, size_t out_len);

#define COPY_STEP 64 /* memcpy and friends are logged in steps of one cache line */

static struct {
    int on, overflow;
    uintptr_t src, dst;
    size_t src_bytes, dst_bytes;
    uint64_t *log;
    size_t cap, n;
} R;

void tv_trace_record_begin(const void *src, size_t src_bytes, const void *dst, size_t dst_bytes,
                           uint64_t *log, size_t cap)
{
    R.src = (uintptr_t)src, R.src_bytes = src_bytes;
    R.dst = (uintptr_t)dst, R.dst_bytes = dst_bytes;
    R.log = log, R.cap = cap, R.n = 0, R.overflow = 0;
    R.on = 1;
}

size_t tv_trace_record_end(int *overflow)
{
    R.on = 0;
    *overflow = R.overflow;
    return R.n;
}

/* Logs the part of [a, a + n) inside [base, base + bytes), if any. */
static void clip(uintptr_t a, size_t n, uintptr_t base, size_t bytes, int dst, int write)
{
    if (a + n <= base || a >= base + bytes)
        return;
    size_t off = a > base ? a - base : 0;
    size_t len = (a + n < base + bytes ? a + n - base : bytes) - off;
    if (R.n == R.cap) {
        R.overflow = 1;
        return;
    }
    R.log[R.n++] = TV_LOG_ENTRY(dst, off, len, write);
}

/* One access of n bytes at p: the parts inside the source and the destination are logged. */
static void record(const void *p, size_t n, int write)
{
    if (!R.on || n == 0)
        return;
    clip((uintptr_t)p, n, R.src, R.src_bytes, 0, write);
    clip((uintptr_t)p, n, R.dst, R.dst_bytes, 1, write);
}

/* Runs the request's traced copy (tv_trace_req_t) with the recorder on; writes the result and
 * the log's length to out (tv_trace_res_t). Returns 0, or -EINVAL for a malformed request. */
int serve_trace(const void *in, size_t in_len, void *out, size_t out_len)
{
    if (in_len != sizeof(tv_trace_req_t) || out_len != sizeof(tv_trace_res_t))
        return -EINVAL;
    tv_trace_req_t q;
    memcpy(&q, in, sizeof q);
    if (q.src_bytes > TV_LOG_LEN_MAX || q.dst_bytes > TV_LOG_LEN_MAX ||
        (q.kind != TV_TRACE_TRANSPOSE && q.kind != TV_TRACE_CONTIGUOUS))
        return -EINVAL;
    tv_trace_res_t res = { 0, 0, 0 };
    float *dst = (float *)(uintptr_t)q.dst;
    tv_trace_record_begin((const void *)(uintptr_t)q.src, q.src_bytes, dst, q.dst_bytes,
                          (uint64_t *)(uintptr_t)q.log, q.cap);
    if (q.kind == TV_TRACE_TRANSPOSE)
        res.rc = tvtrace_transpose2d_f32((const float *)(uintptr_t)q.src, q.rows, q.cols,
                                         q.ld_src, dst, q.ld_dst);
    else
        res.rc = tvtrace_contiguous(&q.v, dst, q.dst_bytes);
    int overflow;
    res.n = tv_trace_record_end(&overflow);
    res.overflow = overflow;
    memcpy(out, &res, sizeof res);
    return 0;
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
    for (size_t i = 0; i < n; i += COPY_STEP) {
        size_t k = n - i < COPY_STEP ? n - i : COPY_STEP;
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
