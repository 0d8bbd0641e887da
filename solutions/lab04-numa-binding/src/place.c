/* Lab 04, part D: node-local memory with parallel first touch, and where pages really are
 * (contract in include/place.h). */
#include "place.h"
#include <errno.h>
#include <numaif.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "bind.h"

static size_t page_size(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

typedef struct {
    hwloc_topology_t t;
    hwloc_const_cpuset_t where;
    volatile char *lo, *hi; /* this thread's slice: [lo, hi) */
    int rc;
} toucher_t;

static void *touch(void *arg)
{
    toucher_t *w = arg;
    w->rc = nb_bind_thread(w->t, w->where);
    for (volatile char *p = w->lo; w->rc == 0 && p < w->hi; p += page_size())
        *p = 0;
    return NULL;
}

static int check_touch_args(hwloc_topology_t t, void *p, size_t bytes, unsigned nthreads,
                            hwloc_const_cpuset_t where)
{
    if (!t || !p || (uintptr_t)p % page_size() || bytes == 0 || nthreads == 0 ||
        nthreads > NB_MAX_THREADS || !where)
        return -EINVAL;
    if (!hwloc_topology_is_thissystem(t))
        return -EOPNOTSUPP;
    return hwloc_bitmap_intersects(where, hwloc_topology_get_allowed_cpuset(t)) ? 0 : -EINVAL;
}

int nb_touch_parallel(hwloc_topology_t t, void *p, size_t bytes, unsigned nthreads,
                      hwloc_const_cpuset_t where)
{
    int rc = check_touch_args(t, p, bytes, nthreads, where);
    if (rc != 0)
        return rc;
    size_t pages = (bytes + page_size() - 1) / page_size(), started = 0;
    pthread_t tid[NB_MAX_THREADS];
    toucher_t w[NB_MAX_THREADS];
    for (unsigned i = 0; i < nthreads && rc == 0; i++) {
        w[i] = (toucher_t){ t, where, (char *)p + pages * i / nthreads * page_size(),
                            (char *)p + pages * (i + 1) / nthreads * page_size(), 0 };
        if (pthread_create(&tid[i], NULL, touch, &w[i]) != 0)
            rc = -EAGAIN;
        else
            started++;
    }
    for (size_t i = 0; i < started; i++) {
        pthread_join(tid[i], NULL);
        rc = rc ? rc : w[i].rc;
    }
    return rc;
}

static size_t round_to_pages(size_t bytes)
{
    return (bytes + page_size() - 1) / page_size() * page_size();
}

/* mbind(MPOL_BIND) the range [p, p + len) to node alone. Returns 0 or -errno. */
static int bind_to_node(void *p, size_t len, int node)
{
    unsigned long mask[NB_MAX_NODES / (8 * sizeof(unsigned long)) + 1] = { 0 };
    size_t bits = 8 * sizeof(unsigned long);
    if ((size_t)node >= sizeof mask * 8)
        return -EINVAL;
    mask[(size_t)node / bits] |= 1ul << ((size_t)node % bits);
    return mbind(p, len, MPOL_BIND, mask, sizeof mask * 8 + 1, 0) == 0 ? 0 : -errno;
}

/* Where the first touch of node n's memory runs: its PUs, or any allowed PU for a node that
 * has none of its own (memory only); MPOL_BIND decides the placement either way. */
static hwloc_const_cpuset_t touchers(hwloc_topology_t t, hwloc_obj_t n)
{
    hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(t);
    return hwloc_bitmap_intersects(n->cpuset, allowed) ? n->cpuset : allowed;
}

int nb_alloc_on_node(hwloc_topology_t t, int node, size_t bytes, unsigned nthreads, void **out)
{
    if (!t || !out || bytes == 0 || nthreads == 0 || nthreads > NB_MAX_THREADS || node < 0)
        return -EINVAL;
    if (!hwloc_topology_is_thissystem(t))
        return -EOPNOTSUPP;
    hwloc_obj_t n = hwloc_get_numanode_obj_by_os_index(t, (unsigned)node);
    if (!n)
        return -EINVAL;
    size_t len = round_to_pages(bytes);
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return -ENOMEM;
    int rc = bind_to_node(p, len, node);
    if (rc == 0)
        rc = nb_touch_parallel(t, p, len, nthreads, touchers(t, n));
    if (rc != 0) {
        munmap(p, len);
        return rc;
    }
    *out = p;
    return 0;
}

void nb_free(void *p, size_t bytes)
{
    if (p && bytes)
        munmap(p, round_to_pages(bytes));
}

int nb_page_nodes(const void *addr, size_t npages, int *status)
{
    if (!addr || !status || npages == 0 || (uintptr_t)addr % page_size())
        return -EINVAL;
    void **pages = malloc(npages * sizeof *pages);
    if (!pages)
        return -ENOMEM;
    for (size_t i = 0; i < npages; i++)
        pages[i] = (char *)addr + i * page_size();
    int rc = move_pages(0, (unsigned long)npages, pages, NULL, status, 0) == 0 ? 0 : -errno;
    free(pages);
    return rc;
}

int nb_page_node(const void *addr, int *node)
{
    if (!addr || !node)
        return -EINVAL;
    int got = -1;
    if (get_mempolicy(&got, NULL, 0, (void *)addr, MPOL_F_NODE | MPOL_F_ADDR) != 0)
        return -errno;
    *node = got;
    return 0;
}

int nb_placement(const void *addr, size_t bytes, nb_placement_t *out)
{
    if (!out || bytes == 0)
        return -EINVAL;
    size_t npages = (bytes + page_size() - 1) / page_size();
    int *status = malloc(npages * sizeof *status);
    if (!status)
        return -ENOMEM;
    int rc = nb_page_nodes(addr, npages, status);
    nb_placement_t p = { .pages = npages };
    for (size_t i = 0; rc == 0 && i < npages; i++) {
        if (status[i] < 0)
            p.unplaced++;
        else if (status[i] < NB_MAX_NODES)
            p.on_node[status[i]]++;
        else
            rc = -ERANGE;
    }
    free(status);
    if (rc == 0)
        *out = p;
    return rc;
}
