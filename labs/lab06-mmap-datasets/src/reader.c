/* Lab 06, part B: the mmap reader: zero-copy samples and madvise hints (contract in
 * include/reader.h). The benchmark races ds_sample against the pread loader of src/baseline.c. */
#include "reader.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

struct ds_reader {
    /* ===== YOUR CODE HERE: the header, the mapping's address and length ===== */
    ds_header_t h;
    /* ===== END YOUR CODE ===== */
};

int ds_open(ds_reader_t **out, const char *path)
{
    /* ===== YOUR CODE HERE =====
     * open (O_RDONLY | O_CLOEXEC), ds_validate, then
     *     mmap(NULL, file_size, PROT_READ, MAP_SHARED, fd, 0)
     * which returns MAP_FAILED (not NULL) on error. The mapping keeps the file open: the
     * descriptor can be closed right after. */
    (void)out, (void)path;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

void ds_close(ds_reader_t *r)
{
    /* ===== YOUR CODE HERE ===== */
    free(r);
    /* ===== END YOUR CODE ===== */
}

uint64_t ds_count(const ds_reader_t *r)
{
    /* ===== YOUR CODE HERE ===== */
    (void)r;
    return 0;
    /* ===== END YOUR CODE ===== */
}

uint64_t ds_record_size(const ds_reader_t *r)
{
    /* ===== YOUR CODE HERE ===== */
    (void)r;
    return 0;
    /* ===== END YOUR CODE ===== */
}

const void *ds_sample(const ds_reader_t *r, uint64_t i)
{
    /* ===== YOUR CODE HERE: pointer arithmetic, nothing else ===== */
    (void)r, (void)i;
    return NULL;
    /* ===== END YOUR CODE ===== */
}

int ds_advise(ds_reader_t *r, uint64_t first, uint64_t n, ds_advice_t advice)
{
    /* ===== YOUR CODE HERE =====
     * madvise(addr, len, MADV_...) wants addr page-aligned: round the records' byte range
     * down / up to sysconf(_SC_PAGESIZE), and never past the end of the mapping. */
    (void)r, (void)first, (void)n, (void)advice;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}
