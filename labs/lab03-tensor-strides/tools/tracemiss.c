/* Lab 03: `tracemiss` counts the simulated misses of your transpose on one shape, through the
 * model cache the simulated-miss tests use (tests/trace.h: L1 32 KiB 8-way, L2 512 KiB 8-way,
 * 64-byte lines, LRU), as CS:APP's test-trans does for its cache lab.
 *   build/labs/lab03-tensor-strides/tracemiss ROWS COLS [LD_SRC LD_DST] [TILE]
 * Without TILE it traces tv_transpose2d_f32 (your TV_TILE), with it tv_transpose2d_f32_tiled. */
#include <stdio.h>
#include <stdlib.h>
#include "../serve/trace_log.h"
#include "../tests/trace.h"
#include "mm_aligned.h"

static size_t arg(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v == 0 || v > (1u << 16)) {
        fprintf(stderr, "tracemiss: '%s' is not a size from 1 to 65536\n", s);
        exit(2);
    }
    return (size_t)v;
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4 && argc != 5 && argc != 6) {
        fprintf(stderr, "usage: %s ROWS COLS [LD_SRC LD_DST] [TILE]\n", argv[0]);
        return 2;
    }
    size_t rows = arg(argv[1]), cols = arg(argv[2]), ls = cols, ld = rows, tile = 0;
    if (argc >= 5)
        ls = arg(argv[3]), ld = arg(argv[4]);
    if (argc == 4 || argc == 6)
        tile = arg(argv[argc - 1]);
    float *src = mm_aligned_alloc(64, rows * ls * sizeof *src);
    float *dst = mm_aligned_alloc(64, cols * ld * sizeof *dst);
    if (!src || !dst || ls < cols || ld < rows) {
        fprintf(stderr, "tracemiss: %s\n", !src || !dst ? "out of memory" : "LD_SRC < COLS or "
                "LD_DST < ROWS");
        return 2;
    }
    for (size_t k = 0; k < rows * ls; k++)
        src[k] = (float)k;
    size_t cap = rows * ls * sizeof *src + cols * ld * sizeof *dst;
    uint64_t *log = malloc(cap * sizeof *log);
    if (!log || trace_begin(rows * ls * sizeof *src, cols * ld * sizeof *dst) != 0) {
        fprintf(stderr, "tracemiss: out of memory\n");
        return 2;
    }
    for (size_t i = 0; i < rows; i++)
        trace_need_read(i * ls * sizeof *src, cols * sizeof *src);
    for (size_t j = 0; j < cols; j++)
        trace_need_write(j * ld * sizeof *dst, rows * sizeof *dst);
    tv_trace_record_begin(src, rows * ls * sizeof *src, dst, cols * ld * sizeof *dst, log, cap);
    int rc = tile ? tvtrace_transpose2d_f32_tiled(src, rows, cols, ls, dst, ld, tile)
                  : tvtrace_transpose2d_f32(src, rows, cols, ls, dst, ld);
    int overflow;
    size_t n = tv_trace_record_end(&overflow);
    trace_replay(log, n);
    free(log);
    trace_stats_t st;
    trace_end(&st);
    if (rc != 0) {
        fprintf(stderr, "tracemiss: the transpose returned %d\n", rc);
        return 1;
    }
    printf("%zu x %zu, ld_src %zu, ld_dst %zu, tile %s: %llu line accesses, %llu distinct lines\n"
           "  L1 misses %llu (%.2f per line), L2 misses %llu (%.2f per line)%s\n", rows, cols, ls,
           ld, tile ? argv[argc - 1] : "your TV_TILE", (unsigned long long)st.accesses,
           (unsigned long long)st.lines, (unsigned long long)st.l1_misses,
           (double)st.l1_misses / (double)st.lines, (unsigned long long)st.l2_misses,
           (double)st.l2_misses / (double)st.lines,
           overflow || st.unread >= 0 || st.unwritten >= 0 ? "\n  (the trace missed some accesses)"
                                                            : "");
    mm_aligned_free(src);
    mm_aligned_free(dst);
    return 0;
}
