/* The harness's end of the call boundary (see mm_call.h). */
#include "mm_call.h"
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "mm_call_abi.h"

static int zygote_fd = -1;      /* requests to the student program's zygote */
static int call_fd = -1;        /* this test's student process; -1: none yet */
static pid_t zy_pid, host_pid;  /* its pid in the zygote's namespace, and in ours */
static uint32_t seq;
static mm_call_box_t *box;      /* the arena's call box, when a student process runs */
static int arena_fd = -1;
static size_t arena_len;        /* the memfd's size so far */
static uintptr_t shared_next = MM_ARENA_BASE + MM_BOX_SIZE;
static pthread_mutex_t call_lock = PTHREAD_MUTEX_INITIALIZER; /* one call at a time */
static uint64_t last_ns;
static int in_call;

static void default_fail(const char *msg)
{
    fprintf(stderr, "mlmem: %s\n", msg);
    exit(3);
}
static void (*fail_hook)(const char *) = default_fail;
static __thread int holding; /* this thread holds call_lock */

void mm_call_on_fail(void (*fail)(const char *msg)) { fail_hook = fail ? fail : default_fail; }

static _Noreturn __attribute__((format(printf, 1, 2))) void fail(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (holding) {
        holding = 0;
        pthread_mutex_unlock(&call_lock);
    }
    fail_hook(msg);
    exit(3);
}

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The student program: MLMEM_STUDENT_PROGRAM, else student_lab beside this program. */
static void student_program(char *out, size_t cap)
{
    const char *env = getenv("MLMEM_STUDENT_PROGRAM");
    if (env && *env) {
        snprintf(out, cap, "%s", env);
        return;
    }
    char self[PATH_MAX - 16];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = 0;
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = 0;
    snprintf(out, cap, "%s/student_lab", slash ? self : ".");
}

/* Starts the zygote ourselves (`make labNN`: no grader around). */
static int spawn_zygote(void)
{
    char prog[PATH_MAX];
    student_program(prog, sizeof prog);
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
        return -errno;
    pid_t pid = fork();
    if (pid == 0) {
        if (dup2(sv[1], 3) != 3)
            _exit(127);
        for (int fd = 4; fd < 1024; fd++)
            close(fd);
        execl(prog, prog, "--zygote", "3", (char *)NULL);
        fprintf(stderr, "mlmem: cannot run the student program %s: %s\n", prog, strerror(errno));
        _exit(127);
    }
    close(sv[1]);
    if (pid < 0) {
        close(sv[0]);
        return -errno;
    }
    zygote_fd = sv[0];
    return 0;
}

int mm_call_setup(void)
{
    signal(SIGPIPE, SIG_IGN);
    const char *env = getenv("MLMEM_ZYGOTE_FD");
    if (env && *env) {
        zygote_fd = atoi(env);
        unsetenv("MLMEM_ZYGOTE_FD");
        return 0;
    }
    return spawn_zygote();
}

/* One request to the zygote and its reply (replies to abandoned requests skipped). */
static mm_zy_reply_t zygote_ask(int op, int pid, const int *fds)
{
    mm_zy_msg_t msg = { op, pid, ++seq };
    char ctl[CMSG_SPACE(2 * sizeof(int))];
    struct iovec iov = { &msg, sizeof msg };
    struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
    if (fds) {
        memset(ctl, 0, sizeof ctl);
        mh.msg_control = ctl;
        mh.msg_controllen = sizeof ctl;
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(2 * sizeof(int));
        memcpy(CMSG_DATA(c), fds, 2 * sizeof(int));
    }
    mm_zy_reply_t r = { -EPIPE, 0, 0 };
    if (sendmsg(zygote_fd, &mh, MSG_NOSIGNAL) != (ssize_t)sizeof msg)
        return r;
    while (read(zygote_fd, &r, sizeof r) == (ssize_t)sizeof r)
        if (r.seq == msg.seq)
            return r;
    return (mm_zy_reply_t){ -EPIPE, 0, 0 };
}

/* The student's hello, with the kernel's word for its pid. */
static pid_t hello(int fd)
{
    char m = 0, ctl[CMSG_SPACE(sizeof(struct ucred))];
    struct iovec iov = { &m, 1 };
    struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
                         .msg_controllen = sizeof ctl };
    if (recvmsg(fd, &mh, 0) != 1 || m != MM_MSG_HELLO)
        return -1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
            struct ucred cred;
            memcpy(&cred, CMSG_DATA(c), sizeof cred);
            return cred.pid;
        }
    return -1;
}

