/* `make hwinfo`: what this machine offers the labs — cores, caches and line size, NUMA nodes,
 * GPUs (PCI, NUMA node, CUDA). `hwinfo --json` prints the same facts for the grader. */
#include <numa.h>
#include <stdio.h>
#include <string.h>
#include "mm_hw.h"
#ifdef MM_HAVE_CUDA
#include <cuda_runtime_api.h>
#include "mm_cuda_check.h"
#endif

typedef struct {
    unsigned cores, pus, nodes;
    int libnuma_nodes; /* numa_max_node()+1, or 0 if libnuma says NUMA is unavailable */
    int ncache, ngpu, cuda_devices;
    mm_cache_t caches[MM_HW_MAX_CACHES];
    mm_gpu_pci_t gpus[MM_HW_MAX_GPUS];
    char cuda_status[400];
    char cuda_toolkit[16], cuda_driver[16]; /* "13.0"; the CUDA version the driver supports, or "" */
    const char *cuda_min_driver;            /* the oldest NVIDIA driver this toolkit runs on */
} facts_t;

#ifdef MM_HAVE_CUDA
/* The oldest NVIDIA driver branch a toolkit of this major version runs on (NVIDIA's release
 * notes: minor-version compatibility within a major version). */
static const char *min_driver(int cuda_major)
{
    switch (cuda_major) {
    case 11: return "450.80.02";
    case 12: return "525.60.13";
    case 13: return "580";
    default: return "see the toolkit's release notes";
    }
}

static void cuda_versions(facts_t *f)
{
    int rt = CUDART_VERSION, drv = 0;
    snprintf(f->cuda_toolkit, sizeof f->cuda_toolkit, "%d.%d", rt / 1000, rt % 1000 / 10);
    f->cuda_min_driver = min_driver(rt / 1000);
    if (cudaDriverGetVersion(&drv) == cudaSuccess && drv > 0)
        snprintf(f->cuda_driver, sizeof f->cuda_driver, "%d.%d", drv / 1000, drv % 1000 / 10);
    (void)cudaGetLastError();
}
#endif

/* CUDA devices this process can use: it creates a context on device 0, as the labs do, so a GPU
 * that is listed but unusable (busy in exclusive-process mode, driver too old) counts as none. */
static void cuda_facts(facts_t *f)
{
#ifdef MM_HAVE_CUDA
    char why[300];
    cuda_versions(f);
    f->cuda_devices = mm_cuda_usable(why, sizeof why);
    struct cudaDeviceProp p;
    if (f->cuda_devices > 0 && cudaGetDeviceProperties(&p, 0) == cudaSuccess)
        snprintf(f->cuda_status, sizeof f->cuda_status, "%d device(s); device 0: %s, compute "
                 "capability %d.%d", f->cuda_devices, p.name, p.major, p.minor);
    else if (f->cuda_devices > 0)
        snprintf(f->cuda_status, sizeof f->cuda_status, "%d device(s)", f->cuda_devices);
    else
        snprintf(f->cuda_status, sizeof f->cuda_status, "no usable GPU (%s)", why);
    (void)cudaGetLastError();
#else
    f->cuda_devices = 0;
    f->cuda_min_driver = "";
    snprintf(f->cuda_status, sizeof f->cuda_status,
             "not built with CUDA (no nvcc found, or it cannot compile here)");
#endif
}

static void gather(facts_t *f)
{
    memset(f, 0, sizeof *f);
    f->cores = mm_hw_cores();
    f->pus = mm_hw_pus();
    f->nodes = mm_hw_numa_nodes();
    f->libnuma_nodes = numa_available() < 0 ? 0 : numa_max_node() + 1;
    f->ncache = mm_hw_caches(f->caches, MM_HW_MAX_CACHES);
    f->ngpu = mm_hw_gpus(f->gpus, MM_HW_MAX_GPUS);
    cuda_facts(f);
}

static void print_json(const facts_t *f)
{
    mm_line_source_t from;
    size_t line = mm_hw_line_size_from(&from);
    printf("{\"cores\": %u, \"pus\": %u, \"numa_nodes\": %u, \"libnuma_nodes\": %d, "
           "\"line_size\": %zu, \"line_size_from\": \"%s\", \"caches\": [",
           f->cores, f->pus, f->nodes, f->libnuma_nodes, line, mm_hw_line_source_name(from));
    for (int i = 0; i < f->ncache; i++)
        printf("%s{\"level\": %u, \"size\": %zu, \"line\": %zu, \"ways\": %d}", i ? ", " : "",
               f->caches[i].level, f->caches[i].size, f->caches[i].line, f->caches[i].ways);
    printf("], \"pci_gpus\": [");
    for (int i = 0; i < f->ngpu; i++)
        printf("%s{\"bdf\": \"%s\", \"vendor\": %u, \"numa_node\": %d}", i ? ", " : "",
               f->gpus[i].bdf, f->gpus[i].vendor, f->gpus[i].numa_node);
    printf("], \"cuda_devices\": %d, \"cuda_status\": \"%s\", \"cuda_toolkit\": \"%s\", "
           "\"cuda_driver\": \"%s\", \"cuda_min_driver\": \"%s\"}\n", f->cuda_devices,
           f->cuda_status, f->cuda_toolkit, f->cuda_driver, f->cuda_min_driver);
}

static void print_human(const facts_t *f)
{
    printf("cores           %u physical, %u hardware threads\n", f->cores, f->pus);
    mm_line_source_t from;
    size_t line = mm_hw_line_size_from(&from);
    if (from == MM_LINE_ASSUMED)
        printf("cache line      %zu bytes (assumed: neither hwloc nor sysconf reports it)\n", line);
    else if (from == MM_LINE_SYSCONF)
        printf("cache line      %zu bytes (from sysconf, unconfirmed: the smallest data-cache line "
               "the CPU reports, which can be under the coherency line; the kernel's sysfs "
               "does not say)\n", line);
    else
        printf("cache line      %zu bytes (from %s)\n", line, mm_hw_line_source_name(from));
    for (int i = 0; i < f->ncache; i++)
        printf("L%u cache        %zu KiB, %zu-byte lines, %d-way\n", f->caches[i].level,
               f->caches[i].size / 1024, f->caches[i].line, f->caches[i].ways);
    printf("NUMA nodes      %u (hwloc), %d (libnuma)%s\n", f->nodes, f->libnuma_nodes,
           f->nodes < 2 ? "  -> lab 04's NUMA measurements will be skipped" : "");
    for (int i = 0; i < f->ngpu; i++)
        printf("PCI GPU         %s vendor %04x device %04x, NUMA node %d\n", f->gpus[i].bdf,
               f->gpus[i].vendor, f->gpus[i].device, f->gpus[i].numa_node);
    printf("CUDA            %s\n", f->cuda_status);
    if (f->cuda_toolkit[0])
        printf("CUDA toolkit    %s, needs an NVIDIA driver >= %s; %s%s\n", f->cuda_toolkit,
               f->cuda_min_driver, f->cuda_driver[0] ? "this machine's driver supports CUDA " :
               "no NVIDIA driver found", f->cuda_driver);
}

int main(int argc, char **argv)
{
    facts_t f;
    gather(&f);
    if (argc > 1 && strcmp(argv[1], "--json") == 0)
        print_json(&f);
    else
        print_human(&f);
    return 0;
}
