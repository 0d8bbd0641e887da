/* Lab 04 tests, part A: loading topologies, counting what they hold, finding GPUs and their
 * NUMA nodes, on synthetic strings, the shipped XML servers and this machine. Topologies your
 * code loads stay in your process (handles here; each test has a fresh process). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../serve/work04.h"
#include "mm_call.h"
#include "mm_check.h"
#include "shipped.h"
#include "support.h"
#include "topo.h"

static void assert_counts(const char *what, const nb_counts_t *got, const nb_counts_t *want)
{
    ck_assert_msg(got->packages == want->packages && got->numa_nodes == want->numa_nodes &&
                      got->cores == want->cores && got->pus == want->pus,
                  "%s: %u packages, %u NUMA nodes, %u cores, %u PUs; expected %u, %u, %u, %u",
                  what, got->packages, got->numa_nodes, got->cores, got->pus, want->packages,
                  want->numa_nodes, want->cores, want->pus);
    ck_assert_msg(got->pci_devices == want->pci_devices,
                  "%s: %u PCI devices, expected %u (no PCI devices at all? hwloc drops them "
                  "unless the I/O type filter keeps them)", what, got->pci_devices,
                  want->pci_devices);
    ck_assert_msg(got->gpus == want->gpus, "%s: %u GPUs, expected %u", what, got->gpus,
                  want->gpus);
}

static void check_shipped(const char *name, nb_counts_t want)
{
    hwloc_topology_t t = tu_yours(name);
    nb_counts_t got;
    MM_ASSERT_OK(nb_topo_counts(t, &got));
    assert_counts(name, &got, &want);
    ck_assert_msg(!tu_is_thissystem(t), "%s is another machine's topology", name);
}

MM_TEST(test_load_synthetic_counts)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 12; round++) {
        unsigned p = (unsigned)mm_rng_range(&r, 1, 4), n = (unsigned)mm_rng_range(&r, 1, 4);
        unsigned c = (unsigned)mm_rng_range(&r, 1, 8), u = (unsigned)mm_rng_range(&r, 1, 4);
        char desc[64];
        snprintf(desc, sizeof desc, "pack:%u numa:%u core:%u pu:%u", p, n, c, u);
        hwloc_topology_t t = NULL;
        nb_counts_t got, want = { p, p * n, p * n * c, p * n * c * u, 0, 0 };
        MM_ASSERT_OK(nb_topo_load_synthetic(&t, desc));
        MM_ASSERT_OK(nb_topo_counts(t, &got));
        assert_counts(desc, &got, &want);
    }
}
MM_END_TEST

MM_TEST(test_load_system_matches_hwloc)
{
    hwloc_topology_t t = NULL, oracle = tu_system();
    MM_ASSERT_OK(nb_topo_load_system(&t));
    ck_assert_msg(tu_is_thissystem(t), "this machine's topology must say it is");
    nb_counts_t got, want = {
        (unsigned)hwloc_get_nbobjs_by_type(oracle, HWLOC_OBJ_PACKAGE),
        (unsigned)hwloc_get_nbobjs_by_type(oracle, HWLOC_OBJ_NUMANODE),
        (unsigned)hwloc_get_nbobjs_by_type(oracle, HWLOC_OBJ_CORE),
        (unsigned)hwloc_get_nbobjs_by_type(oracle, HWLOC_OBJ_PU),
        (unsigned)hwloc_get_nbobjs_by_type(oracle, HWLOC_OBJ_PCI_DEVICE), 0 };
    for (hwloc_obj_t o = hwloc_get_next_pcidev(oracle, NULL); o;
         o = hwloc_get_next_pcidev(oracle, o))
        want.gpus += (o->attr->pcidev.class_id >> 8) == 3 &&
                     (o->attr->pcidev.vendor_id == 0x10de || o->attr->pcidev.vendor_id == 0x1002 ||
                      o->attr->pcidev.vendor_id == 0x8086);
    MM_ASSERT_OK(nb_topo_counts(t, &got));
    assert_counts("this machine", &got, &want);
    hwloc_topology_destroy(oracle);
}
MM_END_TEST

MM_TEST(test_load_xml_two_socket)
{
    check_shipped("two-socket-8gpu", (nb_counts_t){ 2, 2, 112, 224, 19, 8 });
}
MM_END_TEST

MM_TEST(test_load_xml_epyc_nps4)
{
    check_shipped("epyc-nps4-4gpu", (nb_counts_t){ 1, 4, 96, 192, 8, 4 });
}
MM_END_TEST

MM_TEST(test_load_xml_laptop_and_vm)
{
    check_shipped("laptop-1node", (nb_counts_t){ 1, 1, 8, 16, 4, 2 });
    check_shipped("cloud-vm-2node", (nb_counts_t){ 2, 2, 12, 24, 3, 2 });
}
MM_END_TEST

/* Writes `text` to file `name` in your process's working folder (where your code can read it:
 * the grader gives this program another); returns its path (free it). */
