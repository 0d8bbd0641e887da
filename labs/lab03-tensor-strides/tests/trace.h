/* Lab 03 tests: your src/copy.c run through a model cache, as CS:APP's cache lab part B grades a
 * transpose by simulated misses. The same on every machine: nothing here is timed.
 *
 * How the accesses are seen: lab.mk compiles src/copy.c a second time with the compiler's
 * ThreadSanitizer instrumentation, which calls a function before every load and store the
 * compiled code makes (with its address and size), and renames, in that second object only,
 * those calls and memcpy/memmove/memset to the recorders in trace.c and your three functions to
 * the tvtrace_ names below (tools/tracemiss.c prints the same counts for any shape). So the trace is of your own compiled code, loop order, tiles and
 * vector loads included. Non-temporal stores and inline assembly are invisible to it: a trace
 * that misses an element of the source or the destination fails the test, saying so. */
#ifndef TV_TEST_TRACE_H
#define TV_TEST_TRACE_H
#include <stddef.h>
#include <stdint.h>
#include "view.h"

/* The model: both levels 64-byte lines, LRU, write-allocate (a store is an access like a load);
 * the L2 sees only the L1's misses. Fixed sizes, so every machine counts the same misses. */
#define TRACE_LINE 64
#define TRACE_L1_BYTES (32 * 1024)
#define TRACE_L1_WAYS 8
#define TRACE_L2_BYTES (512 * 1024)
#define TRACE_L2_WAYS 8

typedef struct {
    uint64_t accesses;  /* line accesses to the source and destination (an access that spans two
                           lines counts twice) */
    uint64_t l1_misses, l2_misses;
    uint64_t lines;     /* distinct lines touched: the misses no order can avoid */
    int64_t unread;     /* first source byte offset never read, or -1 */
    int64_t unwritten;  /* first destination byte offset never written, or -1 */
} trace_stats_t;

/* Starts recording accesses to [src, src + src_bytes) and [dst, dst + dst_bytes) (not
 * overlapping) with both model caches empty. Only the byte ranges `must_read` / `must_write`
 * (bitmaps set by the caller with trace_need_*) are checked for coverage. Returns 0, or -ENOMEM. */
int trace_begin(const void *src, size_t src_bytes, void *dst, size_t dst_bytes);
/* Marks bytes [off, off + n) of the source (trace_need_read) or destination (trace_need_write)
 * as ones the copy must touch. */
void trace_need_read(size_t off, size_t n);
void trace_need_write(size_t off, size_t n);
/* Stops recording; fills *st and frees the recorder's memory. */
void trace_end(trace_stats_t *st);

/* Your src/copy.c, compiled with the recorders (same contracts as include/copy.h). */
int tvtrace_contiguous(const tv_t *v, void *dst, size_t dst_bytes);
int tvtrace_transpose2d_f32(const float *src, size_t rows, size_t cols, size_t ld_src,
                            float *dst, size_t ld_dst);
int tvtrace_transpose2d_f32_tiled(const float *src, size_t rows, size_t cols, size_t ld_src,
                                  float *dst, size_t ld_dst, size_t tile);

#endif
