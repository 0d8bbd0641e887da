/* Lab 06 workloads (calls.toml): what only the student's process itself can do with its files:
 * open a descriptor for ds_validate, close it, and limit the size of the files it writes.
 * Public lab code: it runs in the student's process, next to the student's code. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "ds_serve.h"

/* Opens in->path read-only in this process. Returns the descriptor (also written to out, an
 * int32_t) or -errno; -EINVAL for a malformed request. */
int serve_fd_open(const void *in, size_t in_len, void *out, size_t out_len)
{
    ds_fd_open_in_t req;
    if (in_len != sizeof req || out_len != sizeof(int32_t))
        return -EINVAL;
    memcpy(&req, in, sizeof req);
    req.path[sizeof req.path - 1] = 0;
    int fd = open(req.path, O_RDONLY | O_CLOEXEC);
    int32_t v = fd < 0 ? -errno : fd;
    memcpy(out, &v, sizeof v);
    return v;
}

/* Closes the descriptor in (an int32_t). Returns 0 or -errno. */
int serve_fd_close(const void *in, size_t in_len, void *out, size_t out_len)
{
    int32_t fd;
    (void)out, (void)out_len;
    if (in_len != sizeof fd)
        return -EINVAL;
    memcpy(&fd, in, sizeof fd);
    return close(fd) == 0 ? 0 : -errno;
}

/* Sets this process's file-size limit (RLIMIT_FSIZE's soft limit) to in (a uint64_t) and
 * ignores SIGXFSZ, so that a write past it fails with EFBIG instead of ending the process.
 * Writes the limit it replaced to out (a uint64_t). Returns 0 or -errno. */
int serve_file_limit(const void *in, size_t in_len, void *out, size_t out_len)
{
    uint64_t want;
    struct rlimit lim;
    if (in_len != sizeof want || out_len != sizeof(uint64_t))
        return -EINVAL;
    memcpy(&want, in, sizeof want);
    if (getrlimit(RLIMIT_FSIZE, &lim) != 0)
        return -errno;
    uint64_t old = lim.rlim_cur;
    memcpy(out, &old, sizeof old);
    lim.rlim_cur = (rlim_t)want;
    if (signal(SIGXFSZ, SIG_IGN) == SIG_ERR || setrlimit(RLIMIT_FSIZE, &lim) != 0)
        return -errno;
    return 0;
}