static char *temp_file(const char *name, const char *text, size_t len)
{
    nb_sv_file_in_t *in = malloc(sizeof *in + len);
    char *path = malloc(3200);
    ck_assert(in && path);
    snprintf(in->name, sizeof in->name, "%s", name);
    in->len = len;
    memcpy(in->data, text, len);
    int rc = mm_call_work("write_file", in, sizeof *in + len, path, 3200);
    ck_assert_msg(rc == 0, "cannot write %s in your process's folder: %s", name, strerror(-rc));
    free(in);
    return path;
}

MM_TEST(test_load_xml_file)
{
    const nb_shipped_t *s = nb_shipped("epyc-nps4-4gpu");
    char *xml = temp_file("nb_topo.xml", s->xml, s->len);
    char *junk = temp_file("nb_junk.xml", "not a topology\n", 15);
    hwloc_topology_t t = NULL;
    nb_counts_t got, want = { 1, 4, 96, 192, 8, 4 };
    int rc = nb_topo_load_xml(&t, xml), bad = nb_topo_load_xml(&t, junk);
    /* Not left in the folder your process runs in (`make lab04`'s; the grader's is removed). */
    ck_assert_int_eq(mm_call_work("remove_file", "nb_topo.xml", sizeof "nb_topo.xml", NULL, 0), 0);
    ck_assert_int_eq(mm_call_work("remove_file", "nb_junk.xml", sizeof "nb_junk.xml", NULL, 0), 0);
    ck_assert_msg(rc == 0, "nb_topo_load_xml(a file holding the NPS4 server) returned %d (%s)",
                  rc, strerror(rc < 0 ? -rc : 0));
    MM_ASSERT_OK(nb_topo_counts(t, &got));
    assert_counts("the NPS4 server read from a file", &got, &want);
    ck_assert_msg(bad == -EINVAL, "a file that is not XML must give -EINVAL, got %d", bad);
    MM_ASSERT_ERR(nb_topo_load_xml(&t, "/nonexistent/lab04/topology.xml"), -ENOENT);
    free(xml);
    free(junk);
}
MM_END_TEST

MM_TEST(test_load_bad_args)
{
    hwloc_topology_t t = (hwloc_topology_t)&t; /* a sentinel: failures must leave it alone */
    const char junk[] = "<topology version=\"2.0\"><object type=";
    MM_ASSERT_ERR(nb_topo_load_system(NULL), -EINVAL);
    MM_ASSERT_ERR(nb_topo_load_synthetic(NULL, "pack:2 core:2"), -EINVAL);
    MM_ASSERT_ERR(nb_topo_load_synthetic(&t, NULL), -EINVAL);
    MM_ASSERT_ERR(nb_topo_load_synthetic(&t, "pack:0 core:2"), -EINVAL);
    MM_ASSERT_ERR(nb_topo_load_synthetic(&t, "banana:3"), -EINVAL);
    MM_ASSERT_ERR(nb_topo_load_xml(&t, NULL), -EINVAL);
    MM_ASSERT_ERR(nb_topo_load_xml_buffer(&t, junk, 0), -EINVAL);
    MM_ASSERT_ERR(nb_topo_load_xml_buffer(&t, junk, sizeof junk - 1), -EINVAL);
    MM_ASSERT_ERR(nb_topo_load_xml_buffer(NULL, junk, sizeof junk - 1), -EINVAL);
    ck_assert_msg(t == (hwloc_topology_t)&t, "a failed load must not set *out");
    nb_counts_t c;
    MM_ASSERT_ERR(nb_topo_counts(NULL, &c), -EINVAL);
}
MM_END_TEST

