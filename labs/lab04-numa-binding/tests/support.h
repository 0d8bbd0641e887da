/* Lab 04 tests: shared oracles and the way to your process. The oracles call hwloc, libnuma and
 * the kernel here, in the harness, never the code under test, so a test compares your answer
 * with an independent one. Your code runs in a process of its own (calls.toml): a topology,
 * bitmap or PCI object it holds reaches a test as a handle (its pointer, never read here), and
 * what the tests check of your process (its threads' binding, where pages of shared memory went)
 * they ask of the kernel themselves. */
#ifndef NB_SUPPORT_H
#define NB_SUPPORT_H
#include <hwloc.h>
#include <stddef.h>

/* A topology loaded by hwloc itself here (I/O kept as important): a shipped XML by name, a
 * synthetic string, or this machine. Fails the test if hwloc cannot load it. */
hwloc_topology_t tu_shipped(const char *name);
hwloc_topology_t tu_synthetic(const char *desc);
hwloc_topology_t tu_system(void);

/* The same, loaded by hwloc itself in your process (serve/serve04.c): a handle, for your
 * functions that take another machine's topology. */
hwloc_topology_t tu_there_shipped(const char *name);
hwloc_topology_t tu_there_synthetic(const char *desc);

/* The shipped topology `name` loaded by your nb_topo_load_xml_buffer (fails the test if not). */
hwloc_topology_t tu_yours(const char *name);
/* This machine loaded by your nb_topo_load_system (fails the test if not). */
hwloc_topology_t tu_yours_system(void);
/* hwloc_topology_is_thissystem of a topology of your process. */
int tu_is_thissystem(hwloc_topology_t there);

/* A copy of `set` in your process (a handle; NULL stays NULL), and a copy here of a bitmap of
 * your process (NULL for a NULL handle; free it). */
hwloc_bitmap_t tu_send(hwloc_const_bitmap_t set);
hwloc_bitmap_t tu_fetch(hwloc_const_bitmap_t there);

/* The PUs this process may use, as hwloc here says (free it). */
hwloc_bitmap_t tu_allowed(void);

/* A bitmap in list form ("0-13,112-125") for messages; one of 4 rotating static buffers. */
const char *tu_list(hwloc_const_bitmap_t set);

/* The CPUs your process's serving thread (the one that runs your calls) may run on, as the
 * kernel says (sched_getaffinity of your process), into out; and the CPU it last ran on. */
void tu_affinity(hwloc_bitmap_t out);
int tu_cpu(void);

/* Fresh shared memory: npages pages no process has touched, no huge pages in either mapping. */
char *tu_fresh(size_t npages);

/* In your process: pins its serving thread to `pu` (if >= 0), then writes (what[i] = 1) or
 * reads (2) page i of p[0..npages) (NULL what: nothing). */
void tu_touch(char *p, size_t npages, int pu, const unsigned char *what);

/* Where the pages of shared memory p[0..npages) are, as the kernel says here (move_pages on
 * this mapping): a page some process has touched (mincore) is mapped here first, so its node
 * shows; one never touched gets the kernel's answer for that (-ENOENT, or -EFAULT on Linux 6.1),
 * the same as in your process. */
void tu_page_status(const char *p, size_t npages, int *status);

/* move_pages(2) with nodes == NULL of this process's own mappings, straight from the kernel. */
void tu_move_pages(const void *addr, size_t npages, int *status);

/* Whether the page of shared memory holding addr exists (mincore(2): touched by some process). */
int tu_resident(const void *addr);

size_t tu_page(void);

/* The memory-policy calls a test may need. */
enum { TU_MBIND = 1, TU_GET_MEMPOLICY = 2, TU_MOVE_PAGES = 4 };

/* Why this machine refuses one of the calls in `need` (TU_* flags), or NULL when it allows them
 * all. Docker's and containerd's default seccomp profiles allow mbind, get_mempolicy and
 * set_mempolicy only to containers with CAP_SYS_NICE. */
const char *tu_refused(int need);

/* In a test body: skip the test, with the reason, where a call it needs is refused. */
#define TU_NEED(calls)                                                                \
    do {                                                                              \
        const char *tu_why_ = tu_refused(calls);                                      \
        if (tu_why_)                                                                  \
            MM_SKIP("%s", tu_why_);                                                   \
    } while (0)

#endif
