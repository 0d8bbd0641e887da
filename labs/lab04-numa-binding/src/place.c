/* Lab 04, part D: node-local memory with parallel first touch, and where pages really are
 * (contract in include/place.h). */
#include "place.h"
#include <errno.h>
#include <numaif.h> /* mbind, move_pages, get_mempolicy (link: -lnuma, already there) */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "bind.h"

/* ===== YOUR CODE HERE: static helpers (the page size: sysconf(_SC_PAGESIZE)) =====
 * A toucher thread: nb_bind_thread(t, where) first, then write one byte per page of its slice
 * through a volatile pointer. Slice i of nthreads over `pages` pages starts at page
 * pages * i / nthreads. */
/* ===== END YOUR CODE ===== */

int nb_touch_parallel(hwloc_topology_t t, void *p, size_t bytes, unsigned nthreads,
                      hwloc_const_cpuset_t where)
{
    /* ===== YOUR CODE HERE: check everything, start the threads, join them all ===== */
    (void)t, (void)p, (void)bytes, (void)nthreads, (void)where;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int nb_alloc_on_node(hwloc_topology_t t, int node, size_t bytes, unsigned nthreads, void **out)
{
    /* ===== YOUR CODE HERE =====
     * mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), then
     * mbind(p, len, MPOL_BIND, mask, maxnode, 0) with bit `node` set in an unsigned long mask,
     * then nb_touch_parallel from the node's PUs. munmap on any failure. */
    (void)t, (void)node, (void)bytes, (void)nthreads, (void)out;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

void nb_free(void *p, size_t bytes)
{
    /* ===== YOUR CODE HERE ===== */
    (void)p, (void)bytes;
    /* ===== END YOUR CODE ===== */
}

int nb_page_nodes(const void *addr, size_t npages, int *status)
{
    /* ===== YOUR CODE HERE: move_pages(0, npages, pages, NULL, status, 0) moves nothing ===== */
    (void)addr, (void)npages, (void)status;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int nb_page_node(const void *addr, int *node)
{
    /* ===== YOUR CODE HERE: get_mempolicy(&n, NULL, 0, addr, MPOL_F_NODE | MPOL_F_ADDR) ===== */
    (void)addr, (void)node;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int nb_placement(const void *addr, size_t bytes, nb_placement_t *out)
{
    /* ===== YOUR CODE HERE: one nb_page_nodes call, then count ===== */
    (void)addr, (void)bytes, (void)out;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}
