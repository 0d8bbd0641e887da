/* Lab 04, part C: bind the calling thread, on this machine only (contract in include/bind.h). */
#include "bind.h"
#include <errno.h>

static int this_machine(hwloc_topology_t t)
{
    if (!t)
        return -EINVAL;
    return hwloc_topology_is_thissystem(t) ? 0 : -EOPNOTSUPP;
}

int nb_bind_thread(hwloc_topology_t t, hwloc_const_cpuset_t set)
{
    int rc = this_machine(t);
    if (rc != 0 || !set)
        return rc ? rc : -EINVAL;
    hwloc_bitmap_t use = hwloc_bitmap_alloc();
    if (!use)
        return -ENOMEM;
    hwloc_bitmap_and(use, set, hwloc_topology_get_allowed_cpuset(t));
    if (hwloc_bitmap_iszero(use))
        rc = -EINVAL;
    else if (hwloc_set_cpubind(t, use, HWLOC_CPUBIND_THREAD) != 0)
        rc = -errno;
    hwloc_bitmap_free(use);
    return rc;
}

int nb_bind_thread_to_node(hwloc_topology_t t, int node)
{
    int rc = this_machine(t);
    if (rc != 0)
        return rc;
    hwloc_obj_t n = node < 0 ? NULL : hwloc_get_numanode_obj_by_os_index(t, (unsigned)node);
    return n ? nb_bind_thread(t, n->cpuset) : -EINVAL;
}

int nb_thread_binding(hwloc_topology_t t, hwloc_cpuset_t out)
{
    int rc = this_machine(t);
    if (rc != 0 || !out)
        return rc ? rc : -EINVAL;
    return hwloc_get_cpubind(t, out, HWLOC_CPUBIND_THREAD) == 0 ? 0 : -errno;
}

int nb_unbind_thread(hwloc_topology_t t)
{
    int rc = this_machine(t);
    if (rc != 0)
        return rc;
    hwloc_const_cpuset_t all = hwloc_topology_get_allowed_cpuset(t);
    return hwloc_set_cpubind(t, all, HWLOC_CPUBIND_THREAD) == 0 ? 0 : -errno;
}
