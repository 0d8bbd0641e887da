/* Lab 04 tests: shared oracles. They call hwloc, libnuma and the kernel directly, never the code
 * under test, so a test compares your answer with an independent one. */
#ifndef NB_SUPPORT_H
#define NB_SUPPORT_H
#include <hwloc.h>
#include <stddef.h>

/* A topology loaded by hwloc itself (I/O kept as important): a shipped XML by name, a synthetic
 * string, or this machine. Fails the test if hwloc cannot load it. */
hwloc_topology_t tu_shipped(const char *name);
hwloc_topology_t tu_synthetic(const char *desc);
hwloc_topology_t tu_system(void);

/* The shipped topology `name` loaded by your nb_topo_load_xml_buffer (fails the test if not). */
hwloc_topology_t tu_yours(const char *name);
/* This machine loaded by your nb_topo_load_system (fails the test if not). */
hwloc_topology_t tu_yours_system(void);

/* A bitmap in list form ("0-13,112-125") for messages; one of 4 rotating static buffers. */
const char *tu_list(hwloc_const_bitmap_t set);

/* The calling thread's CPUs as the kernel says (sched_getaffinity), into out. */
void tu_affinity(hwloc_bitmap_t out);

/* Binds the calling thread to one PU with sched_setaffinity. */
void tu_pin(int pu);

/* move_pages(2) with nodes == NULL, straight from the kernel. */
void tu_page_status(const void *addr, size_t npages, int *status);

/* Whether the page holding addr has anything mapped (mincore(2)): a page of its own or the
 * shared zero page. Unlike move_pages' -ENOENT, the same on every kernel. */
int tu_resident(const void *addr);

/* An anonymous private mapping of npages pages, nothing touched yet; free with tu_unmap. */
char *tu_map(size_t npages);
void tu_unmap(char *p, size_t npages);

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
