/* Lab 04, part A: load a topology and find its GPUs and their NUMA nodes (contract in
 * include/topo.h). Background and hints: labs/lab04-numa-binding/README.md, `make hint LAB=04`. */
#include "topo.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>

/* ===== YOUR CODE HERE: static helpers (one loader shared by the four nb_topo_load_*?) =====
 * The order hwloc wants: hwloc_topology_init, hwloc_topology_set_io_types_filter(t,
 * HWLOC_TYPE_FILTER_KEEP_IMPORTANT), the source (set_synthetic / set_xml / set_xmlbuffer; none
 * for this machine), hwloc_topology_load; hwloc_topology_destroy on any failure. */
/* ===== END YOUR CODE ===== */

int nb_topo_load_system(hwloc_topology_t *out)
{
    /* ===== YOUR CODE HERE ===== */
    (void)out;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int nb_topo_load_synthetic(hwloc_topology_t *out, const char *desc)
{
    /* ===== YOUR CODE HERE ===== */
    (void)out, (void)desc;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int nb_topo_load_xml(hwloc_topology_t *out, const char *path)
{
    /* ===== YOUR CODE HERE: hwloc_topology_set_xml fails with errno set (ENOENT, ...) ===== */
    (void)out, (void)path;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int nb_topo_load_xml_buffer(hwloc_topology_t *out, const char *xml, size_t len)
{
    /* ===== YOUR CODE HERE: hwloc_topology_set_xmlbuffer takes an int size ===== */
    (void)out, (void)xml, (void)len;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int nb_topo_counts(hwloc_topology_t t, nb_counts_t *out)
{
    /* ===== YOUR CODE HERE: hwloc_get_nbobjs_by_type; walk hwloc_get_next_pcidev for GPUs ===== */
    (void)t, (void)out;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int nb_pci_is_gpu(unsigned vendor, unsigned class_id)
{
    /* ===== YOUR CODE HERE ===== */
    (void)vendor, (void)class_id;
    return 0;
    /* ===== END YOUR CODE ===== */
}

int nb_gpu_node(hwloc_topology_t t, hwloc_obj_t pci)
{
    /* ===== YOUR CODE HERE: hwloc_get_non_io_ancestor_obj, then its nodeset ===== */
    (void)t, (void)pci;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int nb_topo_gpus(hwloc_topology_t t, nb_gpu_t *out, unsigned max)
{
    /* ===== YOUR CODE HERE: o->attr->pcidev holds domain, bus, dev, func and the ids ===== */
    (void)t, (void)out, (void)max;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}
