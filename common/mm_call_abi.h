/* The call boundary's protocol: what the trusted harness (common/harness/) and the student's
 * process (common/student/) both know. Student code runs only in a program of its own; the
 * harness asks it for one call at a time through a call box in shared memory and a socket.
 *
 *   arena  one memfd of MM_ARENA_SIZE bytes, mapped at MM_ARENA_BASE in both processes, so a
 *          pointer into it means the same on both sides:
 *            [BASE, BASE + MM_BOX_SIZE)          the call box (mm_call_box_t)
 *            [BASE + MM_BOX_SIZE, BASE + SIZE)   buffers the harness hands out (mm_shared_alloc),
 *                                                from the bottom up; above the last of them, one
 *                                                call's copied-in / copied-out arguments
 *          The memfd grows as the harness uses it (its size counts against the harness's file
 *          size limit, never the student's).
 *          Nothing the harness keeps private is ever in the arena: it only copies data in and
 *          reads what comes back, and checks all of it.
 *   socket a SOCK_SEQPACKET pair, one byte a message (MM_MSG_*).
 *
 * A call: the harness fills box->name and box->args, sends MM_MSG_CALL; the student process
 * runs it and sends MM_MSG_RETURN (box->ret filled, box->status MM_CALL_OK) or, first, any
 * number of MM_MSG_CALLBACK (box->cb_* filled; the harness answers MM_MSG_CALLBACK_DONE). Its
 * first message, MM_MSG_HELLO, carries its credentials (the kernel's, SO_PASSCRED): the harness
 * learns its pid from the kernel, not from it. */
#ifndef MM_CALL_ABI_H
#define MM_CALL_ABI_H
#include <stddef.h>
#include <stdint.h>

/* Below 2^39, so that the address exists on arm64 kernels with 39-bit user space too; in an
 * AddressSanitizer build (both sides are built with the same flags) above its shadow memory,
 * whose gap covers that address on x86-64. */
#if defined(__SANITIZE_ADDRESS__)
#define MM_ARENA_BASE ((uintptr_t)0x500000000000ull)
#else
#define MM_ARENA_BASE ((uintptr_t)0x4000000000ull)
#endif
#define MM_ARENA_SIZE ((size_t)2 << 30)
#define MM_BOX_SIZE ((size_t)1 << 20)

#define MM_CALL_NAME_MAX 64
#define MM_CALL_ARGS_MAX 4096
#define MM_CALL_RET_MAX 256

enum { MM_MSG_HELLO = 'h', MM_MSG_CALL = 'c', MM_MSG_RETURN = 'r', MM_MSG_CALLBACK = 'b',
       MM_MSG_CALLBACK_DONE = 'd' };
enum { MM_CALL_OK = 0, MM_CALL_UNKNOWN = 1, MM_CALL_BAD_ARGS = 2 };

typedef struct {
    char name[MM_CALL_NAME_MAX];       /* the call, as the lab's calls.toml names it */
    uint32_t status;                   /* MM_CALL_*, set by the student process */
    uint32_t args_len;
    unsigned char args[MM_CALL_ARGS_MAX] __attribute__((aligned(16)));
    unsigned char ret[MM_CALL_RET_MAX] __attribute__((aligned(16)));
    /* A callback from the student process to the harness (a function pointer the harness
     * passed, as a lab's serve code forwards it). */
    char cb_name[MM_CALL_NAME_MAX];
    uint32_t cb_args_len;
    unsigned char cb_args[MM_CALL_ARGS_MAX] __attribute__((aligned(16)));
    unsigned char cb_ret[MM_CALL_RET_MAX] __attribute__((aligned(16)));
} mm_call_box_t;

_Static_assert(sizeof(mm_call_box_t) <= MM_BOX_SIZE, "the call box fits its region");

/* The zygote's requests (SOCK_SEQPACKET, struct a message). MM_ZY_START carries two
 * descriptors (SCM_RIGHTS: the arena's memfd, the student's end of the call socket) and answers
 * the new process's pid in the zygote's pid namespace; MM_ZY_END stops that process (SIGKILL if
 * it still runs) and answers how it ended (a wait status). */
enum { MM_ZY_START = 1, MM_ZY_END = 2 };
typedef struct {
    int32_t op;
    int32_t pid;
    uint32_t seq;   /* echoed in the reply: a reply to an earlier, abandoned request is skipped */
} mm_zy_msg_t;
typedef struct {
    int32_t rc;     /* 0 or -errno */
    int32_t value;  /* pid (MM_ZY_START) or wait status (MM_ZY_END) */
    uint32_t seq;
} mm_zy_reply_t;

#endif
