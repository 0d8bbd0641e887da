/* Lab 06, part B (reference): the mmap reader, zero-copy samples and madvise hints (see
 * reader.h). */
#include "reader.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

struct ds_reader {
    ds_header_t h;
    unsigned char *base; /* the whole file, mapped read-only and shared */
    size_t len;          /* bytes mapped: the file's size */
};

int ds_open(ds_reader_t **out, const char *path)
{
    if (!out || !path)
        return -EINVAL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ds_header_t h;
    int rc = ds_validate(fd, &h);
    ds_reader_t *r = rc == 0 ? malloc(sizeof *r) : NULL;
    if (rc == 0 && !r)
        rc = -ENOMEM;
    if (rc == 0) {
        r->h = h;
        r->len = (size_t)(h.data_offset + h.count * h.record_size);
        r->base = mmap(NULL, r->len, PROT_READ, MAP_SHARED, fd, 0);
        if (r->base == MAP_FAILED)
            rc = -errno;
    }
    close(fd); /* the mapping keeps the file open */
    if (rc != 0) {
        free(r);
        return rc;
    }
    *out = r;
    return 0;
}

void ds_close(ds_reader_t *r)
{
    if (!r)
        return;
    munmap(r->base, r->len);
    free(r);
}

uint64_t ds_count(const ds_reader_t *r)
{
    return r ? r->h.count : 0;
}

uint64_t ds_record_size(const ds_reader_t *r)
{
    return r ? r->h.record_size : 0;
}

const void *ds_sample(const ds_reader_t *r, uint64_t i)
{
    if (!r || i >= r->h.count)
        return NULL;
    return r->base + r->h.data_offset + i * r->h.record_size;
}

static int madv_of(ds_advice_t advice)
{
    switch (advice) {
    case DS_ADV_NORMAL: return MADV_NORMAL;
    case DS_ADV_SEQUENTIAL: return MADV_SEQUENTIAL;
    case DS_ADV_RANDOM: return MADV_RANDOM;
    case DS_ADV_WILLNEED: return MADV_WILLNEED;
    case DS_ADV_DONTNEED: return MADV_DONTNEED;
    }
    return -1;
}

int ds_advise(ds_reader_t *r, uint64_t first, uint64_t n, ds_advice_t advice)
{
    int madv = madv_of(advice);
    if (!r || madv < 0)
        return -EINVAL;
    if (first > r->h.count || n > r->h.count - first)
        return -ERANGE;
    if (n == 0)
        return 0;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t lo = (size_t)(r->h.data_offset + first * r->h.record_size);
    size_t hi = (size_t)(r->h.data_offset + (first + n) * r->h.record_size);
    lo = lo / page * page;
    hi = hi + page - 1 < r->len ? (hi + page - 1) / page * page : r->len;
    if (madvise(r->base + lo, hi - lo, madv) != 0)
        return -errno;
    return 0;
}
