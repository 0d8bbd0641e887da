/* Lab 06, part D: stream a dataset larger than a memory budget through its mapping, releasing
 * each window's pages once consumed (contract of ds_stream in include/reader.h). */
#include "reader.h"
#include <errno.h>

int ds_stream(ds_reader_t *r, size_t budget_bytes, ds_consume_fn consume, void *arg)
{
    /* ===== YOUR CODE HERE =====
     * Windows of at most budget_bytes / 2 of whole records: consume(arg, first, ds_sample(r,
     * first), n), then ds_advise(r, first, n, DS_ADV_DONTNEED). Readahead hints (SEQUENTIAL for
     * the file, WILLNEED for the next window) make a cold file stream faster. */
    (void)r, (void)budget_bytes, (void)consume, (void)arg;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}