static const char *ended_how(int status, char *buf, size_t cap)
{
    if (WIFSIGNALED(status))
        snprintf(buf, cap, "was killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else if (WIFEXITED(status))
        snprintf(buf, cap, "ended: your code called exit() or _exit() (status %d), which ends "
                 "the process your code runs in", WEXITSTATUS(status));
    else
        snprintf(buf, cap, "ended");
    return buf;
}

/* Makes the memfd cover the arena up to `end` (it grows in 64 MiB steps). */
static void cover(uintptr_t end, const char *what)
{
    size_t need = end - MM_ARENA_BASE, step = (size_t)64 << 20;
    if (need <= arena_len)
        return;
    size_t len = (need + step - 1) / step * step;
    if (len > MM_ARENA_SIZE || ftruncate(arena_fd, (off_t)len))
        fail("%s: the memory shared with the student process cannot grow to %zu MiB: %s", what,
             len >> 20, len > MM_ARENA_SIZE ? "past its end" : strerror(errno));
    arena_len = len;
}

static void drop_arena(void);

/* A start that failed after the arena was mapped: unmapped, so that the next start can map it. */
static _Noreturn __attribute__((format(printf, 1, 2))) void start_failed(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    drop_arena();
    fail("%s", msg);
}

static void start_student(void)
{
    if (zygote_fd < 0)
        fail("no student program to call (the harness was not set up: mm_call_setup)");
    int mfd = memfd_create("mlmem-arena", MFD_CLOEXEC), sv[2];
    if (mfd < 0)
        fail("no shared memory for the student process: %s", strerror(errno));
    arena_fd = mfd;
    arena_len = 0;
    cover(MM_ARENA_BASE + MM_BOX_SIZE, "start");
    void *a = mmap((void *)MM_ARENA_BASE, MM_ARENA_SIZE, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_FIXED_NOREPLACE, mfd, 0);
    if (a != (void *)MM_ARENA_BASE) {
        int err = errno;
        if (a != MAP_FAILED) /* a kernel without MAP_FIXED_NOREPLACE mapped it elsewhere */
            munmap(a, MM_ARENA_SIZE);
        close(mfd);
        arena_fd = -1;
        fail("cannot map the shared memory at its address: %s", strerror(err));
    }
    int one = 1;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) ||
        setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof one))
        start_failed("no socket for the student process: %s", strerror(errno));
    mm_zy_reply_t r = zygote_ask(MM_ZY_START, 0, (int[]){ mfd, sv[1] });
    close(sv[1]);
    if (r.rc < 0) {
        close(sv[0]);
        start_failed("the student program could not start a process: %s", strerror(-r.rc));
    }
    box = a;
    call_fd = sv[0];
    zy_pid = r.value;
    shared_next = MM_ARENA_BASE + MM_BOX_SIZE;
    host_pid = hello(call_fd);
    if (host_pid <= 0) {
        char how[128];
        int status = zygote_ask(MM_ZY_END, zy_pid, NULL).value;
        close(call_fd);
        call_fd = -1;
        start_failed("the student process did not start: %s (its messages are in the output)",
                     ended_how(status, how, sizeof how));
    }
}

static void drop_arena(void)
{
    munmap((void *)MM_ARENA_BASE, MM_ARENA_SIZE);
    if (arena_fd >= 0)
        close(arena_fd);
    arena_fd = -1;
    box = NULL;
}

void mm_student_stop(void)
{
    if (call_fd < 0)
        return;
    close(call_fd);
    call_fd = -1;
    zygote_ask(MM_ZY_END, zy_pid, NULL);
    drop_arena();
}

static void ensure(void)
{
    if (call_fd < 0)
        start_student();
}

pid_t mm_student_pid(void)
{
    ensure();
    return host_pid;
}

