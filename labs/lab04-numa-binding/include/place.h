/* Lab 04, part D: memory on the right NUMA node, and proof of where it is. Linux places an
 * anonymous page when it is first written ("first touch"), on the node of the CPU that writes it
 * unless a memory policy (mbind) says otherwise; a page never written has no node yet. */
#ifndef NB_PLACE_H
#define NB_PLACE_H
#include <hwloc.h>
#include <stddef.h>

#define NB_MAX_THREADS 64
#define NB_MAX_NODES 64

/* Writes one byte (a zero) in every page of [p, p + bytes), from `nthreads` new threads that
 * each first bind themselves to `where` (nb_bind_thread) and touch one contiguous slice of whole
 * pages; slices are as equal as whole pages allow, and threads beyond the page count may get
 * none. The calling thread's own binding is not changed. p must be page-aligned; bytes need not
 * be a multiple of the page size (the last, partial page is touched too).
 * Returns 0 once every thread is done;
 *   -EINVAL:     p is NULL or not page-aligned, bytes is 0, nthreads is 0 or > NB_MAX_THREADS,
 *                or where is NULL or holds no allowed PU;
 *   -EOPNOTSUPP: t is not this machine's topology;
 *   -EAGAIN:     a thread cannot be started. */
int nb_touch_parallel(hwloc_topology_t t, void *p, size_t bytes, unsigned nthreads,
                      hwloc_const_cpuset_t where);

/* Maps `bytes` (rounded up to whole pages) of zeroed anonymous memory whose pages may only come
 * from NUMA node `node` (mbind MPOL_BIND), then places every page there with nb_touch_parallel
 * from nthreads threads bound to the node's PUs (all allowed PUs if the node has none).
 * (libnuma's numa_alloc_onnode only prints a warning for a node that does not exist and
 * returns memory from anywhere: do not rely on it to say no.)
 * Returns 0 and sets *out (page-aligned; free with nb_free(*out, bytes));
 *   -EINVAL:     out is NULL, bytes is 0, nthreads is 0 or > NB_MAX_THREADS, or node is not
 *                the OS index of a NUMA node of t;
 *   -EOPNOTSUPP: t is not this machine's topology;
 *   -ENOMEM:     out of memory;
 *   the negative errno of a failed mbind (-EPERM in a container whose seccomp profile
 *   forbids it).
 * Nothing is leaked on failure. */
int nb_alloc_on_node(hwloc_topology_t t, int node, size_t bytes, unsigned nthreads, void **out);

/* Unmaps memory from nb_alloc_on_node (same bytes). NULL is ignored. */
void nb_free(void *p, size_t bytes);

/* Where each of the npages pages from the page-aligned `addr` is, as move_pages(2) with
 * nodes == NULL reports it (nothing is moved): status[i] = the page's NUMA node (>= 0), or a
 * negative errno, which is the kernel's to choose: -ENOENT for a page never touched (Linux 6.1
 * says -EFAULT there too), -EFAULT for a page only read so far (it maps the shared zero page) or
 * not mapped. Returns 0;
 *   -EINVAL: addr or status is NULL, addr is not page-aligned or npages is 0;
 *   -ENOMEM: out of memory;
 *   the negative errno of a failed move_pages (-EPERM where a container forbids it). */
int nb_page_nodes(const void *addr, size_t npages, int *status);

/* The NUMA node of the page holding addr, from get_mempolicy(MPOL_F_NODE | MPOL_F_ADDR).
 * Beware: when no page is there yet, the kernel faults one in as a read would, so this cannot
 * tell that a page was never touched (nb_page_nodes can). Returns 0 and sets *node;
 *   -EINVAL: NULL arguments;
 *   the negative errno of a failed call. */
int nb_page_node(const void *addr, int *node);

typedef struct {
    size_t pages;                 /* pages in the range */
    size_t unplaced;              /* pages without a node: never written (or not mapped) */
    size_t on_node[NB_MAX_NODES]; /* pages on each node */
} nb_placement_t;

/* Counts where the pages of [addr, addr + bytes) are (addr page-aligned; a partial last page
 * counts as a page), from nb_page_nodes. Returns 0 and fills *out;
 *   -EINVAL: as nb_page_nodes, or out is NULL or bytes is 0;
 *   -ERANGE: a page is on a node >= NB_MAX_NODES;
 *   -ENOMEM: out of memory. */
int nb_placement(const void *addr, size_t bytes, nb_placement_t *out);

#endif
