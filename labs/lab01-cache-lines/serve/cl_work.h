/* Lab 01's workloads (serve/cl_work.c): the threads that bump the student's counters or call
 * its accumulator at the same time. The harness (tests, bench) fills these requests; the loops
 * are here once, so that the bench's packed baselines (run in the harness) and the student's
 * side (run in its process) execute the same code. */
#ifndef CL_WORK_H
#define CL_WORK_H
#include <stddef.h>
#include <stdint.h>
#include "stats.h"

#define CL_WORK_MAX_THREADS 16

enum {
    CL_WORK_ATOMIC = 1, /* bump: every add an atomic read-modify-write (else a volatile ++) */
    CL_WORK_PIN = 2,    /* thread t pinned to core t (mm_hw_try_pin) */
};

/* Workload "bump": thread t adds 1 to slot[t], times[t] times; threads start together. */
typedef struct {
    uint64_t slot[CL_WORK_MAX_THREADS]; /* the student's counters: addresses in its process */
    uint64_t times[CL_WORK_MAX_THREADS];
    uint32_t n;                         /* threads, 1..CL_WORK_MAX_THREADS */
    uint32_t flags;                     /* CL_WORK_* */
} cl_bump_in_t;

/* Workload "feed": `workers` threads, worker w calls cl_accum_add(acc, w, x[i]) for its
 * contiguous share of x[0..n) (lo = n * w / workers, hi = n * (w + 1) / workers). */
typedef struct {
    uint64_t acc;     /* the student's cl_accum_t * (a handle) */
    uint64_t x;       /* the samples: in shared memory (mm_shared_alloc) */
    uint64_t n;
    uint32_t workers; /* 1..CL_WORK_MAX_THREADS */
    uint32_t flags;   /* CL_WORK_PIN */
} cl_feed_in_t;

/* One bumping thread's loop. */
static inline void cl_bump_loop(uint64_t *slot, uint64_t times, int atomic)
{
    volatile uint64_t *s = slot;
    if (atomic)
        for (uint64_t i = 0; i < times; i++)
            __atomic_fetch_add(slot, 1, __ATOMIC_RELAXED);
    else
        for (uint64_t i = 0; i < times; i++)
            (*s)++;
}

/* One feeding worker's loop: every sample into partial `slot`, one call per sample. */
static inline void cl_feed_loop(void (*add)(cl_accum_t *, unsigned, float), cl_accum_t *acc,
                                unsigned slot, const float *x, size_t lo, size_t hi)
{
    for (size_t i = lo; i < hi; i++)
        add(acc, slot, x[i]);
}

#endif
