/* Lab 04, part A: load a topology and find its GPUs and their NUMA nodes (contract in
 * include/topo.h). Background and hints: labs/lab04-numa-binding/README.md, `make hint LAB=04`. */
#include "topo.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>

/* How a loader points hwloc at its source, between init and load. */
typedef int (*source_fn)(hwloc_topology_t t, const void *arg, size_t len);

static int load(hwloc_topology_t *out, source_fn source, const void *arg, size_t len)
{
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) != 0)
        return -ENOMEM;
    int rc = hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    errno = 0;
    if (rc == 0 && source)
        rc = source(t, arg, len);
    if (rc == 0) {
        errno = 0;
        rc = hwloc_topology_load(t) == 0 ? 0 : -(errno ? errno : EINVAL);
    }
    if (rc != 0) {
        hwloc_topology_destroy(t);
        return rc;
    }
    *out = t;
    return 0;
}

static int from_synthetic(hwloc_topology_t t, const void *desc, size_t len)
{
    (void)len;
    return hwloc_topology_set_synthetic(t, desc) == 0 ? 0 : -EINVAL;
}

static int from_xml_file(hwloc_topology_t t, const void *path, size_t len)
{
    (void)len;
    return hwloc_topology_set_xml(t, path) == 0 ? 0 : -(errno ? errno : EINVAL);
}

static int from_xml_buffer(hwloc_topology_t t, const void *xml, size_t len)
{
    return hwloc_topology_set_xmlbuffer(t, xml, (int)len) == 0 ? 0 : -EINVAL;
}

int nb_topo_load_system(hwloc_topology_t *out)
{
    return out ? load(out, NULL, NULL, 0) : -EINVAL;
}

int nb_topo_load_synthetic(hwloc_topology_t *out, const char *desc)
{
    return out && desc ? load(out, from_synthetic, desc, 0) : -EINVAL;
}

int nb_topo_load_xml(hwloc_topology_t *out, const char *path)
{
    return out && path ? load(out, from_xml_file, path, 0) : -EINVAL;
}

int nb_topo_load_xml_buffer(hwloc_topology_t *out, const char *xml, size_t len)
{
    if (!out || !xml || len == 0 || len > INT_MAX)
        return -EINVAL;
    return load(out, from_xml_buffer, xml, len);
}

static unsigned count(hwloc_topology_t t, hwloc_obj_type_t type)
{
    int n = hwloc_get_nbobjs_by_type(t, type);
    return n > 0 ? (unsigned)n : 0;
}

int nb_topo_counts(hwloc_topology_t t, nb_counts_t *out)
{
    if (!t || !out)
        return -EINVAL;
    *out = (nb_counts_t){ count(t, HWLOC_OBJ_PACKAGE), count(t, HWLOC_OBJ_NUMANODE),
                          count(t, HWLOC_OBJ_CORE), count(t, HWLOC_OBJ_PU),
                          count(t, HWLOC_OBJ_PCI_DEVICE), 0 };
    for (hwloc_obj_t o = hwloc_get_next_pcidev(t, NULL); o; o = hwloc_get_next_pcidev(t, o))
        out->gpus += (unsigned)nb_pci_is_gpu(o->attr->pcidev.vendor_id, o->attr->pcidev.class_id);
    return 0;
}

int nb_pci_is_gpu(unsigned vendor, unsigned class_id)
{
    int display = (class_id >> 8) == 0x03;
    return display && (vendor == 0x10de || vendor == 0x1002 || vendor == 0x8086);
}

int nb_gpu_node(hwloc_topology_t t, hwloc_obj_t pci)
{
    if (!t || !pci || pci->type != HWLOC_OBJ_PCI_DEVICE)
        return -EINVAL;
    hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(t, pci);
    if (!anc || !anc->nodeset || hwloc_bitmap_weight(anc->nodeset) != 1)
        return -1;
    return hwloc_bitmap_first(anc->nodeset);
}

static nb_gpu_t describe(hwloc_topology_t t, hwloc_obj_t o)
{
    const struct hwloc_pcidev_attr_s *a = &o->attr->pcidev;
    nb_gpu_t g = { .vendor = a->vendor_id, .device = a->device_id, .class_id = a->class_id,
                   .node = nb_gpu_node(t, o) };
    snprintf(g.busid, sizeof g.busid, "%04x:%02x:%02x.%01x", a->domain, a->bus, a->dev, a->func);
    return g;
}

int nb_topo_gpus(hwloc_topology_t t, nb_gpu_t *out, unsigned max)
{
    if (!t || (!out && max > 0))
        return -EINVAL;
    unsigned n = 0;
    for (hwloc_obj_t o = hwloc_get_next_pcidev(t, NULL); o; o = hwloc_get_next_pcidev(t, o)) {
        if (!nb_pci_is_gpu(o->attr->pcidev.vendor_id, o->attr->pcidev.class_id))
            continue;
        if (n == max)
            return -ERANGE;
        out[n++] = describe(t, o);
    }
    return (int)n;
}
