/* Tests of common/student/mm_student_confine.c: what the student's process can no longer do once
 * it has confined itself. The seccomp filter is an allowlist, so each refusal below holds
 * without the call being named anywhere. Each check runs in a child that confines itself and
 * reports its first broken expectation through a pipe (Check's own code, which runs after a
 * test, is not made for the student's filter). */
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "mm_check.h"
#include "mm_student_confine.h"

static char failure[256]; /* the child's first broken expectation */

#define EXPECT(cond, ...)                                                                \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            snprintf(failure, sizeof failure, __VA_ARGS__);                              \
            return;                                                                      \
        }                                                                                \
    } while (0)

#define REFUSED(call, what)                                                              \
    do {                                                                                 \
        errno = 0;                                                                       \
        long rc_ = (long)(call);                                                         \
        EXPECT(rc_ == -1 && (errno == EPERM || errno == ENOSYS),                         \
               "%s was allowed (returned %ld, errno %d)", what, rc_, errno);             \
    } while (0)

/* Runs body in a child confined with a fresh working folder; fails the test with what it
 * reports. A body may set `failure` to "SKIP: why" to skip the test. */
static void confined(void (*body)(void))
{
    char dir[64] = "/tmp/mm-student-XXXXXX";
    ck_assert(mkdtemp(dir) != NULL);
    int fds[2];
    ck_assert(pipe(fds) == 0);
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        char why[256] = "";
        if (chdir(dir) != 0 || mm_student_confine(why, sizeof why) < 0)
            snprintf(failure, sizeof failure, "mm_student_confine: %s", why);
        else
            body();
        ssize_t n = write(fds[1], failure, strlen(failure));
        _exit(n < 0);
    }
    close(fds[1]);
    char got[256] = "";
    ssize_t n = read(fds[0], got, sizeof got - 1);
    got[n > 0 ? n : 0] = 0;
    close(fds[0]);
    int status;
    ck_assert(waitpid(pid, &status, 0) == pid);
    if (strncmp(got, "SKIP: ", 6) == 0)
        MM_SKIP("%s", got + 6);
    ck_assert_msg(got[0] == 0, "%s", got);
    ck_assert_msg(WIFEXITED(status), "the confined child died of signal %d", WTERMSIG(status));
}

static void sysv(void)
{
    REFUSED(shmget(IPC_PRIVATE, 1 << 20, IPC_CREAT | 0600), "shmget");
    REFUSED(shmat(0, NULL, SHM_EXEC), "shmat(SHM_EXEC)");
}

MM_TEST(test_student_refuses_sysv_memory) { confined(sysv); }
MM_END_TEST

static void unneeded(void)
{
    struct io_uring_params p;
    memset(&p, 0, sizeof p);
    REFUSED(syscall(__NR_io_uring_setup, 4, &p), "io_uring_setup");
    REFUSED(unshare(CLONE_NEWUSER), "unshare(CLONE_NEWUSER)");
    REFUSED(syscall(__NR_userfaultfd, 0), "userfaultfd");
    REFUSED(syscall(__NR_perf_event_open, NULL, 0, -1, -1, 0), "perf_event_open");
    REFUSED(socket(AF_INET, SOCK_STREAM, 0), "socket(AF_INET)");
    REFUSED(syscall(__NR_ptrace, 0, 0, 0, 0), "ptrace");
}

MM_TEST(test_student_refuses_what_no_lab_needs) { confined(unneeded); }
MM_END_TEST

static void async_signals(void)
{
    int fd = open("/dev/null", O_RDONLY);
    EXPECT(fd >= 0, "/dev/null cannot be opened");
    REFUSED(fcntl(fd, F_SETOWN, getppid()), "fcntl(F_SETOWN)");
    REFUSED(fcntl(fd, F_SETSIG, SIGSTOP), "fcntl(F_SETSIG)");
    EXPECT(fcntl(fd, F_GETFL) >= 0, "plain fcntl commands must stay allowed");
    struct itimerval t = { { 0, 1000 }, { 0, 1000 } };
    REFUSED(setitimer(ITIMER_REAL, &t, NULL), "setitimer");
    timer_t id;
    REFUSED(timer_create(CLOCK_MONOTONIC, NULL, &id), "timer_create");
}

MM_TEST(test_student_refuses_async_signals) { confined(async_signals); }
MM_END_TEST

static void others(void)
{
    REFUSED(fork(), "fork");
    char *const argv[] = { "true", NULL };
    REFUSED(execv("/bin/true", argv), "execv");
    REFUSED(kill(getppid(), 0), "kill(parent)");
    REFUSED(kill(-1, 0), "kill(-1)");
    char buf[8] = "", copy[8];
    struct iovec local = { copy, sizeof copy }, remote = { buf, sizeof buf };
    REFUSED(process_vm_readv(getppid(), &local, 1, &remote, 1, 0), "process_vm_readv(parent)");
    EXPECT(process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == sizeof buf,
           "reading its own memory through the kernel must stay allowed");
    EXPECT(kill(getpid(), 0) == 0, "a process must still be able to signal itself");
}

MM_TEST(test_student_refuses_other_processes) { confined(others); }
MM_END_TEST

static void *nothing(void *arg) { return arg; }

static void threads_and_memory(void)
{
    pthread_t t;
    EXPECT(pthread_create(&t, NULL, nothing, NULL) == 0, "threads must stay allowed");
    EXPECT(pthread_join(t, NULL) == 0, "threads must be joinable");
    void *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT(p != MAP_FAILED, "plain memory must stay allowed");
    if (access("/dev/nvidiactl", F_OK) == 0) {
        snprintf(failure, sizeof failure, "SKIP: a GPU's driver is here: executable "
                                          "mappings stay allowed");
        return;
    }
    REFUSED(mprotect(p, 4096, PROT_READ | PROT_EXEC), "mprotect(PROT_EXEC)");
}

MM_TEST(test_student_keeps_threads_and_memory) { confined(threads_and_memory); }
MM_END_TEST

static void own_folder(void)
{
    int fd = open("mine.txt", O_CREAT | O_WRONLY, 0600);
    EXPECT(fd >= 0, "its own folder must stay writable");
    close(fd);
    errno = 0;
    int out = open("/tmp/mm-student-escape.txt", O_CREAT | O_WRONLY, 0600);
    if (out < 0 && errno == EPERM) {
        snprintf(failure, sizeof failure, "SKIP: this kernel has no Landlock");
        return;
    }
    EXPECT(out < 0 && errno == EACCES, "a file outside its folder could be written");
}

MM_TEST(test_student_writes_only_its_folder) { confined(own_folder); }
MM_END_TEST
