/* main() of the student's process (see mm_serve.h): a zygote that forks one server per request
 * of the harness, and the server's loop, which runs the calls the harness sends. */
#include "mm_serve.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "mm_call_abi.h"
#include "mm_copy.h"
#include "mm_student_confine.h"

/* The lab's workloads are in mm_serve_table too (gen-calls.py); these two are every lab's. */
static mm_call_box_t *box;
static int channel = -1;

/* "mm.peek" (addr, len, dst) and "mm.poke" (addr, src, len): the harness reads or writes the
 * student's memory at the student's own addresses. Returns 0 or -EFAULT. */
static void serve_peek(const unsigned char *args, unsigned char *ret)
{
    uint64_t a[3];
    memcpy(a, args, sizeof a);
    int rc = mm_copy_checked((void *)(uintptr_t)a[2], (const void *)(uintptr_t)a[0], a[1]);
    memcpy(ret, &rc, sizeof rc);
}

static void serve_poke(const unsigned char *args, unsigned char *ret)
{
    uint64_t a[3];
    memcpy(a, args, sizeof a);
    int rc = mm_copy_checked((void *)(uintptr_t)a[0], (const void *)(uintptr_t)a[1], a[2]);
    memcpy(ret, &rc, sizeof rc);
}

static const mm_serve_entry_t builtin[] = { { "mm.peek", serve_peek }, { "mm.poke", serve_poke } };

static void dispatch(void)
{
    box->name[MM_CALL_NAME_MAX - 1] = 0;
    box->status = MM_CALL_UNKNOWN;
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
        if (strcmp(builtin[i].name, box->name) == 0) {
            box->status = MM_CALL_OK;
            builtin[i].fn(box->args, box->ret);
            return;
        }
    for (size_t i = 0; i < mm_serve_table_len; i++)
        if (strcmp(mm_serve_table[i].name, box->name) == 0) {
            box->status = MM_CALL_OK;
            mm_serve_table[i].fn(box->args, box->ret);
            return;
        }
}

static int send_byte(int fd, char m) { return write(fd, &m, 1) == 1 ? 0 : -EPIPE; }

static pthread_mutex_t cb_lock = PTHREAD_MUTEX_INITIALIZER;

int mm_serve_callback(const char *name, const void *args, size_t len, void *ret, size_t ret_len)
{
    if (!name || strlen(name) >= MM_CALL_NAME_MAX || len > MM_CALL_ARGS_MAX ||
        ret_len > MM_CALL_RET_MAX)
        return -EINVAL;
    pthread_mutex_lock(&cb_lock);
    strcpy(box->cb_name, name);
    memcpy(box->cb_args, args, len);
    box->cb_args_len = (uint32_t)len;
    char m = 0;
    int rc = send_byte(channel, MM_MSG_CALLBACK);
    if (!rc && (read(channel, &m, 1) != 1 || m != MM_MSG_CALLBACK_DONE))
        rc = -EPIPE;
    if (!rc && ret_len)
        memcpy(ret, box->cb_ret, ret_len);
    pthread_mutex_unlock(&cb_lock);
    return rc;
}

static int confine_strict; /* MLMEM_CONFINE=1: the grader demands confinement */

/* Confines this server before its first student call: a failure stops it where the grader
 * demands confinement, and is a warning elsewhere (`make labNN` under a CPU emulator, whose
 * seccomp is missing). MLMEM_CONFINE=0 (the grader, where it cannot be done) skips it. */
static void confine(void)
{
    const char *want = getenv("MLMEM_CONFINE");
    if (want && strcmp(want, "0") == 0)
        return;
    char why[256] = "";
    int rc = mm_student_confine(why, sizeof why);
    if (rc < 0 && confine_strict) {
        fprintf(stderr, "mlmem: the student process cannot confine itself: %s\n", why);
        _exit(3);
    }
    if (rc != 0)
        fprintf(stderr, "mlmem: %s\n", why);
}

/* Closes every descriptor from `first` up. */
static void close_others(int first)
{
    if (syscall(SYS_close_range, (unsigned)first, ~0u, 0) == 0)
        return;
    for (long fd = first, max = sysconf(_SC_OPEN_MAX); fd < max; fd++)
        close((int)fd);
}

