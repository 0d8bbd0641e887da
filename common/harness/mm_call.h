/* The harness's end of the call boundary (common/mm_call_abi.h): the trusted test program and
 * benchmark call the student's code, which runs in a process of its own (common/student/).
 *
 * The lab's calls.toml makes a stub for each API function with the function's own name and
 * signature (common/gen-calls.py): a test calls cl_counters_create(&c, n, line) as before, and
 * the stub copies the arguments the TOML says are read into shared memory, runs the call in the
 * student's process, copies back what it says are written, and returns the result. What the
 * student's process returns is data to check, never a verdict: its pointers are its own
 * (read them with mm_peek), its handles are opaque.
 *
 * A failure of the boundary itself (the student's process died, a pointer outside the shared
 * memory where one must be inside) ends the test through the failure hook (mm_call_on_fail):
 * a Check test fails with the message; a benchmark exits. */
#ifndef MM_CALL_H
#define MM_CALL_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Starts the student program's zygote, or takes the grader's (MLMEM_ZYGOTE_FD); call once at
 * start-up, before forking tests. Returns 0 or -errno (nothing can be called then). */
int mm_call_setup(void);

/* What ends a test when the boundary fails (default: print the message, exit(3)). */
void mm_call_on_fail(void (*fail)(const char *msg));

/* Ends this test's student process (the next call starts a fresh one). */
void mm_student_stop(void);
/* The student process's pid, as the kernel told it (SO_PASSCRED); starts it if need be. */
pid_t mm_student_pid(void);
/* CPU time the student process has used so far (all its threads, those that ended too), in ns:
 * the kernel's clock of that process. */
uint64_t mm_student_cpu_ns(void);

/* Memory at the same address in both processes: n bytes of zeros, 64-byte aligned (pages for
 * n >= 4096). Never NULL (fails the test when the arena is full). Pass it to the student's code
 * by pointer (calls.toml's `shared`), embed it in structs the student reads. */
void *mm_shared_alloc(size_t n);
/* Nothing to do: no address is handed out twice within a test, and its memory ends with it. */
void mm_shared_free(void *p);
/* 1 if [p, p + n) lies in the memory shared with the student's process. */
int mm_shared_has(const void *p, size_t n);

/* Copies n bytes from the student's memory at `addr` (an address its code gave) to dst, or
 * from src to it. Returns 0, or -EFAULT when the address is not mapped there. */
int mm_peek(const void *addr, void *dst, size_t n);
int mm_poke(void *addr, const void *src, size_t n);

/* Runs workload `name` (a lab's serve code, calls.toml's [[workload]]) in the student process:
 * in[0..in_len) is copied to it, out[0..out_len) back. Returns the workload's result. */
int mm_call_work(const char *name, const void *in, size_t in_len, void *out, size_t out_len);
/* The wall time of the last call, measured by the harness around it (ns). */
uint64_t mm_call_last_ns(void);

/* The idle check: the student's process must not run while the harness times something of its
 * own (a baseline), or it could slow that down and look faster. Watch each such region with
 * mm_idle_start / mm_idle_stop (they add up); mm_idle_ok then says whether the student's process
 * used at most MM_IDLE_SLACK_NS + 1% of the watched time meanwhile (1), or not (0, and why: a
 * metric measured so is skipped, never scored). */
#define MM_IDLE_SLACK_NS 2000000ull
typedef struct {
    uint64_t cpu_ns, wall_ns; /* the student's CPU time and the wall time, while watched */
    uint64_t cpu0, wall0;     /* at the open region's start */
} mm_idle_t;
void mm_idle_start(mm_idle_t *w);
void mm_idle_stop(mm_idle_t *w);
int mm_idle_ok(const mm_idle_t *w, char *why, size_t cap);

/* A callback the student process may ask for (a lab's serve code forwarding a function pointer
 * the harness passed): fn(args, len, ret, ctx) fills ret[0..MM_CALL_RET_MAX). */
typedef void (*mm_callback_fn)(const void *args, size_t len, void *ret, void *ctx);
void mm_call_on_callback(const char *name, mm_callback_fn fn, void *ctx);

/* What the generated stubs use: one frame per call. */
typedef struct {
    const char *name;
    size_t args_len, scratch;
    unsigned nback;
    struct { void *to; const void *from; size_t n; } back[16];
} mm_call_frame_t;
void mm_call_begin(mm_call_frame_t *f, const char *name);
/* Packs a value argument of n bytes. */
void mm_call_arg(mm_call_frame_t *f, const void *v, size_t n);
/* Packs a pointer argument: p's n bytes copied into shared memory (copy_in), copied back after
 * the call (copy_back); NULL stays NULL, and memory already shared (mm_shared_alloc) is passed
 * as it is, with no copy (a benchmark's buffers: nothing but the call is timed). */
void mm_call_ptr(mm_call_frame_t *f, const void *p, size_t n, int copy_in, int copy_back);
/* Packs a pointer that must already be NULL or in shared memory (fails the test otherwise). */
void mm_call_shared(mm_call_frame_t *f, const void *p);
/* Runs the call; the result's ret_len bytes go to ret. */
void mm_call_run(mm_call_frame_t *f, void *ret, size_t ret_len);

#endif
