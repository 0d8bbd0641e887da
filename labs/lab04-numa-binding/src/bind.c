/* Lab 04, part C: bind the calling thread, on this machine only (contract in include/bind.h). */
#include "bind.h"
#include <errno.h>

/* ===== YOUR CODE HERE: static helpers (hwloc_topology_is_thissystem) ===== */
/* ===== END YOUR CODE ===== */

int nb_bind_thread(hwloc_topology_t t, hwloc_const_cpuset_t set)
{
    /* ===== YOUR CODE HERE =====
     * Intersect set with hwloc_topology_get_allowed_cpuset(t) in a bitmap of your own
     * (hwloc_bitmap_alloc / hwloc_bitmap_and), then hwloc_set_cpubind(t, it,
     * HWLOC_CPUBIND_THREAD): without the flag hwloc binds the whole process. */
    (void)t, (void)set;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int nb_bind_thread_to_node(hwloc_topology_t t, int node)
{
    /* ===== YOUR CODE HERE ===== */
    (void)t, (void)node;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int nb_thread_binding(hwloc_topology_t t, hwloc_cpuset_t out)
{
    /* ===== YOUR CODE HERE: hwloc_get_cpubind ===== */
    (void)t, (void)out;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int nb_unbind_thread(hwloc_topology_t t)
{
    /* ===== YOUR CODE HERE ===== */
    (void)t;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}
