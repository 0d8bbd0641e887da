/* The student process's /proc files, opened as their owner where root alone may not (see
 * mm_proc.h). */
#include "mm_proc.h"
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* open(path, flags) with uid and gid as this thread's file-system user. */
static int open_as(const char *path, int flags, uid_t uid, gid_t gid)
{
    gid_t old_gid = (gid_t)setfsgid(gid);
    uid_t old_uid = (uid_t)setfsuid(uid);
    int fd = open(path, flags);
    int err = errno;
    setfsuid(old_uid);
    setfsgid(old_gid);
    errno = err;
    return fd;
}

/* open(path, flags) with this thread's effective uid and gid set to uid and gid for the call:
 * what the kernel asks of root without CAP_SYS_PTRACE when the process lives in a user namespace
 * that uid made (bubblewrap's, as root in a container that drops the capability). The raw
 * system calls change this thread alone (glibc's wrappers change every thread); root's real and
 * saved uid take it back, and with it the capabilities. */
static int open_as_owner(const char *path, int flags, uid_t uid, gid_t gid)
{
    gid_t old_gid = getegid();
    if (syscall(SYS_setresgid, (gid_t)-1, gid, (gid_t)-1) != 0)
        return -1;
    if (syscall(SYS_setresuid, (uid_t)-1, uid, (uid_t)-1) != 0) {
        int err = errno;
        syscall(SYS_setresgid, (gid_t)-1, old_gid, (gid_t)-1);
        errno = err;
        return -1;
    }
    int fd = open(path, flags);
    int err = errno;
    if (syscall(SYS_setresuid, (uid_t)-1, (uid_t)0, (uid_t)-1) != 0 ||
        syscall(SYS_setresgid, (gid_t)-1, old_gid, (gid_t)-1) != 0)
        abort(); /* a harness that cannot become root again must not go on */
    errno = err;
    return fd;
}

int mm_proc_open(pid_t pid, const char *what, int flags)
{
    char dir[32], path[96];
    snprintf(dir, sizeof dir, "/proc/%d", (int)pid);
    snprintf(path, sizeof path, "%s/%s", dir, what);
    int fd = open(path, flags | O_CLOEXEC);
    struct stat st;
    int refused = fd < 0 && (errno == EACCES || errno == EPERM) && geteuid() == 0 &&
                  stat(dir, &st) == 0 && st.st_uid != 0;
    if (refused)
        fd = open_as(path, flags | O_CLOEXEC, st.st_uid, st.st_gid);
    if (refused && fd < 0 && (errno == EACCES || errno == EPERM))
        fd = open_as_owner(path, flags | O_CLOEXEC, st.st_uid, st.st_gid);
    return fd >= 0 ? fd : -errno;
}

FILE *mm_proc_fopen(pid_t pid, const char *what)
{
    int fd = mm_proc_open(pid, what, O_RDONLY);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (fd < 0)
        errno = -fd;
    else if (!f)
        close(fd);
    return f;
}

long mm_proc_present(int pagemap_fd, uintptr_t first, size_t n)
{
    enum { CHUNK = 512 };
    uint64_t e[CHUNK];
    long count = 0;
    for (size_t m; n > 0; first += m, n -= m) {
        m = n < CHUNK ? n : CHUNK;
        ssize_t got = pread(pagemap_fd, e, m * sizeof *e, (off_t)(first * sizeof *e));
        if (got != (ssize_t)(m * sizeof *e))
            return got < 0 ? -errno : -EIO;
        for (size_t k = 0; k < m; k++)
            count += (long)(e[k] >> 63);
    }
    return count;
}

int mm_proc_mkdtemp(pid_t pid, const char *prefix, char *name, size_t len, struct stat *owner)
{
    char dir[32], home[32], tmpl[128];
    struct stat cwd;
    int fd = mm_proc_open(pid, "cwd", O_RDONLY | O_DIRECTORY);
    snprintf(dir, sizeof dir, "/proc/%d", (int)pid);
    snprintf(home, sizeof home, "/proc/self/fd/%d", fd); /* our own: no access check */
    int rc = fd < 0 ? fd : fstat(fd, &cwd) != 0 || stat(dir, owner) != 0 ? -errno
           : geteuid() == 0 && cwd.st_uid != owner->st_uid ? -EPERM : 0;
    if (rc == 0 && snprintf(tmpl, sizeof tmpl, "%s/%sXXXXXX", home, prefix) >= (int)sizeof tmpl)
        rc = -ENAMETOOLONG;
    if (rc == 0 && !mkdtemp(tmpl))
        rc = -errno;
    if (rc == 0)
        snprintf(name, len, "%s", tmpl + strlen(home) + 1);
    if (rc != 0 && fd >= 0)
        close(fd);
    return rc == 0 ? fd : rc;
}
