/* Confinement of code under test with Landlock and seccomp (see mm_confine.h). */
#include "mm_confine.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int mm_confine_wanted(void)
{
    const char *v = getenv("MLMEM_CONFINE");
    int want = v && strcmp(v, "1") == 0;
    unsetenv("MLMEM_CONFINE");
    return want;
}

/* The write-side rights Landlock knows at ABI `abi` (1: 5.13, 2: REFER, 3: TRUNCATE). */
static uint64_t write_rights(int abi)
{
    uint64_t r = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                 LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
                 LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                 LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
                 LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
#ifdef LANDLOCK_ACCESS_FS_REFER
    if (abi >= 2)
        r |= LANDLOCK_ACCESS_FS_REFER;
#endif
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
    if (abi >= 3)
        r |= LANDLOCK_ACCESS_FS_TRUNCATE;
#endif
    return r;
}

/* Allows `rights` (of those handled) beneath `path`; a path that is missing is skipped. */
static int allow(int ruleset, const char *path, uint64_t rights)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct landlock_path_beneath_attr pb = { .allowed_access = rights, .parent_fd = fd };
    long rc = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
    close(fd);
    return rc ? -errno : 0;
}

/* The GPU's device files: a CUDA program opens /dev/nvidiactl, /dev/nvidia0, /dev/nvidia-uvm
 * (and /dev/nvidia-caps/, /dev/dri/ for some drivers) read-write; without these rules the runtime
 * fails to start (cudaErrorOperatingSystem) and the program would run on the emulated device. */
static int allow_gpu(int ruleset)
{
    DIR *dev = opendir("/dev");
    int rc = 0;
    for (struct dirent *e; dev && !rc && (e = readdir(dev));) {
        char path[300];
        if (strncmp(e->d_name, "nvidia", 6) || e->d_type == DT_DIR)
            continue;
        snprintf(path, sizeof path, "/dev/%s", e->d_name);
        rc = allow(ruleset, path, LANDLOCK_ACCESS_FS_WRITE_FILE);
    }
    if (dev)
        closedir(dev);
    return rc ?: allow(ruleset, "/dev/nvidia-caps", LANDLOCK_ACCESS_FS_WRITE_FILE) ?:
           allow(ruleset, "/dev/dri", LANDLOCK_ACCESS_FS_WRITE_FILE);
}

int mm_landlock(const char *writable)
{
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1)
        return 1;
    uint64_t rights = write_rights((int)abi);
    struct landlock_ruleset_attr attr = { .handled_access_fs = rights };
    int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
    if (rs < 0)
        return -errno;
    int rc = allow(rs, writable, rights);
    if (!rc)
        rc = allow(rs, "/dev/null", LANDLOCK_ACCESS_FS_WRITE_FILE) ?: allow_gpu(rs);
    if (!rc && (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
                syscall(SYS_landlock_restrict_self, rs, 0)))
        rc = -errno;
    close(rs);
    return rc;
}

/* Denies syscall `nr` (EPERM) when `n` argument comparisons hold (none: always). */
static int deny(scmp_filter_ctx f, int nr, unsigned n, const struct scmp_arg_cmp *cmp)
{
    return seccomp_rule_add_array(f, SCMP_ACT_ERRNO(EPERM), nr, n, cmp);
}

static int deny_always(scmp_filter_ctx f, const int *nrs, size_t n)
{
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++)
        rc = deny(f, nrs[i], 0, NULL);
    return rc;
}

/* Signals only to this process (pid), executable memory never (unless exec_ok). */
static int deny_reach(scmp_filter_ctx f, pid_t pid, int exec_ok)
{
    struct scmp_arg_cmp other = { .arg = 0, .op = SCMP_CMP_NE, .datum_a = (scmp_datum_t)pid };
    int rc = deny(f, SCMP_SYS(kill), 1, &other) ?: deny(f, SCMP_SYS(tgkill), 1, &other) ?:
             deny(f, SCMP_SYS(rt_sigqueueinfo), 1, &other) ?:
             deny(f, SCMP_SYS(rt_tgsigqueueinfo), 1, &other);
    if (rc || exec_ok)
        return rc;
    struct scmp_arg_cmp exec = { .arg = 2, .op = SCMP_CMP_MASKED_EQ, .datum_a = PROT_EXEC,
                                 .datum_b = PROT_EXEC };
    return deny(f, SCMP_SYS(mmap), 1, &exec) ?: deny(f, SCMP_SYS(mprotect), 1, &exec) ?:
           deny(f, SCMP_SYS(pkey_mprotect), 1, &exec);
}

/* The sanitizers' leak checker stops the world with ptrace: their builds keep it. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MM_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define MM_SANITIZED 1
#endif
#endif

static int seccomp_install(void)
{
    scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
    if (!f)
        return -ENOMEM;
    static const int never[] = {
#ifndef MM_SANITIZED
        SCMP_SYS(ptrace),
#endif
        SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev), SCMP_SYS(pidfd_open),
        SCMP_SYS(pidfd_getfd), SCMP_SYS(pidfd_send_signal), SCMP_SYS(tkill), SCMP_SYS(execve),
        SCMP_SYS(execveat), SCMP_SYS(personality), SCMP_SYS(process_madvise),
        SCMP_SYS(userfaultfd), SCMP_SYS(kcmp),
    };
    /* A real GPU's driver maps code: on a machine with one, executable mappings stay allowed. */
    int exec_ok = access("/dev/nvidiactl", F_OK) == 0;
    int rc = deny_always(f, never, sizeof never / sizeof never[0]) ?:
             deny_reach(f, getpid(), exec_ok) ?: seccomp_load(f);
    seccomp_release(f);
    return rc;
}

/* Labs with CUDA code link the shim (common/cudaemu/mm_cuda_shim.c), which picks the real GPU or
 * the emulated device on its first call. The CUDA driver writes files outside the run's folder
 * while it starts (cuInit fails with CUDA_ERROR_OPERATING_SYSTEM under these Landlock rules), so
 * the choice is made, and a real GPU started, before confinement: harness code, not code under
 * test. Elsewhere the symbol is absent and nothing happens. */
extern int mm_cuda_emulated(void) __attribute__((weak));

int mm_confine_with(const char *writable, int (*seccomp)(void), char *why, size_t cap)
{
    if (!writable || !seccomp)
        return -EINVAL;
    if (mm_cuda_emulated)
        (void)mm_cuda_emulated();
    int ll = mm_landlock(writable);
    if (ll < 0) {
        snprintf(why, cap, "Landlock failed: %s", strerror(-ll));
        return ll;
    }
    int rc = seccomp();
    if (rc) {
        snprintf(why, cap, "seccomp failed: %s", strerror(-rc));
        return rc;
    }
    if (ll == 1)
        snprintf(why, cap, "this kernel has no Landlock: file writes are not confined");
    return ll;
}

int mm_confine(const char *writable, char *why, size_t cap)
{
    return mm_confine_with(writable, seccomp_install, why, cap);
}