MM_TEST(test_pci_is_gpu)
{
    struct { unsigned vendor, class_id; int gpu; const char *what; } cases[] = {
        { 0x10de, 0x0302, 1, "NVIDIA 3D controller (H100, A100)" },
        { 0x10de, 0x0300, 1, "NVIDIA VGA controller (GeForce)" },
        { 0x1002, 0x0380, 1, "AMD display controller (Instinct MI210)" },
        { 0x8086, 0x0300, 1, "Intel VGA controller" },
        { 0x1a03, 0x0300, 0, "ASPEED VGA (a server's management display)" },
        { 0x10de, 0x0403, 0, "NVIDIA HDMI audio function" },
        { 0x10de, 0x0c03, 0, "NVIDIA USB controller function" },
        { 0x15b3, 0x0207, 0, "Mellanox InfiniBand NIC" },
        { 0x144d, 0x0108, 0, "Samsung NVMe SSD" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(!!nb_pci_is_gpu(cases[i].vendor, cases[i].class_id) == cases[i].gpu,
                      "%s [%04x, class %04x] %s a GPU", cases[i].what, cases[i].vendor,
                      cases[i].class_id, cases[i].gpu ? "is" : "is not");
}
MM_END_TEST

/* An object of topology t of your process (a handle): the PCI device at `busid` (e.g.
 * "1b:00.0"), or the index-th core when busid is NULL. */
static hwloc_obj_t obj_of(hwloc_topology_t t, const char *busid, unsigned index)
{
    nb_sv_obj_in_t in = { (uintptr_t)t, busid != NULL, index, "" };
    uint64_t h = 0;
    snprintf(in.busid, sizeof in.busid, "%s", busid ? busid : "");
    ck_assert_msg(mm_call_work("obj", &in, sizeof in, &h, sizeof h) == 0,
                  "no PCI device %s in the shipped topology", busid ? busid : "(core)");
    return (hwloc_obj_t)(uintptr_t)h;
}

/* nb_gpu_node of the PCI device at `busid` of topology t (loaded by hwloc in your process). */
static int node_of(hwloc_topology_t t, const char *busid)
{
    return nb_gpu_node(t, obj_of(t, busid, 0));
}

MM_TEST(test_gpu_node_two_socket)
{
    hwloc_topology_t t = tu_there_shipped("two-socket-8gpu");
    const char *dev[] = { "1b:00.0", "43:00.0", "52:00.0", "61:00.0", "18:00.0", "03:00.0",
                          "9d:00.0", "c3:00.0", "d1:00.0", "df:00.0", "dc:00.0", "a1:00.0" };
    for (int i = 0; i < 12; i++)
        ck_assert_msg(node_of(t, dev[i]) == i / 6, "PCI %s hangs off socket %d's host bridges: "
                      "node %d, got %d", dev[i], i / 6, i / 6, node_of(t, dev[i]));
    MM_ASSERT_ERR(nb_gpu_node(t, NULL), -EINVAL);
    MM_ASSERT_ERR(nb_gpu_node(t, obj_of(t, NULL, 0)), -EINVAL);
}
MM_END_TEST

MM_TEST(test_gpu_node_nps4_laptop_vm)
{
    hwloc_topology_t t = tu_there_shipped("epyc-nps4-4gpu");
    const char *dev[] = { "43:00.0", "63:00.0", "83:00.0", "c3:00.0", "02:00.0", "e1:00.0" };
    int want[] = { 1, 1, 2, 3, 0, 3 };
    for (int i = 0; i < 6; i++)
        ck_assert_msg(node_of(t, dev[i]) == want[i], "NPS4: PCI %s is on node %d, got %d",
                      dev[i], want[i], node_of(t, dev[i]));
    t = tu_there_shipped("laptop-1node");
    ck_assert_msg(node_of(t, "c4:00.0") == 0, "a one-node machine: every device is on node 0");
    t = tu_there_shipped("cloud-vm-2node");
    ck_assert_msg(node_of(t, "00:04.0") == -1, "the VM's GPU hangs off the whole machine "
                  "(2 nodes): its node is unknown, -1, got %d", node_of(t, "00:04.0"));
}
MM_END_TEST

static void check_gpus(const char *name, unsigned n, const char *const *busid, unsigned vendor,
                       unsigned device, unsigned class_id, const int *node)
{
    hwloc_topology_t t = tu_yours(name);
    nb_gpu_t g[16];
    int got = nb_topo_gpus(t, g, 16);
    ck_assert_msg(got == (int)n, "%s: nb_topo_gpus returned %d, expected %u GPUs", name, got, n);
    for (unsigned i = 0; i < n; i++) {
        ck_assert_msg(strcmp(g[i].busid, busid[i]) == 0, "%s: GPU %u is %s, expected %s", name,
                      i, g[i].busid, busid[i]);
        ck_assert_msg(g[i].vendor == vendor && g[i].device == device && g[i].class_id == class_id,
                      "%s: GPU %u ids %04x:%04x class %04x, expected %04x:%04x class %04x", name,
                      i, g[i].vendor, g[i].device, g[i].class_id, vendor, device, class_id);
        ck_assert_msg(g[i].node == node[i], "%s: GPU %u (%s) on node %d, expected %d", name, i,
                      busid[i], g[i].node, node[i]);
    }
}

MM_TEST(test_gpus_two_socket)
{
    const char *bus[] = { "0000:1b:00.0", "0000:43:00.0", "0000:52:00.0", "0000:61:00.0",
                          "0000:9d:00.0", "0000:c3:00.0", "0000:d1:00.0", "0000:df:00.0" };
    int node[] = { 0, 0, 0, 0, 1, 1, 1, 1 };
    check_gpus("two-socket-8gpu", 8, bus, 0x10de, 0x2330, 0x0302, node);
}
MM_END_TEST

MM_TEST(test_gpus_epyc_nps4)
{
    const char *bus[] = { "0000:43:00.0", "0000:63:00.0", "0000:83:00.0", "0000:c3:00.0" };
    int node[] = { 1, 1, 2, 3 };
    check_gpus("epyc-nps4-4gpu", 4, bus, 0x1002, 0x740f, 0x0380, node);
}
MM_END_TEST

MM_TEST(test_gpus_limits)
{
    hwloc_topology_t t = tu_yours("two-socket-8gpu");
    hwloc_topology_t s = tu_there_synthetic("pack:2 numa:1 core:2 pu:1");
    nb_gpu_t g[8];
    MM_ASSERT_ERR(nb_topo_gpus(t, g, 7), -ERANGE);
    MM_ASSERT_ERR(nb_topo_gpus(t, g, 8), 8);
    MM_ASSERT_ERR(nb_topo_gpus(NULL, g, 8), -EINVAL);
    MM_ASSERT_ERR(nb_topo_gpus(t, NULL, 8), -EINVAL);
    MM_ASSERT_ERR(nb_topo_gpus(s, NULL, 0), 0);
    MM_ASSERT_ERR(nb_topo_gpus(s, g, 8), 0);
}
MM_END_TEST
