/* Lab 03: the access log of the simulated-miss tests (tests/check_trace.c), as the recorder in
 * the student's process writes it (serve/trace_record.c) and the harness's model cache reads it
 * (tests/trace.c). lab.mk compiles src/copy.c a second time with ThreadSanitizer's
 * instrumentation (a call before every load and store) and renames those calls, and
 * memcpy/memmove/memset, to the recorders, and your three functions to the tvtrace_ names below.
 * The recorder logs each access to the source or the destination; the harness replays the log
 * through its model cache, checks that it covers every byte the copy must touch, and counts the
 * misses. */
#ifndef TV_SERVE_TRACE_LOG_H
#define TV_SERVE_TRACE_LOG_H
#include <stddef.h>
#include <stdint.h>
#include "view.h"

/* One access, 8 bytes: bit 63 a store, bit 62 to the destination (else the source), bits 32..61
 * its length in bytes, bits 0..31 its offset in that buffer (buffers below 4 GiB). */
#define TV_LOG_WRITE ((uint64_t)1 << 63)
#define TV_LOG_DST ((uint64_t)1 << 62)
#define TV_LOG_LEN_MAX (((uint64_t)1 << 30) - 1)
#define TV_LOG_ENTRY(dst, off, len, write)                                                    \
    (((write) ? TV_LOG_WRITE : 0) | ((dst) ? TV_LOG_DST : 0) | (uint64_t)(len) << 32 |        \
     (uint64_t)(uint32_t)(off))
#define TV_LOG_LEN(e) ((size_t)((e) >> 32 & TV_LOG_LEN_MAX))
#define TV_LOG_OFF(e) ((size_t)(uint32_t)(e))

enum { TV_TRACE_TRANSPOSE, TV_TRACE_CONTIGUOUS };

/* The trace workload's request: which traced function runs on which buffers (shared memory),
 * and where the log goes (shared memory, cap entries). */
typedef struct {
    int32_t kind;                              /* TV_TRACE_* */
    uint64_t src, src_bytes, dst, dst_bytes;   /* the traced ranges (addresses, bytes) */
    uint64_t log, cap;                         /* the log: cap entries of uint64_t */
    uint64_t rows, cols, ld_src, ld_dst;       /* transpose: tvtrace_transpose2d_f32 */
    tv_t v;                                    /* contiguous: tvtrace_contiguous(&v, dst, ..) */
} tv_trace_req_t;

/* Its answer: the traced call's result and the log's length (entries). */
typedef struct {
    int32_t rc;
    int32_t overflow;                          /* 1: more accesses than cap; the log is cut */
    uint64_t n;
} tv_trace_res_t;

/* Starts logging the accesses to [src, src + src_bytes) and [dst, dst + dst_bytes) into
 * log[0..cap); stops at cap entries (then *overflow is set by tv_trace_record_end). */
void tv_trace_record_begin(const void *src, size_t src_bytes, const void *dst, size_t dst_bytes,
                           uint64_t *log, size_t cap);
/* Stops logging; returns the number of entries written and sets *overflow. */
size_t tv_trace_record_end(int *overflow);

/* Your src/copy.c, compiled with the recorders (same contracts as include/copy.h). */
int tvtrace_contiguous(const tv_t *v, void *dst, size_t dst_bytes);
int tvtrace_transpose2d_f32(const float *src, size_t rows, size_t cols, size_t ld_src,
                            float *dst, size_t ld_dst);
int tvtrace_transpose2d_f32_tiled(const float *src, size_t rows, size_t cols, size_t ld_src,
                                  float *dst, size_t ld_dst, size_t tile);

#endif
