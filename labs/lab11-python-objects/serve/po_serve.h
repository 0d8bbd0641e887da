/* Lab 11: what the harness (tests/, bench/) and the workloads of the student's process (serve/)
 * pass each other: the `in` and `out` of each workload in calls.toml. The interpreter, pyobj and
 * every Python object live in the student's process; the harness sends Python source and names,
 * and gets back text and numbers, which are that process's word (its interpreter counted them). */
#ifndef PO_SERVE_H
#define PO_SERVE_H
#include <stdint.h>

#define PO_CODE_MAX 4096   /* Python source in a request, with its NUL */
#define PO_TEXT_MAX 2048   /* text in an answer, with its NUL */

/* Every workload but the benchmark's returns 0 when done, 1 when Python raised (the exception as
 * "Type: message" in the answer's text), or -errno: -EINVAL for a malformed request, -ENOEXEC
 * when the interpreter could not start, -ENOSYS (counting workloads) when it is not the debug
 * interpreter (why, in the answer's text). */

/* py: runs `code` in the test's namespace (made at the process's first request: pyobj, sweep,
 * np, gc, sys, tracemalloc, weakref, minigrad as mg, harness) as statements (eval 0), or
 * evaluates it as an expression (eval 1), or calls the callable it evaluates to (eval 2). Answer:
 * char[PO_TEXT_MAX], str() of the value ("" for statements); for eval 2, "" if the call returned,
 * else the built-in exception class of what it raised (interp.h, po_builtin_exception).
 * train_loop: imports the student's src/train_loop.py (embedded) as train_loop, in the
 * namespace. No request; answer: char[PO_TEXT_MAX]. */
typedef struct {
    int32_t eval;
    char code[PO_CODE_MAX];
} po_py_in_t;

/* trajectory: harness.trajectory(train_loop, steps) (py/harness.py: what train(steps, seed=11)
 * did, as float32 bytes) copied to dst, shared memory of cap bytes, when it fits; len is its
 * size either way. The harness replays it (tests/replay.h). Returns 0; 2 with why in text when
 * the run is not what train()'s docstring says (harness.reports_wrong, log_mismatch); else as
 * the py workload. */
typedef struct {
    int32_t steps;
    uint64_t dst, cap;
} po_traj_in_t;
typedef struct {
    int64_t len;
    char text[PO_TEXT_MAX];
} po_traj_out_t;

/* refs_left: the references one call of the callable `code` evaluates to leaves behind, as
 * support.h's tu_refs_left describes (warm-up, reps calls, the change of
 * sys.gettotalrefcount() over them divided by reps). */
typedef struct {
    int32_t reps;
    char code[PO_CODE_MAX];
} po_refs_in_t;
typedef struct {
    int64_t left;
    char text[PO_TEXT_MAX];
} po_refs_out_t;

/* getbuffer: PyObject_GetBuffer(`name` of the namespace, &view, flags) from C, view.obj set to
 * a non-NULL value first; what it filled in; then PyBuffer_Release and the object's exports
 * field (a TensorBuf's; -1 for another object). */
typedef struct {
    int32_t flags;
    char name[64];
} po_getbuffer_in_t;
#define PO_GB_DIMS 8
typedef struct {
    int32_t rc;              /* PyObject_GetBuffer's result */
    char raised[64];         /* the type of the exception it raised, or "" */
    int32_t obj_is_null, obj_is_target, readonly, ndim;
    int32_t has_format, has_shape, has_strides, has_suboffsets;
    int64_t len, itemsize;
    char format[8];
    int64_t shape[PO_GB_DIMS], strides[PO_GB_DIMS];
    int64_t exports;         /* after the release */
    char text[PO_TEXT_MAX];
} po_getbuffer_out_t;

/* sweep: the allocation-failure sweep of support.h's tu_sweep over scenario `scenario`
 * ("tensorbuf_life", "group_by", "batches_drain", "collate"), its argument `arg` evaluated in
 * the namespace first. Also returns -ENOENT (no such scenario) and -E2BIG (a run made more than
 * PO_SWEEP_MAX_RUNS allocations). */
#define PO_SWEEP_MAX_RUNS 20000
typedef struct {
    char scenario[32];
    char arg[PO_CODE_MAX];
} po_sweep_in_t;
typedef struct {
    int32_t runs;            /* one per allocation failed, plus the one that completed; twice */
    int32_t failed_runs;     /* runs that returned NULL */
    int64_t refs_left;       /* sys.gettotalrefcount() after the second sweep minus before it */
    int32_t first_leak_at;   /* the first run of the second sweep that left references: the
                              * allocation failed in it (its last run: none failed); 0: none */
    int32_t first_leak_done; /* 1 when that run was the one that completed */
    int64_t first_leak_refs; /* the references it left */
    char bad[256];           /* "" or the first broken rule (see tu_sweep) */
    char text[PO_TEXT_MAX];
} po_sweep_out_t;

/* repeat: what the kernel sees of a leak. `code` evaluates to a callable of one argument, `big`:
 * big(tag) makes a new anonymous mmap.mmap of PO_BIG_BYTES bytes, every one of them `tag` (so
 * its pages are resident, and given back to the kernel when it is freed). The callable is
 * called `reps` times with the collector on, each result dropped and each exception cleared;
 * then a full collection. With hold != 0 every result is kept instead (until the next repeat):
 * the harness's check that memory held shows. The namespace's sweep(scenario, arg) runs one
 * allocation-failure sweep, as the sweep workload's, its findings dropped. The harness reads the
 * process's resident memory from /proc around the calls; nothing this answers is counted.
 * Answer: char[PO_TEXT_MAX], the first exception raised ("Type: message") or "". */
#define PO_BIG_BYTES (64 << 10)
typedef struct {
    int32_t reps, hold;
    char code[PO_CODE_MAX];
} po_repeat_in_t;

/* The benchmark's workloads (bench/bench_lab11.c), on samples of float32 elements:
 * collate_samples: makes the samples from the shared bytes at src: n arrays (numpy, each its
 *   own copy) of shape dims, sample i from bytes [i * size, (i + 1) * size); they are kept for
 *   the next two. Answer: char[PO_TEXT_MAX].
 * collate_once: collate(samples) from C (po_collate), its bytes copied to dst (shared memory
 *   of cap bytes) through the buffer protocol when they fit. Answer: po_collate_out_t.
 * collate_reps: collate(samples) from C `reps` times, each result dropped. Answer:
 *   char[PO_TEXT_MAX]. */
typedef struct {
    uint64_t src, dst;       /* shared memory */
    uint64_t n, cap;
    int64_t dims[3];
    uint32_t reps;
} po_collate_in_t;
typedef struct {
    int32_t ndim;
    int64_t shape[PO_GB_DIMS];
    char format[8];
    int64_t len;             /* bytes of the result (copied when len == cap) */
    char text[PO_TEXT_MAX];
} po_collate_out_t;

#endif
