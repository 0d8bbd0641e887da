/* Lab 06, part E: the pread loader, one system call and one copy per record (contract in
 * include/loader.h). */
#include "loader.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

struct ds_loader {
    /* ===== YOUR CODE HERE: the descriptor and the header ===== */
    int fd;
    /* ===== END YOUR CODE ===== */
};

int ds_loader_open(ds_loader_t **out, const char *path)
{
    /* ===== YOUR CODE HERE: like ds_open, without the mapping ===== */
    (void)out, (void)path;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

const ds_header_t *ds_loader_header(const ds_loader_t *l)
{
    /* ===== YOUR CODE HERE ===== */
    (void)l;
    return NULL;
    /* ===== END YOUR CODE ===== */
}

int ds_loader_batch(ds_loader_t *l, const uint64_t *idx, size_t n, void *dst)
{
    /* ===== YOUR CODE HERE =====
     * Check every index first; then pread each record at data_offset + idx[k] * record_size,
     * looping over short reads. pread returning 0 means end of file: -EIO, not a retry. */
    (void)l, (void)idx, (void)n, (void)dst;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

void ds_loader_close(ds_loader_t *l)
{
    /* ===== YOUR CODE HERE ===== */
    free(l);
    /* ===== END YOUR CODE ===== */
}
