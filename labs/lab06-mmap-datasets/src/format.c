/* Lab 06, part A: the dataset header, its validation, and a writer that never leaves a
 * half-written file behind (contract in include/dsfile.h).
 * Background and hints: labs/lab06-mmap-datasets/README.md, `make hint LAB=06`. */
#include "dsfile.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

uint64_t ds_checksum(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

void ds_header_init(ds_header_t *h, uint64_t record_size, uint64_t count)
{
    /* ===== YOUR CODE HERE =====
     * Zero the whole struct first (padding and reserved bytes go to disk), then fill the
     * fields of the table in dsfile.h; the checksum last, over the first DS_CHECKED_BYTES. */
    (void)h, (void)record_size, (void)count;
    /* ===== END YOUR CODE ===== */
}

int ds_header_check(const ds_header_t *h, uint64_t file_size)
{
    /* ===== YOUR CODE HERE =====
     * In the order of the contract: magic, version, checksum and fields, count, then the size
     * data_offset + count * record_size -- computed only after you know it cannot overflow. */
    (void)h, (void)file_size;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int ds_validate(int fd, ds_header_t *out)
{
    /* ===== YOUR CODE HERE =====
     * fstat(fd, &st): S_ISDIR, S_ISREG, st.st_size; then pread the 64-byte header at offset 0
     * (a loop: pread may return fewer bytes, or -1 with errno EINTR) and ds_header_check it. */
    (void)fd, (void)out;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

struct ds_writer {
    /* ===== YOUR CODE HERE: the temporary file (descriptor, name), the final path, the record
     * size, the records appended so far, and the first error ===== */
    int fd;
    /* ===== END YOUR CODE ===== */
};

int ds_writer_open(ds_writer_t **out, const char *path, uint64_t record_size)
{
    /* ===== YOUR CODE HERE =====
     * The temporary name is path + ".tmp.XXXXXX" (mkstemp fills in the X's and opens it; it
     * creates the file with mode 0600: fchmod it to 0644). Write DS_DATA_ALIGN zero bytes: the
     * header's place, filled in by commit. */
    (void)out, (void)path, (void)record_size;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int ds_writer_append(ds_writer_t *w, const void *records, uint64_t n)
{
    /* ===== YOUR CODE HERE: write() may write less than asked: loop ===== */
    (void)w, (void)records, (void)n;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int ds_writer_commit(ds_writer_t *w)
{
    /* ===== YOUR CODE HERE =====
     * pwrite the header at offset 0, close, rename(tmp, path). Any failure: unlink(tmp). */
    free(w);
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

void ds_writer_abort(ds_writer_t *w)
{
    /* ===== YOUR CODE HERE ===== */
    free(w);
    /* ===== END YOUR CODE ===== */
}
