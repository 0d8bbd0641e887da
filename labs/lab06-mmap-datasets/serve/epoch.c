/* Lab 06 workloads (calls.toml): the benchmark's epoch of shuffled batches, read in the student's
 * process through its reader (scored: the harness times the call and checks the checksum) or
 * its pread loader (information). Public lab code: it runs next to the student's code. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ds_serve.h"

/* The records at ds_sample(rd, order[k]), folded in order (ds_epoch_fold) into out (uint64_t).
 * Returns 0, -EFAULT when a sample is NULL, or -EINVAL for a malformed request. */
int serve_epoch(const void *in, size_t in_len, void *out, size_t out_len)
{
    ds_epoch_in_t q;
    if (in_len != sizeof q || out_len != sizeof(uint64_t))
        return -EINVAL;
    memcpy(&q, in, sizeof q);
    uint64_t s = 0;
    for (uint64_t k = 0; k < q.n; k++) {
        const void *p = ds_sample(q.rd, q.order[k]);
        if (!p)
            return -EFAULT;
        s = ds_epoch_fold(s, p, q.record_size);
    }
    memcpy(out, &s, sizeof s);
    return 0;
}

/* The same epoch through ds_loader_batch, batch by batch, into a buffer of this process.
 * Returns 0, ds_loader_batch's error, -ENOMEM, or -EINVAL for a malformed request. */
int serve_epoch_loader(const void *in, size_t in_len, void *out, size_t out_len)
{
    ds_epoch_in_t q;
    if (in_len != sizeof q || out_len != sizeof(uint64_t))
        return -EINVAL;
    memcpy(&q, in, sizeof q);
    if (q.batch == 0 || q.n % q.batch != 0)
        return -EINVAL;
    unsigned char *buf = malloc((size_t)(q.batch * q.record_size));
    if (!buf)
        return -ENOMEM;
    uint64_t s = 0;
    int rc = 0;
    for (uint64_t b = 0; b < q.n && rc == 0; b += q.batch) {
        rc = ds_loader_batch(q.loader, q.order + b, (size_t)q.batch, buf);
        for (uint64_t k = 0; k < q.batch && rc == 0; k++)
            s = ds_epoch_fold(s, buf + k * q.record_size, q.record_size);
    }
    free(buf);
    memcpy(out, &s, sizeof s);
    return rc;
}
