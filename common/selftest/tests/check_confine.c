/* Tests of common/mm_confine.c: what code under test can no longer do once the harness has
 * confined its process (each test runs in a child of its own, so confining one changes no
 * other). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <unistd.h>
#include "mm_check.h"
#include "mm_confine.h"

/* Confines this test's process to a fresh folder, whose path goes to dir; returns what
 * mm_confine returned (1: no Landlock on this kernel). */
static int confined(char *dir, size_t cap)
{
    snprintf(dir, cap, "/tmp/mm-confine-XXXXXX");
    ck_assert(mkdtemp(dir) != NULL);
    char why[256] = "";
    int rc = mm_confine(dir, why, sizeof why);
    ck_assert_msg(rc >= 0, "mm_confine: %s", why);
    return rc;
}

MM_TEST(test_confine_refuses_executable_memory)
{
    char dir[64];
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert(p != MAP_FAILED);
    confined(dir, sizeof dir);
    if (access("/dev/nvidiactl", F_OK) == 0)
        MM_SKIP("a GPU's driver is present: executable mappings stay allowed");
    errno = 0;
    ck_assert_msg(mprotect(p, 4096, PROT_READ | PROT_EXEC) == -1 && errno == EPERM,
                  "mprotect(PROT_EXEC) was allowed: the harness's code could be patched");
    ck_assert(mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) ==
              MAP_FAILED);
}
MM_END_TEST

MM_TEST(test_confine_refuses_signals_to_others)
{
    char dir[64];
    confined(dir, sizeof dir);
    ck_assert_msg(kill(getppid(), 0) == -1 && errno == EPERM, "the parent could be signalled");
    ck_assert_msg(kill(0, 0) == -1, "the process group could be signalled");
    ck_assert_msg(kill(getpid(), 0) == 0, "a process may still signal itself");
}
MM_END_TEST

MM_TEST(test_confine_refuses_exec_and_ptrace)
{
    char dir[64];
    confined(dir, sizeof dir);
    char *const argv[] = { "true", NULL };
    ck_assert_msg(execv("/bin/true", argv) == -1 && errno == EPERM, "exec was allowed");
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    ck_assert_msg(ptrace(PTRACE_TRACEME, 0, NULL, NULL) == -1 && errno == EPERM,
                  "ptrace was allowed");
#endif
}
MM_END_TEST

MM_TEST(test_confine_writes_only_in_its_folder)
{
    char out[] = "/tmp/mm-confine-out-XXXXXX", dir[64], path[128];
    ck_assert(mkdtemp(out) != NULL);
    if (confined(dir, sizeof dir) == 1)
        MM_SKIP("this kernel has no Landlock: file writes are not confined");
    snprintf(path, sizeof path, "%s/ok", dir);
    int fd = open(path, O_WRONLY | O_CREAT, 0600);
    ck_assert_msg(fd >= 0, "cannot write in its own folder: %s", strerror(errno));
    close(fd);
    snprintf(path, sizeof path, "%s/forged", out);
    ck_assert_msg(open(path, O_WRONLY | O_CREAT, 0600) == -1, "wrote outside its folder");
    ck_assert_msg(open("/proc/self/mem", O_RDWR) == -1, "/proc/self/mem opened for writing");
    ck_assert_msg(rename(dir, path) == -1, "renamed its folder out");
    ck_assert(open("/dev/null", O_WRONLY) >= 0);
}
MM_END_TEST

/* A lab with CUDA code links the shim, whose mm_cuda_emulated() picks the device and starts a
 * real GPU's driver; that driver writes files outside the run's folder while it starts, so
 * mm_confine must call it first. Here a stand-in records whether seccomp was on at the call. */
static int hook_calls = 0, hook_seccomp = -1;

static int seccomp_mode(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    int mode = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "Seccomp: %d", &mode) == 1)
            break;
    if (f)
        fclose(f);
    return mode;
}

int mm_cuda_emulated(void)
{
    hook_calls++;
    hook_seccomp = seccomp_mode();
    return 1;
}

MM_TEST(test_confine_starts_cuda_first)
{
    char dir[64];
    confined(dir, sizeof dir);
    ck_assert_int_eq(hook_calls, 1);
    ck_assert_msg(hook_seccomp == 0, "the CUDA device was chosen after confinement (seccomp "
                  "mode %d at the call): a real GPU's driver cannot start there", hook_seccomp);
    ck_assert_int_eq(seccomp_mode(), 2);
}
MM_END_TEST

MM_TEST(test_confine_lets_the_gpu_open)
{
    char dir[64];
    if (access("/dev/nvidiactl", F_OK) != 0)
        MM_SKIP("no GPU driver here (/dev/nvidiactl)");
    if (confined(dir, sizeof dir) == 1)
        MM_SKIP("this kernel has no Landlock: file writes are not confined");
    int fd = open("/dev/nvidiactl", O_RDWR);
    ck_assert_msg(fd >= 0, "/dev/nvidiactl cannot be opened read-write: %s", strerror(errno));
    close(fd);
}
MM_END_TEST
