/* Lab 06, part D (reference): stream a dataset larger than a memory budget through its mapping,
 * releasing each window's pages once consumed (see reader.h). */
#include "reader.h"
#include <errno.h>

#define MIN_BUDGET (4u << 20)

int ds_stream(ds_reader_t *r, size_t budget_bytes, ds_consume_fn consume, void *arg)
{
    uint64_t rs = ds_record_size(r), count = ds_count(r);
    if (!r || !consume || budget_bytes < MIN_BUDGET || budget_bytes / 4 < rs)
        return -EINVAL;
    uint64_t per = budget_bytes / 2 / rs; /* records per window: half the budget */
    int rc = ds_advise(r, 0, count, DS_ADV_SEQUENTIAL);
    for (uint64_t first = 0; first < count && rc == 0; first += per) {
        uint64_t n = count - first < per ? count - first : per;
        if (first + n < count) /* start reading the next window while this one is consumed */
            ds_advise(r, first + n, count - first - n < per ? count - first - n : per,
                      DS_ADV_WILLNEED);
        rc = consume(arg, first, ds_sample(r, first), n);
        if (rc == 0)
            rc = ds_advise(r, first, n, DS_ADV_DONTNEED);
    }
    int reset = ds_advise(r, 0, count, DS_ADV_NORMAL);
    return rc != 0 ? rc : reset;
}
