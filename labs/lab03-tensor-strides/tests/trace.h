/* Lab 03 tests: your src/copy.c run through a model cache, as CS:APP's cache lab part B grades a
 * transpose by simulated misses. The same on every machine: nothing here is timed.
 *
 * How the accesses are seen: the instrumented copy of src/copy.c runs in your process and logs
 * every load and store it makes to the source and the destination (serve/trace_log.h), loop
 * order, tiles and vector loads included; this model replays that log. Non-temporal stores and
 * inline assembly are invisible to the instrumentation: a log that misses an element of the
 * source or the destination fails the test, saying so. */
#ifndef TV_TEST_TRACE_H
#define TV_TEST_TRACE_H
#include <stddef.h>
#include <stdint.h>

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

/* Starts a model of a copy from a source of src_bytes to a destination of dst_bytes (the
 * source at model address 0, the destination past it at a multiple of both caches' way size),
 * with both caches empty. Only the byte ranges marked with trace_need_* are checked for
 * coverage. Returns 0, or -ENOMEM. */
int trace_begin(size_t src_bytes, size_t dst_bytes);
/* Marks bytes [off, off + n) of the source (trace_need_read) or destination (trace_need_write)
 * as ones the copy must touch. */
void trace_need_read(size_t off, size_t n);
void trace_need_write(size_t off, size_t n);
/* Replays log[0..n) (serve/trace_log.h's entries) through the caches. Entries outside the
 * buffers are clipped to them (the log is your process's word: nothing in it is trusted). */
void trace_replay(const uint64_t *log, size_t n);
/* Ends the model; fills *st and frees its memory. */
void trace_end(trace_stats_t *st);

#endif
