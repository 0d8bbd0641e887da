/* Lab 01, part A: per-thread counters that never share a cache line.
 * Each worker thread increments only its own slot; the total is read after the workers join. */
#ifndef CL_COUNTERS_H
#define CL_COUNTERS_H
#include <stddef.h>
#include <stdint.h>

#define CL_MAX_THREADS 256

typedef struct cl_counters cl_counters_t;

/* Returns this machine's cache line size in bytes as the OS reports it, in the order of
 * mm_hw_line_size() (common/mm_hw.h): the L1 data cache's coherency line from sysfs
 * (/sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size, what hwloc reads), then
 * sysconf(_SC_LEVEL1_DCACHE_LINESIZE) (on aarch64 the smallest line, maybe below the coherency
 * line), each only if a power of two >= 8; else 64. Always a power of two >= 8. */
size_t cl_line_size(void);

/* Creates `nthreads` zeroed counters, each alone in its own `line`-byte cache line: every slot's
 * address is a multiple of `line` and no two slots share a line.
 * Returns 0 and sets *out; -EINVAL if out is NULL, nthreads is 0 or > CL_MAX_THREADS, or line is
 * not a power of two >= 8; -ENOMEM when out of memory (nothing is leaked). Free with
 * cl_counters_destroy. */
int cl_counters_create(cl_counters_t **out, unsigned nthreads, size_t line);

/* Thread `tid`'s slot (0 <= tid < nthreads); NULL if c is NULL or tid is out of range. */
uint64_t *cl_counters_slot(cl_counters_t *c, unsigned tid);

/* Sum of all slots (call after the writers are done); 0 for NULL. */
uint64_t cl_counters_total(const cl_counters_t *c);

/* Frees everything; NULL is ignored. */
void cl_counters_destroy(cl_counters_t *c);

#endif