uint64_t mm_student_cpu_ns(void)
{
    ensure();
    /* The kernel's CPU clock of the whole process: the threads that have ended count too. */
    clockid_t clock;
    struct timespec t;
    if (clock_getcpuclockid(host_pid, &clock) != 0 || clock_gettime(clock, &t) != 0)
        fail("cannot read the student process's CPU time: %s", strerror(errno));
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int mm_shared_has(const void *p, size_t n)
{
    uintptr_t a = (uintptr_t)p;
    return a >= MM_ARENA_BASE + MM_BOX_SIZE && a <= shared_next && n <= shared_next - a;
}

void *mm_shared_alloc(size_t n)
{
    ensure();
    size_t align = n >= 4096 ? 4096 : 64;
    uintptr_t p = (shared_next + align - 1) & ~(uintptr_t)(align - 1);
    if (n > MM_ARENA_BASE + MM_ARENA_SIZE - p)
        fail("the memory shared with the student process is full (%zu bytes asked)", n);
    cover(p + n, "mm_shared_alloc");
    shared_next = p + (n ? n : 1);
    return (void *)p; /* zero already: a fresh memfd, and no address is handed out twice (so
                       * no page is touched here: its first touch, and NUMA node, are the
                       * caller's) */
}

void mm_shared_free(void *p)
{
    (void)p; /* addresses are never reused within a test; its process ends with it */
}

/* Callbacks the student process may ask for. */
static struct {
    const char *name;
    mm_callback_fn fn;
    void *ctx;
} callbacks[16];

void mm_call_on_callback(const char *name, mm_callback_fn fn, void *ctx)
{
    for (size_t i = 0; i < sizeof callbacks / sizeof callbacks[0]; i++)
        if (!callbacks[i].name || strcmp(callbacks[i].name, name) == 0) {
            callbacks[i].name = name;
            callbacks[i].fn = fn;
            callbacks[i].ctx = ctx;
            return;
        }
    fail("too many callbacks registered");
}

static void run_callback(void)
{
    box->cb_name[MM_CALL_NAME_MAX - 1] = 0;
    size_t len = box->cb_args_len < MM_CALL_ARGS_MAX ? box->cb_args_len : MM_CALL_ARGS_MAX;
    unsigned char args[MM_CALL_ARGS_MAX], ret[MM_CALL_RET_MAX] = { 0 };
    memcpy(args, box->cb_args, len); /* ours now: the student cannot change it under us */
    for (size_t i = 0; i < sizeof callbacks / sizeof callbacks[0] && callbacks[i].name; i++)
        if (strcmp(callbacks[i].name, box->cb_name) == 0) {
            callbacks[i].fn(args, len, ret, callbacks[i].ctx);
            memcpy(box->cb_ret, ret, sizeof ret);
            return;
        }
    memset(box->cb_ret, 0, sizeof box->cb_ret);
}

void mm_call_begin(mm_call_frame_t *f, const char *name)
{
    ensure();
    if (in_call)
        fail("%s called from inside a callback of another call", name);
    pthread_mutex_lock(&call_lock); /* until mm_call_run */
    holding = 1;
    memset(f, 0, sizeof *f);
    f->name = name;
    f->scratch = shared_next - MM_ARENA_BASE;
}

void mm_call_arg(mm_call_frame_t *f, const void *v, size_t n)
{
    size_t at = (f->args_len + 7) & ~(size_t)7;
    if (n > MM_CALL_ARGS_MAX - at)
        fail("%s: arguments too large for the call box", f->name);
    memcpy(box->args + at, v, n);
    f->args_len = at + n;
}

void mm_call_ptr(mm_call_frame_t *f, const void *p, size_t n, int copy_in, int copy_back)
{
    void *at = NULL;
    if (p && mm_shared_has(p, n)) { /* both sides see it already: nothing to copy */
        mm_call_arg(f, &p, sizeof p);
        return;
    }
    if (p) {
        size_t off = (f->scratch + 63) & ~(size_t)63;
        if (n > MM_ARENA_SIZE - off)
            fail("%s: %zu bytes of arguments do not fit the shared memory", f->name, n);
        at = (void *)(MM_ARENA_BASE + off);
        cover(MM_ARENA_BASE + off + n, f->name);
        f->scratch = off + (n ? n : 1);
        if (copy_in)
            memcpy(at, p, n);
        else
            memset(at, 0, n);
        if (copy_back) {
            if (f->nback == sizeof f->back / sizeof f->back[0])
                fail("%s: too many output arguments", f->name);
            f->back[f->nback].to = (void *)p;
            f->back[f->nback].from = at;
            f->back[f->nback++].n = n;
        }
    }
    mm_call_arg(f, &at, sizeof at);
}

void mm_call_shared(mm_call_frame_t *f, const void *p)
{
    if (p && !mm_shared_has(p, 1))
        fail("%s: a pointer the harness passes must be in shared memory (mm_shared_alloc)",
             f->name);
    mm_call_arg(f, &p, sizeof p);
}

/* The student process hung up during `what`: how it ended. */
static _Noreturn void died(const char *what)
{
    char how[128];
    close(call_fd);
    call_fd = -1;
    int status = zygote_ask(MM_ZY_END, zy_pid, NULL).value;
    drop_arena();
    in_call = 0;
    fail("your code's process %s during %s", ended_how(status, how, sizeof how), what);
}

void mm_call_run(mm_call_frame_t *f, void *ret, size_t ret_len)
{
    snprintf(box->name, sizeof box->name, "%s", f->name);
    box->args_len = (uint32_t)f->args_len;
    char m = MM_MSG_CALL;
    uint64_t t0 = now_ns();
    if (write(call_fd, &m, 1) != 1)
        died(f->name);
    for (;;) {
        if (read(call_fd, &m, 1) != 1)
            died(f->name);
        if (m == MM_MSG_RETURN)
            break;
        if (m == MM_MSG_CALLBACK) {
            in_call = 1;
            run_callback();
            in_call = 0;
            m = MM_MSG_CALLBACK_DONE;
            if (write(call_fd, &m, 1) != 1)
                died(f->name);
        }
    }
    last_ns = now_ns() - t0;
    holding = 0;
    pthread_mutex_unlock(&call_lock);
    if (box->status != MM_CALL_OK)
        fail("the student program does not serve %s (is it built from this lab's calls.toml?)",
             f->name);
    for (unsigned i = 0; i < f->nback; i++)
        memcpy(f->back[i].to, f->back[i].from, f->back[i].n);
    if (ret_len)
        memcpy(ret, box->ret, ret_len);
}

uint64_t mm_call_last_ns(void) { return last_ns; }

static int peek_poke(const char *name, const void *addr, void *buf, size_t n, int poke)
{
    if (mm_shared_has(addr, n)) {
        memcpy(poke ? (void *)addr : buf, poke ? buf : addr, n);
        return 0;
    }
    mm_call_frame_t f;
    mm_call_begin(&f, name);
    uint64_t a = (uintptr_t)addr, len = n;
    mm_call_arg(&f, &a, sizeof a);
    if (poke) {
        mm_call_ptr(&f, buf, n, 1, 0);
        mm_call_arg(&f, &len, sizeof len);
    } else {
        mm_call_arg(&f, &len, sizeof len);
        mm_call_ptr(&f, buf, n, 0, 1);
    }
    int rc;
    mm_call_run(&f, &rc, sizeof rc);
    return rc;
}

int mm_peek(const void *addr, void *dst, size_t n)
{
    return peek_poke("mm.peek", addr, dst, n, 0);
}

int mm_poke(void *addr, const void *src, size_t n)
{
    return peek_poke("mm.poke", addr, (void *)src, n, 1);
}

int mm_call_work(const char *name, const void *in, size_t in_len, void *out, size_t out_len)
{
    mm_call_frame_t f;
    mm_call_begin(&f, name);
    mm_call_ptr(&f, in, in_len, 1, 0);
    uint64_t il = in_len;
    mm_call_arg(&f, &il, sizeof il);
    mm_call_ptr(&f, out, out_len, 0, 1);
    uint64_t ol = out_len;
    mm_call_arg(&f, &ol, sizeof ol);
    int rc;
    mm_call_run(&f, &rc, sizeof rc);
    return rc;
}

void mm_idle_start(mm_idle_t *w)
{
    w->cpu0 = mm_student_cpu_ns();
    w->wall0 = now_ns();
}

void mm_idle_stop(mm_idle_t *w)
{
    w->wall_ns += now_ns() - w->wall0;
    w->cpu_ns += mm_student_cpu_ns() - w->cpu0;
}

int mm_idle_ok(const mm_idle_t *w, char *why, size_t cap)
{
    if (w->cpu_ns <= MM_IDLE_SLACK_NS + w->wall_ns / 100)
        return 1;
    snprintf(why, cap, "your process ran while the baseline was measured (%.1f ms of CPU in "
             "%.1f ms): a thread left running can slow the baseline down; stop your threads "
             "before your calls return", (double)w->cpu_ns / 1e6, (double)w->wall_ns / 1e6);
    return 0;
}
