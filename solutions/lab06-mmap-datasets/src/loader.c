/* Lab 06, part E (reference): the pread loader, one system call and one copy per record (see
 * loader.h). */
#include "loader.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

struct ds_loader {
    int fd;
    ds_header_t h;
};

int ds_loader_open(ds_loader_t **out, const char *path)
{
    if (!out || !path)
        return -EINVAL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ds_loader_t *l = malloc(sizeof *l);
    int rc = l ? ds_validate(fd, &l->h) : -ENOMEM;
    if (rc != 0) {
        free(l);
        close(fd);
        return rc;
    }
    l->fd = fd;
    *out = l;
    return 0;
}

const ds_header_t *ds_loader_header(const ds_loader_t *l)
{
    return l ? &l->h : NULL;
}

/* Reads exactly len bytes at off: 0, -EIO if the file ends first, or -errno. */
static int pread_full(int fd, unsigned char *p, size_t len, off_t off)
{
    while (len > 0) {
        ssize_t got = pread(fd, p, len, off);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return got < 0 ? -errno : -EIO;
        p += got;
        len -= (size_t)got;
        off += got;
    }
    return 0;
}

int ds_loader_batch(ds_loader_t *l, const uint64_t *idx, size_t n, void *dst)
{
    if (!l || (n > 0 && (!idx || !dst)))
        return -EINVAL;
    for (size_t k = 0; k < n; k++)
        if (idx[k] >= l->h.count)
            return -ERANGE;
    size_t rs = (size_t)l->h.record_size;
    unsigned char *out = dst;
    for (size_t k = 0; k < n; k++) {
        off_t off = (off_t)(l->h.data_offset + idx[k] * l->h.record_size);
        int rc = pread_full(l->fd, out + k * rs, rs, off);
        if (rc != 0)
            return rc;
    }
    return 0;
}

void ds_loader_close(ds_loader_t *l)
{
    if (!l)
        return;
    close(l->fd);
    free(l);
}
