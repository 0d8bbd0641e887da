/* Lab 04: the shipped topologies (include/shipped.h). Not yours to edit. Each XML file of
 * topologies/ is copied into the program at build time, followed by a NUL (common/mm_embed.h);
 * lab.mk says where the folder is (NB_TOPO_DIR). */
#include "shipped.h"
#include "mm_embed.h"
#include <pthread.h>
#include <string.h>

#ifndef NB_TOPO_DIR
#error "NB_TOPO_DIR is not set: build with the project's make (labs/lab04-numa-binding/lab.mk)"
#endif

MM_EMBED(nb_xml_two_socket, NB_TOPO_DIR "/two-socket-8gpu.xml");
MM_EMBED(nb_xml_epyc, NB_TOPO_DIR "/epyc-nps4-4gpu.xml");
MM_EMBED(nb_xml_laptop, NB_TOPO_DIR "/laptop-1node.xml");
MM_EMBED(nb_xml_cloud_vm, NB_TOPO_DIR "/cloud-vm-2node.xml");

enum { NSHIPPED = 4 };
static nb_shipped_t shipped[NSHIPPED];
static pthread_once_t filled = PTHREAD_ONCE_INIT;

static nb_shipped_t entry(const char *name, const char *about, const char *start,
                          const char *end)
{
    return (nb_shipped_t){ name, about, start, (size_t)(end - start) - 1 };
}

static void fill(void)
{
    shipped[0] = entry("two-socket-8gpu", "2 x Xeon Platinum 8480C, 1 NUMA node per socket, "
                       "8 H100 GPUs (4 per socket)", nb_xml_two_socket, nb_xml_two_socket_end);
    shipped[1] = entry("epyc-nps4-4gpu", "1 x EPYC 9654 in NPS4 (4 NUMA nodes), 4 MI210 GPUs "
                       "on nodes 1, 1, 2, 3", nb_xml_epyc, nb_xml_epyc_end);
    shipped[2] = entry("laptop-1node", "Ryzen 7 7840HS laptop, 1 NUMA node, integrated Radeon "
                       "780M + RTX 4060 Laptop", nb_xml_laptop, nb_xml_laptop_end);
    shipped[3] = entry("cloud-vm-2node", "cloud VM, 2 virtual NUMA nodes, 2 A100 GPUs whose "
                       "node the hypervisor does not tell", nb_xml_cloud_vm, nb_xml_cloud_vm_end);
}

const nb_shipped_t *nb_shipped_at(unsigned k)
{
    pthread_once(&filled, fill);
    return k < NSHIPPED ? &shipped[k] : NULL;
}

const nb_shipped_t *nb_shipped(const char *name)
{
    for (unsigned k = 0; name && k < NSHIPPED; k++)
        if (strcmp(nb_shipped_at(k)->name, name) == 0)
            return &shipped[k];
    return NULL;
}
