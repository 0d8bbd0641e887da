/* The student process's seccomp allowlist and Landlock rules (see mm_student_confine.h). */
#include "mm_student_confine.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "mm_confine.h"

/* Allowed whatever their arguments. Names this architecture lacks are skipped. Files are
 * confined by Landlock, memory by the process's limits. */
static const char *const always[] = {
    "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev", "close",
    "lseek", "fstat", "newfstatat", "statx", "stat", "lstat", "fstatfs", "statfs", "access",
    "faccessat", "faccessat2", "open", "openat", "getdents64", "readlink", "readlinkat",
    "getcwd", "mkdir", "mkdirat", "unlink", "unlinkat", "rename", "renameat", "renameat2",
    "ftruncate", "truncate", "fallocate", "fsync", "fdatasync", "msync", "fadvise64", "dup",
    "dup2", "dup3", "pipe2", "poll", "ppoll", "select", "pselect6", "munmap", "mremap",
    "madvise", "mincore", "mlock", "mlock2", "munlock", "brk", "futex", "set_robust_list",
    "get_robust_list", "rseq", "exit", "exit_group", "rt_sigaction", "rt_sigprocmask",
    "rt_sigreturn", "sigaltstack", "rt_sigtimedwait", "rt_sigsuspend", "getpid", "gettid",
    "getppid", "getuid", "geteuid", "getgid", "getegid", "getresuid", "getresgid", "getrandom",
    "uname", "sysinfo", "getrusage", "times", "clock_gettime", "clock_getres",
    "clock_nanosleep", "nanosleep", "gettimeofday", "sched_yield", "sched_getaffinity",
    "sched_setaffinity", "sched_getparam", "sched_getscheduler", "getcpu", "prlimit64",
    "getrlimit", "get_mempolicy", "set_mempolicy", "mbind", "move_pages", "membarrier",
    "restart_syscall", "eventfd2", "memfd_create", "sendmsg", "recvmsg", "sendto", "recvfrom",
    "shutdown", "getsockopt",
    /* A file's mode: mkstemp makes 0600 files that a dataset writer opens up (lab 06). */
    "fchmod", "fchmodat", "chmod", "flock", "readahead", "rmdir", "link", "linkat",
};

/* An argument comparison (libseccomp's SCMP_A0.. leave datum_b out, which clang's
 * -Wmissing-field-initializers refuses under -Werror). */
static struct scmp_arg_cmp arg(unsigned i, enum scmp_compare op, scmp_datum_t a, scmp_datum_t b)
{
    return (struct scmp_arg_cmp){ .arg = i, .op = op, .datum_a = a, .datum_b = b };
}

static int allow(scmp_filter_ctx f, const char *name, unsigned n, const struct scmp_arg_cmp *c)
{
    int nr = seccomp_syscall_resolve_name(name);
    return nr == __NR_SCMP_ERROR ? 0 : seccomp_rule_add_array(f, SCMP_ACT_ALLOW, nr, n, c);
}

/* Threads (clone with CLONE_THREAD) but no processes; clone3 answers ENOSYS, so that the C
 * library falls back to clone, whose flags a filter can see. */
static int allow_threads(scmp_filter_ctx f)
{
    struct scmp_arg_cmp thread = arg(0, SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD);
    int nr = seccomp_syscall_resolve_name("clone3");
    return allow(f, "clone", 1, &thread) ?:
           (nr == __NR_SCMP_ERROR ? 0 : seccomp_rule_add(f, SCMP_ACT_ERRNO(ENOSYS), nr, 0));
}

/* Signals and process_vm_* to this process only; mmap/mprotect without PROT_EXEC unless a GPU
 * driver is here (it maps code); fcntl's plain commands; prctl's thread name. */
static int allow_narrow(scmp_filter_ctx f, int exec_ok)
{
    pid_t me = getpid();
    struct scmp_arg_cmp self = arg(0, SCMP_CMP_EQ, (scmp_datum_t)me, 0);
    int rc = allow(f, "kill", 1, &self) ?: allow(f, "tgkill", 1, &self) ?:
             allow(f, "process_vm_readv", 1, &self) ?: allow(f, "process_vm_writev", 1, &self);
    struct scmp_arg_cmp noexec = arg(2, SCMP_CMP_MASKED_EQ, PROT_EXEC, 0);
    rc = rc ?: allow(f, "mmap", exec_ok ? 0 : 1, &noexec) ?:
         allow(f, "mprotect", exec_ok ? 0 : 1, &noexec);
    static const int cmds[] = { F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_DUPFD, F_DUPFD_CLOEXEC,
                                F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK,
                                F_OFD_SETLKW, F_ADD_SEALS, F_GET_SEALS };
    for (size_t i = 0; !rc && i < sizeof cmds / sizeof cmds[0]; i++) {
        struct scmp_arg_cmp cmd = arg(1, SCMP_CMP_EQ, (scmp_datum_t)cmds[i], 0);
        rc = allow(f, "fcntl", 1, &cmd);
    }
    struct scmp_arg_cmp name = arg(0, SCMP_CMP_EQ, PR_SET_NAME, 0);
    struct scmp_arg_cmp getname = arg(0, SCMP_CMP_EQ, PR_GET_NAME, 0);
    rc = rc ?: allow(f, "prctl", 1, &name) ?: allow(f, "prctl", 1, &getname);
    /* A GPU's driver talks to its device files through ioctl. */
    return rc ?: exec_ok ? allow(f, "ioctl", 0, NULL) : 0;
}

static int install(void)
{
    scmp_filter_ctx f = seccomp_init(SCMP_ACT_ERRNO(EPERM));
    if (!f)
        return -ENOMEM;
    int exec_ok = access("/dev/nvidiactl", F_OK) == 0;
    int rc = 0;
    for (size_t i = 0; !rc && i < sizeof always / sizeof always[0]; i++)
        rc = allow(f, always[i], 0, NULL);
    rc = rc ?: allow_threads(f) ?: allow_narrow(f, exec_ok) ?: seccomp_load(f);
    seccomp_release(f);
    return rc;
}

int mm_student_confine(char *why, size_t cap)
{
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd)) {
        snprintf(why, cap, "no working folder: %s", strerror(errno));
        return -errno;
    }
    int ll = mm_landlock(cwd);
    if (ll < 0) {
        snprintf(why, cap, "Landlock failed: %s", strerror(-ll));
        return ll;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
        return -errno;
    int rc = install();
    if (rc) {
        snprintf(why, cap, "seccomp failed: %s", strerror(-rc));
        return rc;
    }
    if (ll == 1)
        snprintf(why, cap, "this kernel has no Landlock: file writes are not confined");
    return ll;
}
