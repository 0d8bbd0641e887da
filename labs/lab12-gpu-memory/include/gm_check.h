/* Lab 12: what the grader checks of each kernel's trace (kemu_trace.h), for its tests and its
 * benchmark alike: the buffers as the kernel had them, the grader's own copies of the inputs and
 * the answer, which inputs the answer depends on, and the room a trace needs. Provided: not
 * yours to edit (nor needed to write your kernels). */
#ifndef GM_CHECK_H
#define GM_CHECK_H
#include <stddef.h>
#include "kemu_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Events a trace of each kernel gets room for: several times what the reference makes, from the
 * sizes of its launch (a kernel that makes more fails with "more events than ..."). */
size_t gm_trace_cap_transpose(int batch, int rows, int cols);
size_t gm_trace_cap_row_sum(int rows, int cols);
size_t gm_trace_cap_gather(int n_ids, int dim);

/* Checks the trace tr (room for cap events) of one launch against the grader's copies (in, the
 * input; want, the answer; table and ids for the gather) and counts from it into *st:
 * kemu_trace_check's 0, -EPROTO or -EFAULT with why; -EINVAL or -ENOMEM. d_*: the buffers as the
 * kernel had them (their addresses only; never read). The transpose and the row sum depend on
 * every element of in; the gather on every id and the rows of table they name. shared_read:
 * kemu_tcheck_t's (the benchmark's 1: its tiles are full). */
int gm_check_transpose(const kemu_trace_t *tr, size_t cap, const float *d_in, const float *d_out,
                       const float *in, const float *want, int batch, int rows, int cols,
                       int shared_read, kemu_stats_t *st, char *why, size_t len);
int gm_check_row_sum(const kemu_trace_t *tr, size_t cap, const float *d_in, const float *d_out,
                     const float *in, const float *want, int rows, int cols, int shared_read,
                     kemu_stats_t *st, char *why, size_t len);
int gm_check_gather(const kemu_trace_t *tr, size_t cap, const float *d_table, const int *d_ids,
                    const float *d_out, const float *table, const int *ids, const float *want,
                    int vocab, int n_ids, int dim, kemu_stats_t *st, char *why, size_t len);

#ifdef __cplusplus
}
#endif
#endif
