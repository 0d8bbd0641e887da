/* Lab 06 workloads (calls.toml): reading samples in the student's process, where its mapping is:
 * loads from samples (the page faults, readahead and resident memory the tests then read from
 * /proc), and ds_stream with a consumer that hands each window to the harness to check.
 * Public lab code: it runs in the student's process, next to the student's code. */
#include <errno.h>
#include <string.h>
#include "ds_serve.h"
#include "mm_serve.h"

/* Touches the first byte of every stride-th sample in [first, end) (ds_touch_in_t). Returns the
 * number of loads, or -EFAULT with the index in out when ds_sample gives NULL. */
int serve_touch(const void *in, size_t in_len, void *out, size_t out_len)
{
    ds_touch_in_t t;
    if (in_len != sizeof t || out_len != sizeof(uint64_t))
        return -EINVAL;
    memcpy(&t, in, sizeof t);
    if (t.stride == 0)
        return -EINVAL;
    int loads = 0;
    for (uint64_t i = t.first; i < t.end; i += t.stride, loads++) {
        const volatile unsigned char *p = ds_sample(t.rd, i);
        if (!p) {
            memcpy(out, &i, sizeof i);
            return -EFAULT;
        }
        (void)*p; /* a load the compiler keeps */
    }
    return loads;
}

/* ds_stream's consumer: the window, piece by piece, copied to the shared buffer and handed to
 * the harness ("ds.chunk"). Returns 0, the harness's answer, or -EPIPE when it is gone. */
static int forward(void *arg, uint64_t first, const void *records, uint64_t n)
{
    const ds_stream_in_t *q = arg;
    uint64_t total = n * q->record_size, off = 0;
    do {
        uint64_t len = total - off < q->buf_len ? total - off : q->buf_len;
        memcpy(q->buf, (const unsigned char *)records + off, (size_t)len);
        ds_chunk_t c = { first, n, (uint64_t)(uintptr_t)records, off, len };
        int32_t answer = 0;
        int rc = mm_serve_callback("ds.chunk", &c, sizeof c, &answer, sizeof answer);
        if (rc != 0 || answer != 0)
            return rc != 0 ? rc : answer;
        off += len;
    } while (off < total);
    return 0;
}

/* Streams in->rd through forward (or a NULL consumer) after touching the shared buffer and
 * calling back "ds.begin". Returns ds_stream's result, or -EINVAL for a malformed request. */
int serve_stream(const void *in, size_t in_len, void *out, size_t out_len)
{
    ds_stream_in_t q;
    (void)out, (void)out_len;
    if (in_len != sizeof q)
        return -EINVAL;
    memcpy(&q, in, sizeof q);
    if (!q.buf || q.buf_len == 0)
        return -EINVAL;
    memset(q.buf, 0, (size_t)q.buf_len); /* mapped here now, not while the stream is measured */
    char none = 0;
    if (mm_serve_callback("ds.begin", &none, sizeof none, NULL, 0) != 0)
        return -EPIPE;
    return ds_stream(q.rd, (size_t)q.budget, q.no_consumer ? NULL : forward, &q);
}
