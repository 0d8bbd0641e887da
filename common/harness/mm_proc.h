/* The student process's /proc files, opened by the harness. The kernel lets a process read
 * another user's /proc/<pid>/{cwd,fd,maps,pagemap,smaps_rollup,...} only with CAP_SYS_PTRACE or
 * as that user; a grader running as root in a container (Docker's default capabilities, the
 * dev container, Gradescope) has neither for the sandbox uid its student processes run as. */
#ifndef MM_PROC_H
#define MM_PROC_H
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Opens /proc/<pid>/<what> with flags (O_CLOEXEC added). pid: the student's process, or one
 * it started. Refused (EACCES or EPERM) to a harness running as root, the open is made again
 * with the owner of /proc/<pid> as this thread's file-system user (setfsuid), then, refused
 * again (the process is in a user namespace that owner made, and root lacks CAP_SYS_PTRACE), as
 * this thread's effective user; each for that open alone. Returns a descriptor, or -errno. */
int mm_proc_open(pid_t pid, const char *what, int flags);

/* mm_proc_open(pid, what, O_RDONLY) as a stream, or NULL (errno set). */
FILE *mm_proc_fopen(pid_t pid, const char *what);

/* How many of the n virtual pages from page number `first` are present (bit 63 of their
 * entries), read from pagemap_fd, an open /proc/<pid>/pagemap. Returns the count, or -errno
 * (-EIO for a short read). */
long mm_proc_present(int pagemap_fd, uintptr_t first, size_t n);

/* Makes a folder <prefix>XXXXXX (mkdtemp) in process pid's working folder, which must belong to
 * that process's user where the harness runs as root (-EPERM: the process left its run folder).
 * Returns a descriptor of the working folder, with the new folder's name in name[0..len) and
 * /proc/<pid>'s owner in *owner; or -errno. */
int mm_proc_mkdtemp(pid_t pid, const char *prefix, char *name, size_t len, struct stat *owner);

#endif