/* The server: maps the arena, confines itself, says hello and serves until the harness hangs up. */
static _Noreturn void serve(int arena_fd, int call_fd)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    void *a = mmap((void *)MM_ARENA_BASE, MM_ARENA_SIZE, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_FIXED_NOREPLACE, arena_fd, 0);
    if (a != (void *)MM_ARENA_BASE) {
        fprintf(stderr, "mlmem: the student process cannot map the shared memory: %s\n",
                strerror(errno));
        _exit(3);
    }
    close(arena_fd);
    if (call_fd != 3 && (dup2(call_fd, 3) != 3 || close(call_fd)))
        _exit(3);
    close_others(4); /* the zygote's socket above all: it carries the next test's descriptors */
    box = a;
    channel = 3;
    if (mm_copy_prepare() != 0) { /* before confinement, which may refuse a pipe */
        fprintf(stderr, "mlmem: the student process has no way to copy for mm_peek\n");
        _exit(3);
    }
    confine();
    if (send_byte(channel, MM_MSG_HELLO))
        _exit(0);
    for (char m; read(channel, &m, 1) == 1;) {
        if (m != MM_MSG_CALL)
            continue;
        dispatch();
        if (send_byte(channel, MM_MSG_RETURN))
            break;
    }
    _exit(0);
}

/* Receives one zygote request and, for MM_ZY_START, its two descriptors. 0, or -1 at the end. */
static int receive(int zfd, mm_zy_msg_t *msg, int fds[2])
{
    char ctl[CMSG_SPACE(2 * sizeof(int))];
    struct iovec iov = { msg, sizeof *msg };
    struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
                         .msg_controllen = sizeof ctl };
    fds[0] = fds[1] = -1;
    if (recvmsg(zfd, &mh, MSG_CMSG_CLOEXEC) != (ssize_t)sizeof *msg)
        return -1;
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
        c->cmsg_len == CMSG_LEN(2 * sizeof(int)))
        memcpy(fds, CMSG_DATA(c), 2 * sizeof(int));
    return 0;
}

static pid_t child = -1; /* the one server this zygote has started and not yet reaped */

/* Stops the server if it still runs; returns its wait status. */
static int end_child(void)
{
    int status = 0;
    if (child <= 0)
        return -1;
    if (waitpid(child, &status, WNOHANG) == 0) {
        kill(child, SIGKILL);
        waitpid(child, &status, 0);
    }
    child = -1;
    return status;
}

static mm_zy_reply_t start_child(const int fds[2])
{
    end_child();
    if (fds[0] < 0 || fds[1] < 0)
        return (mm_zy_reply_t){ -EINVAL, 0, 0 };
    pid_t pid = fork();
    if (pid == 0)
        serve(fds[0], fds[1]);
    close(fds[0]);
    close(fds[1]);
    if (pid < 0)
        return (mm_zy_reply_t){ -errno, 0, 0 };
    child = pid;
    return (mm_zy_reply_t){ 0, pid, 0 };
}

static int zygote(int zfd)
{
    mm_zy_msg_t msg;
    int fds[2];
    while (receive(zfd, &msg, fds) == 0) {
        mm_zy_reply_t r = { -EINVAL, 0, 0 };
        if (msg.op == MM_ZY_START)
            r = start_child(fds);
        else if (msg.op == MM_ZY_END && msg.pid == child)
            r = (mm_zy_reply_t){ 0, end_child(), 0 };
        else
            for (int i = 0; i < 2; i++)
                if (fds[i] >= 0)
                    close(fds[i]);
        r.seq = msg.seq;
        if (write(zfd, &r, sizeof r) != (ssize_t)sizeof r)
            break;
    }
    end_child();
    return 0;
}

/* student_lab --zygote FD: serve the harness on FD (a SOCK_SEQPACKET socket). */
int main(int argc, char **argv)
{
    if (argc != 3 || strcmp(argv[1], "--zygote") != 0) {
        fprintf(stderr, "usage: %s --zygote FD (started by the harness or the grader: run "
                        "the lab's check_lab or bench instead)\n", argv[0]);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    const char *want = getenv("MLMEM_CONFINE");
    confine_strict = want && strcmp(want, "1") == 0;
    return zygote(atoi(argv[2]));
}
