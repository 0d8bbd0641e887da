/* Hostile prologue: reach out of the student's process, at the harness or past the grade: a
 * child to signal the harness from, signals to every process, SIGIO armed at the parent,
 * an interval timer, SysV memory that could be mapped executable or outlive the run, io_uring,
 * a user namespace. Each attempt says what it got. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

static void hostile_try(const char *what, long rc)
{
    fprintf(stderr, "hostile: %s -> %ld (%s)\n", what, rc, rc < 0 ? strerror(errno) : "ok");
}

static void hostile(void)
{
    pid_t child = fork();
    if (child == 0) {
        kill(getppid(), SIGSTOP);
        _exit(0);
    }
    hostile_try("fork", child);
    hostile_try("kill(-1, SIGSTOP)", kill(-1, SIGSTOP));
    hostile_try("kill(1, SIGSTOP)", kill(1, SIGSTOP));
    hostile_try("F_SETOWN", fcntl(1, F_SETOWN, getppid()));
    struct itimerval t = { { 0, 1000 }, { 0, 1000 } };
    hostile_try("setitimer", setitimer(ITIMER_REAL, &t, NULL));
    int id = shmget(IPC_PRIVATE, 1 << 20, IPC_CREAT | 0600);
    hostile_try("shmget", id);
    hostile_try("shmat(SHM_EXEC)", id >= 0 ? (long)shmat(id, NULL, SHM_EXEC) : -1);
    hostile_try("io_uring_setup", syscall(__NR_io_uring_setup, 4, NULL));
    hostile_try("unshare(CLONE_NEWUSER)", unshare(CLONE_NEWUSER));
}
