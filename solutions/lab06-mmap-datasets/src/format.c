/* Lab 06, part A (reference): the dataset header, its validation, and a writer that never leaves
 * a half-written file behind (see dsfile.h). */
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
    memset(h, 0, sizeof *h);
    memcpy(h->magic, DS_MAGIC, sizeof h->magic);
    h->version = DS_VERSION;
    h->header_size = DS_HEADER_SIZE;
    h->record_size = record_size;
    h->count = count;
    h->data_offset = DS_DATA_ALIGN;
    h->checksum = ds_checksum(h, DS_CHECKED_BYTES);
}

/* Checksum and fields; the total size in *size. 0 or -EPROTO. */
static int check_fields(const ds_header_t *h, uint64_t *size)
{
    static const uint8_t zero[sizeof h->reserved];
    if (h->checksum != ds_checksum(h, DS_CHECKED_BYTES) || h->header_size != DS_HEADER_SIZE ||
        h->record_size == 0 || h->data_offset < DS_DATA_ALIGN ||
        h->data_offset % DS_DATA_ALIGN != 0 || memcmp(h->reserved, zero, sizeof zero) != 0)
        return -EPROTO;
    if (h->count > (UINT64_MAX - h->data_offset) / h->record_size)
        return -EPROTO;
    *size = h->data_offset + h->count * h->record_size;
    return 0;
}

int ds_header_check(const ds_header_t *h, uint64_t file_size)
{
    if (!h)
        return -EINVAL;
    if (memcmp(h->magic, DS_MAGIC, sizeof h->magic) != 0)
        return -EPROTO;
    if (h->version != DS_VERSION)
        return -EPROTONOSUPPORT;
    uint64_t size = 0;
    int rc = check_fields(h, &size);
    if (rc != 0)
        return rc;
    if (h->count == 0)
        return -ENODATA;
    if (file_size < size)
        return -EBADMSG;
    return file_size > size ? -EMSGSIZE : 0;
}

/* Reads exactly len bytes at off: 0, -EBADMSG if the file ends first, or -errno. */
static int pread_all(int fd, void *buf, size_t len, off_t off)
{
    char *p = buf;
    while (len > 0) {
        ssize_t got = pread(fd, p, len, off);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return got < 0 ? -errno : -EBADMSG;
        p += got;
        len -= (size_t)got;
        off += got;
    }
    return 0;
}

int ds_validate(int fd, ds_header_t *out)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -errno;
    if (S_ISDIR(st.st_mode))
        return -EISDIR;
    if (!S_ISREG(st.st_mode))
        return -ENODEV;
    if (st.st_size == 0)
        return -ENODATA;
    if (st.st_size < (off_t)DS_HEADER_SIZE)
        return -EBADMSG;
    ds_header_t h;
    int rc = pread_all(fd, &h, sizeof h, 0);
    if (rc == 0)
        rc = ds_header_check(&h, (uint64_t)st.st_size);
    if (rc == 0 && out)
        *out = h;
    return rc;
}

struct ds_writer {
    int fd;
    int err;              /* first error; the writer is failed when non-zero */
    uint64_t record_size;
    uint64_t count;       /* records appended */
    char *path;           /* where the dataset goes on commit */
    char *tmp;            /* the temporary file: path + ".tmp.XXXXXX" */
};

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? -errno : -EIO;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

static void writer_free(ds_writer_t *w)
{
    free(w->path);
    free(w->tmp);
    free(w);
}

/* The temporary file with a zero header block: 0 or -errno (nothing left behind). */
static int create_tmp(ds_writer_t *w)
{
    w->fd = mkstemp(w->tmp);
    if (w->fd < 0)
        return -errno;
    static const unsigned char zero[DS_DATA_ALIGN];
    int rc = write_all(w->fd, zero, sizeof zero);
    if (rc == 0 && fchmod(w->fd, 0644) != 0)
        rc = -errno;
    if (rc != 0) {
        close(w->fd);
        unlink(w->tmp);
    }
    return rc;
}

int ds_writer_open(ds_writer_t **out, const char *path, uint64_t record_size)
{
    if (!out || !path || record_size == 0)
        return -EINVAL;
    ds_writer_t *w = calloc(1, sizeof *w);
    size_t len = strlen(path);
    if (w) {
        w->path = strdup(path);
        w->tmp = malloc(len + sizeof ".tmp.XXXXXX");
    }
    if (!w || !w->path || !w->tmp) {
        if (w)
            writer_free(w);
        return -ENOMEM;
    }
    memcpy(w->tmp, path, len);
    memcpy(w->tmp + len, ".tmp.XXXXXX", sizeof ".tmp.XXXXXX");
    w->record_size = record_size;
    int rc = create_tmp(w);
    if (rc != 0) {
        writer_free(w);
        return rc;
    }
    *out = w;
    return 0;
}

int ds_writer_append(ds_writer_t *w, const void *records, uint64_t n)
{
    if (!w || (!records && n > 0))
        return -EINVAL;
    if (w->err)
        return w->err;
    uint64_t room = (UINT64_MAX - DS_DATA_ALIGN) / w->record_size - w->count;
    if (n > room || n > SIZE_MAX / w->record_size)
        return w->err = -EOVERFLOW;
    int rc = write_all(w->fd, records, (size_t)(n * w->record_size));
    if (rc != 0)
        return w->err = rc;
    w->count += n;
    return 0;
}

/* Header at offset 0, then close: 0 or -errno. Closes fd either way. */
static int finish_file(ds_writer_t *w)
{
    ds_header_t h;
    ds_header_init(&h, w->record_size, w->count);
    ssize_t put = pwrite(w->fd, &h, sizeof h, 0);
    int rc = put < 0 ? -errno : put != (ssize_t)sizeof h ? -EIO : 0;
    if (close(w->fd) != 0 && rc == 0)
        rc = -errno;
    return rc;
}

int ds_writer_commit(ds_writer_t *w)
{
    if (!w)
        return -EINVAL;
    int rc = w->err ? w->err : w->count == 0 ? -ENODATA : 0;
    if (rc != 0)
        close(w->fd);
    else
        rc = finish_file(w);
    if (rc == 0 && rename(w->tmp, w->path) != 0)
        rc = -errno;
    if (rc != 0)
        unlink(w->tmp);
    writer_free(w);
    return rc;
}

void ds_writer_abort(ds_writer_t *w)
{
    if (!w)
        return;
    close(w->fd);
    unlink(w->tmp);
    writer_free(w);
}
