/* What this machine has, read once through hwloc (and libnuma for NUMA policy facts):
 * cache line and cache sizes, cores, NUMA nodes, PCI GPUs and the NUMA node each is attached to.
 * Thread-safe: the topology is loaded on first use and kept for the life of the process. */
#ifndef MM_HW_H
#define MM_HW_H
#include "mm_attr.h"
#include <stddef.h>

#define MM_HW_MAX_CACHES 8
#define MM_HW_MAX_GPUS 16

typedef struct {
    unsigned level;  /* 1, 2, 3, ... */
    size_t size;     /* bytes, as the OS reports it (VMs may report odd values) */
    size_t line;     /* line size in bytes, 0 if unknown */
    int ways;        /* associativity, -1 fully associative, 0 unknown */
} mm_cache_t;

typedef struct {
    char bdf[16];        /* PCI address "dddd:bb:dd.f" */
    unsigned vendor, device;
    int numa_node;       /* OS index of the nearest NUMA node, -1 if the machine does not say */
} mm_gpu_pci_t;

/* Where a line size came from: hwloc (the kernel's cache data in sysfs: the coherency line),
 * sysconf(_SC_LEVEL1_DCACHE_LINESIZE) (on aarch64 glibc answers CTR_EL0's smallest data-cache
 * line, which may be below the coherency line: 32 where hwloc says 64), or nobody: assumed. */
typedef enum { MM_LINE_HWLOC, MM_LINE_SYSCONF, MM_LINE_ASSUMED } mm_line_source_t;

/* Cache line size in bytes of the L1 data cache, the one order every part of mlmem uses: hwloc
 * first, then sysconf, each taken only if a power of two >= 8; else MM_HW_ASSUMED_LINE, assumed.
 * Sets *from (if not NULL) to where it came from. Never 0. */
size_t mm_hw_line_size_from(mm_line_source_t *from);

/* mm_hw_line_size_from(NULL): the line size alone. Anything that shows it to people shows the
 * source too ("64 B (assumed: ...)") when it is MM_LINE_ASSUMED. */
size_t mm_hw_line_size(void);

/* "hwloc", "sysconf" or "assumed". */
const char *mm_hw_line_source_name(mm_line_source_t from);

#define MM_HW_ASSUMED_LINE 64 /* x86-64's and most Arm cores' line; Apple M-series have 128 */

/* Fills `out` with one entry per data/unified cache level (the first cache of each level seen
 * from PU 0), smallest level first. Returns the number of entries (0..max), or -1 if hwloc
 * could not load the topology. */
MM_MUST_CHECK int mm_hw_caches(mm_cache_t *out, int max);

/* Bytes of every data and unified cache (L1d, L2, L3, ...) that serves one of the first `cores`
 * cores, numbered as mm_hw_pin_to_core numbers them (all of them if cores exceeds the count),
 * each cache counted once: a shared L3 once, each core's own L1d and L2 once per core. What a run
 * on those cores can hold in caches (STREAM sizes its arrays from it). 0 if hwloc cannot load
 * the topology or reports no cache. */
size_t mm_hw_cache_bytes(unsigned cores);

/* Physical cores / hardware threads (PUs) this process may run on. At least 1. */
unsigned mm_hw_cores(void);
unsigned mm_hw_pus(void);

/* NUMA nodes this process may use (at least 1). */
unsigned mm_hw_numa_nodes(void);

/* Fills `out` with the display/3D-class PCI devices from NVIDIA, AMD or Intel that hwloc sees,
 * with their NUMA locality. Returns the count (0..max), or -1 on error. */
MM_MUST_CHECK int mm_hw_gpus(mm_gpu_pci_t *out, int max);

/* Binds the calling thread to the k-th core (k modulo the core count; cores of different
 * packages are numbered in hwloc's logical order). Returns 0 or a negative errno. */
MM_MUST_CHECK int mm_hw_pin_to_core(unsigned k);

/* mm_hw_pin_to_core where pinning helps but is not needed (a container may refuse affinity): the
 * first failure in this process is kept for mm_hw_pin_failed, and the caller goes on unpinned. */
void mm_hw_try_pin(unsigned k);

/* 0, or the -errno of this process's first failed mm_hw_try_pin (a benchmark reports it). */
int mm_hw_pin_failed(void);

/* Removes any binding of the calling thread (binds it to all allowed PUs). Returns 0 or -errno:
 * a failure leaves the thread bound, which only costs it the other cores. */
int mm_hw_unpin(void);

/* 1 if a CPU emulator runs this program (qemu-user: an aarch64 program on an x86-64 kernel):
 * the kernel's own architecture (/proc/sys/kernel/arch, Linux 6.1+; uname() is the emulator's)
 * differs from the one this program was built for. 0 otherwise, or where the kernel does not
 * say. grader/rules/hostenv.py's emulator() reads the same sign. */
int mm_hw_emulated(void);

#endif
