/* Lab 03 serve code (runs in the student's process): a batch of tiled transposes in one call,
 * so that the benchmark's channels-last tile sweep (one transpose per image) is timed by the
 * harness around one call, without a round trip per image. The harness times it and reads
 * nothing back but the result code; it scores nothing (a plot's series). */
#include "batch.h"
#include <errno.h>
#include <string.h>
#include "copy.h"

int serve_transpose_batch(const void *in, size_t in_len, void *out, size_t out_len);

/* Runs the request's transposes; returns 0, the first failing call's result, or -EINVAL for a
 * malformed request. */
int serve_transpose_batch(const void *in, size_t in_len, void *out, size_t out_len)
{
    (void)out, (void)out_len;
    if (in_len != sizeof(tv_batch_t))
        return -EINVAL;
    tv_batch_t b;
    memcpy(&b, in, sizeof b);
    const float *src = (const float *)(uintptr_t)b.src;
    float *dst = (float *)(uintptr_t)b.dst;
    int rc = 0;
    for (uint64_t n = 0; n < b.count; n++) {
        int r = tv_transpose2d_f32_tiled(src + n * b.src_step, b.rows, b.cols, b.ld_src,
                                         dst + n * b.dst_step, b.ld_dst, b.tile);
        if (r != 0 && rc == 0)
            rc = r;
    }
    return rc;
}
