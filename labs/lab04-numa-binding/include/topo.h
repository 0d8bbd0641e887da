/* Lab 04, part A: what a machine is made of, through hwloc: packages, NUMA nodes, cores, PCI
 * devices, and the NUMA node each GPU is attached to. A topology is this machine's, or another
 * machine's described by an hwloc synthetic string or an XML export (`lstopo --of xml`). */
#ifndef NB_TOPO_H
#define NB_TOPO_H
#include <hwloc.h>
#include <stddef.h>

/* Each loader creates a topology that keeps the important PCI devices, bridges and OS devices
 * (I/O type filter HWLOC_TYPE_FILTER_KEEP_IMPORTANT: without it hwloc drops every PCI device),
 * loads it, and sets *out. Free it with hwloc_topology_destroy. On failure *out is untouched and
 * nothing is leaked. All return 0 on success and -EINVAL if out or the description is NULL. */

/* This machine, as the OS reports it. Returns 0, or the negative errno hwloc reports. */
int nb_topo_load_system(hwloc_topology_t *out);

/* A synthetic topology such as "pack:2 numa:1 core:4 pu:2" (it has no PCI devices).
 * Returns 0; -EINVAL for a description hwloc rejects. */
int nb_topo_load_synthetic(hwloc_topology_t *out, const char *desc);

/* An XML export read from the file at `path`. Returns 0;
 *   -ENOENT: there is no such file;
 *   -EINVAL: it is not an hwloc XML topology;
 *   another negative errno hwloc reports. */
int nb_topo_load_xml(hwloc_topology_t *out, const char *path);

/* An XML export held in memory: `len` bytes at `xml` (a terminating NUL is not counted and not
 * needed). Returns 0; -EINVAL if len is 0 or the text is not an hwloc XML topology. */
int nb_topo_load_xml_buffer(hwloc_topology_t *out, const char *xml, size_t len);

typedef struct {
    unsigned packages, numa_nodes, cores, pus;
    unsigned pci_devices; /* PCI devices the topology kept (bridges not counted) */
    unsigned gpus;        /* those of them nb_pci_is_gpu() accepts */
} nb_counts_t;

/* Counts the objects of topology t into *out. Returns 0, or -EINVAL if t or out is NULL. */
int nb_topo_counts(hwloc_topology_t t, nb_counts_t *out);

/* Whether a PCI function with this vendor id and class id (class << 8 | subclass, as hwloc's
 * attr->pcidev.class_id) is a GPU: a display controller (class 0x03, any subclass: VGA 0x0300,
 * 3D 0x0302, other 0x0380) from NVIDIA (0x10de), AMD (0x1002) or Intel (0x8086). A server's
 * management VGA (e.g. ASPEED 0x1a03) is not; nor is a GPU's audio or USB function. */
int nb_pci_is_gpu(unsigned vendor, unsigned class_id);

/* The NUMA node a PCI object is attached to: the nodeset of its nearest non-I/O ancestor
 * (hwloc_get_non_io_ancestor_obj). Returns that node's OS index when the nodeset holds exactly
 * one node; -1 when it holds several (the topology does not say: e.g. a VM whose devices hang
 * off the whole machine) or none;
 *   -EINVAL: t or pci is NULL or pci is not a PCI device. */
int nb_gpu_node(hwloc_topology_t t, hwloc_obj_t pci);

#define NB_BUSID_LEN 16

typedef struct {
    char busid[NB_BUSID_LEN]; /* "dddd:bb:dd.f", lower-case hex, e.g. "0000:1b:00.0" */
    unsigned vendor, device;  /* PCI ids, e.g. 0x10de, 0x2330 */
    unsigned class_id;        /* e.g. 0x0302 */
    int node;                 /* nb_gpu_node() of the device: an OS index, or -1 */
} nb_gpu_t;

/* Writes the GPUs of topology t (nb_pci_is_gpu) into out[0..), in hwloc's PCI order
 * (hwloc_get_next_pcidev). Returns how many;
 *   -EINVAL: t is NULL, or out is NULL while max > 0;
 *   -ERANGE: the topology has more than max GPUs. */
int nb_topo_gpus(hwloc_topology_t t, nb_gpu_t *out, unsigned max);

#endif
