/* Lab 06: what the harness (tests/, bench/) and the workloads of the student's process (serve/)
 * pass each other: the `in` and `out` of each workload in calls.toml, and the callbacks the
 * stream workload makes. Pointers in them are the student process's own (or shared memory). */
#ifndef DS_SERVE_H
#define DS_SERVE_H
#include <stdint.h>
#include "loader.h"
#include "reader.h"

#define DS_SERVE_PATH_MAX 4096

/* fd_open: in, out int32_t (the descriptor); returns the descriptor or -errno.
 * fd_close: in int32_t; returns 0 or -errno. */
typedef struct {
    char path[DS_SERVE_PATH_MAX]; /* relative to the student process's working folder */
} ds_fd_open_in_t;

/* touch: one load from the first byte of ds_sample(rd, i) for i = first, first + stride, ...
 * below end. Returns the number of loads, or -EFAULT when ds_sample returns NULL (out, a
 * uint64_t: that index). */
typedef struct {
    const ds_reader_t *rd;
    uint64_t first, end, stride;
} ds_touch_in_t;

/* stream: ds_stream(rd, budget, consume or NULL, ...) after the callback "ds.begin" (no args;
 * the harness notes the student's VmRSS then). Its consumer copies each window of n records of
 * record_size bytes at `records` into buf, at most buf_len bytes at a time, and calls back
 * "ds.chunk" with a ds_chunk_t for each piece (one piece of 0 bytes for an empty window); the
 * callback's answer (int32_t) is 0 to go on, or the value the consumer returns. The workload
 * returns ds_stream's result. */
typedef struct {
    ds_reader_t *rd;
    uint64_t budget, record_size;
    void *buf;           /* shared memory of buf_len bytes, touched before "ds.begin" */
    uint64_t buf_len;
    int32_t no_consumer; /* pass NULL as the consumer */
} ds_stream_in_t;

typedef struct {
    uint64_t first, n;   /* the window, as ds_stream passed it */
    uint64_t records;    /* its address, as ds_stream passed it */
    uint64_t offset, len; /* this piece: bytes [offset, offset + len) of the window, now in buf */
} ds_chunk_t;

/* epoch: for k in [0, n): the record at ds_sample(rd, order[k]) (record_size bytes, a multiple
 * of 8) read as 64-bit words, folded into the checksum ds_epoch_fold describes; out uint64_t.
 * Returns 0, or -EFAULT when ds_sample returns NULL.
 * epoch_loader: the same records through ds_loader_batch(loader, order + b, batch, private
 * buffer) for each batch; returns 0 or ds_loader_batch's error (-ENOMEM without a buffer). */
typedef struct {
    const ds_reader_t *rd;
    ds_loader_t *loader;
    const uint64_t *order; /* shared memory */
    uint64_t n, batch, record_size;
} ds_epoch_in_t;

/* The epoch's checksum, in order: s = s * 0x100000001b3 + (sum of the record's words). It
 * depends on the order, so an epoch read in another order does not pass for this one. */
static inline uint64_t ds_epoch_fold(uint64_t s, const void *record, uint64_t record_size)
{
    const uint64_t *w = record;
    uint64_t t = 0;
    for (uint64_t i = 0; i < record_size / 8; i++)
        t += w[i];
    return s * 0x100000001b3ull + t;
}

#endif
