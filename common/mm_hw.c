/* Hardware queries through hwloc (see mm_hw.h). */
#include "mm_hw.h"
#include <errno.h>
#include <hwloc.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static hwloc_topology_t topo;
static int topo_ok;
static pthread_once_t topo_once = PTHREAD_ONCE_INIT;

static void topo_load(void)
{
    if (hwloc_topology_init(&topo) != 0)
        return;
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        return;
    }
    topo_ok = 1;
}

static int topo_get(void)
{
    pthread_once(&topo_once, topo_load);
    return topo_ok;
}

static int is_data_cache(hwloc_obj_t o)
{
    return hwloc_obj_type_is_dcache(o->type) &&
           o->attr->cache.type != HWLOC_OBJ_CACHE_INSTRUCTION;
}

int mm_hw_caches(mm_cache_t *out, int max)
{
    if (!topo_get())
        return -1;
    hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, 0);
    int n = 0;
    for (hwloc_obj_t o = pu ? pu->parent : NULL; o && n < max; o = o->parent) {
        if (!is_data_cache(o))
            continue;
        out[n].level = o->attr->cache.depth;
        out[n].size = (size_t)o->attr->cache.size;
        out[n].line = o->attr->cache.linesize;
        out[n].ways = o->attr->cache.associativity;
        n++;
    }
    return n;
}

/* The cpuset of the first `cores` cores (or PUs, where hwloc shows no cores); the caller frees. */
static hwloc_bitmap_t first_cores(unsigned cores)
{
    hwloc_bitmap_t used = hwloc_bitmap_alloc();
    int by_core = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) > 0;
    for (unsigned k = 0; used && k < cores; k++) {
        hwloc_obj_t c = hwloc_get_obj_by_type(topo, by_core ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU, k);
        if (!c)
            break;
        hwloc_bitmap_or(used, used, c->cpuset);
    }
    return used;
}

size_t mm_hw_cache_bytes(unsigned cores)
{
    size_t sum = 0;
    hwloc_bitmap_t used = topo_get() ? first_cores(cores) : NULL;
    if (!used)
        return 0;
    for (int t = HWLOC_OBJ_L1CACHE; t <= HWLOC_OBJ_L5CACHE; t++)
        for (hwloc_obj_t o = NULL; (o = hwloc_get_next_obj_by_type(topo, (hwloc_obj_type_t)t, o));)
            if (is_data_cache(o) && hwloc_bitmap_intersects(o->cpuset, used))
                sum += (size_t)o->attr->cache.size;
    hwloc_bitmap_free(used);
    return sum;
}

static int plausible_line(size_t line)
{
    return line >= 8 && (line & (line - 1)) == 0;
}

size_t mm_hw_line_size_from(mm_line_source_t *from)
{
    mm_line_source_t src = MM_LINE_HWLOC;
    mm_cache_t c[MM_HW_MAX_CACHES];
    int n = mm_hw_caches(c, MM_HW_MAX_CACHES);
    size_t line = n > 0 ? c[0].line : 0;
    if (!plausible_line(line)) {
        long s = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
        src = MM_LINE_SYSCONF;
        line = s > 0 ? (size_t)s : 0;
    }
    if (!plausible_line(line)) {
        src = MM_LINE_ASSUMED;
        line = MM_HW_ASSUMED_LINE;
    }
    if (from)
        *from = src;
    return line;
}

size_t mm_hw_line_size(void)
{
    return mm_hw_line_size_from(NULL);
}

const char *mm_hw_line_source_name(mm_line_source_t from)
{
    switch (from) {
    case MM_LINE_HWLOC:
        return "hwloc";
    case MM_LINE_SYSCONF:
        return "sysconf";
    case MM_LINE_ASSUMED:
        break;
    }
    return "assumed";
}

static unsigned count_type(hwloc_obj_type_t t)
{
    if (!topo_get())
        return 1;
    int n = hwloc_get_nbobjs_by_type(topo, t);
    return n > 0 ? (unsigned)n : 1;
}

unsigned mm_hw_cores(void) { return count_type(HWLOC_OBJ_CORE); }
unsigned mm_hw_pus(void) { return count_type(HWLOC_OBJ_PU); }
unsigned mm_hw_numa_nodes(void) { return count_type(HWLOC_OBJ_NUMANODE); }

static int gpu_numa_node(hwloc_obj_t pci)
{
    hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, pci);
    if (!anc || !anc->nodeset || hwloc_bitmap_iszero(anc->nodeset))
        return -1;
    if (hwloc_bitmap_weight(anc->nodeset) != 1 || anc == hwloc_get_root_obj(topo))
        return hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE) == 1 ? 0 : -1;
    return hwloc_bitmap_first(anc->nodeset);
}

static int is_gpu(hwloc_obj_t o)
{
    unsigned cls = o->attr->pcidev.class_id >> 8, v = o->attr->pcidev.vendor_id;
    return cls == 0x03 && (v == 0x10de || v == 0x1002 || v == 0x8086);
}

int mm_hw_gpus(mm_gpu_pci_t *out, int max)
{
    if (!topo_get())
        return -1;
    int n = 0;
    for (hwloc_obj_t o = hwloc_get_next_pcidev(topo, NULL); o && n < max;
         o = hwloc_get_next_pcidev(topo, o)) {
        if (!is_gpu(o))
            continue;
        struct hwloc_pcidev_attr_s *a = &o->attr->pcidev;
        snprintf(out[n].bdf, sizeof out[n].bdf, "%04x:%02x:%02x.%01x", a->domain, a->bus,
                 a->dev, a->func);
        out[n].vendor = a->vendor_id;
        out[n].device = a->device_id;
        out[n].numa_node = gpu_numa_node(o);
        n++;
    }
    return n;
}

int mm_hw_pin_to_core(unsigned k)
{
    if (!topo_get())
        return -ENOSYS;
    hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, k % mm_hw_cores());
    if (!core)
        core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, k % mm_hw_pus());
    if (!core)
        return -ENODEV;
    hwloc_bitmap_t set = hwloc_bitmap_dup(core->cpuset);
    hwloc_bitmap_singlify(set); /* one PU of the core: no migration between its threads */
    int rc = hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD);
    hwloc_bitmap_free(set);
    return rc == 0 ? 0 : -errno;
}

static int first_pin_error; /* mm_hw_try_pin's first failure (-errno), 0 before any */

void mm_hw_try_pin(unsigned k)
{
    int rc = mm_hw_pin_to_core(k);
    int none = 0;
    if (rc != 0)
        __atomic_compare_exchange_n(&first_pin_error, &none, rc, 0, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED);
}

int mm_hw_pin_failed(void)
{
    return __atomic_load_n(&first_pin_error, __ATOMIC_RELAXED);
}

int mm_hw_unpin(void)
{
    if (!topo_get())
        return -ENOSYS;
    hwloc_const_cpuset_t all = hwloc_topology_get_allowed_cpuset(topo);
    return hwloc_set_cpubind(topo, all, HWLOC_CPUBIND_THREAD) == 0 ? 0 : -errno;
}

/* The architecture this program was built for, as the kernel names it ("" where not listed). */
#if defined(__x86_64__)
#define MM_HW_ARCH "x86_64"
#elif defined(__aarch64__)
#define MM_HW_ARCH "aarch64"
#else
#define MM_HW_ARCH ""
#endif

int mm_hw_emulated(void)
{
    char arch[32] = "";
    FILE *f = fopen("/proc/sys/kernel/arch", "r");
    if (!f)
        return 0;
    int got = fscanf(f, "%31s", arch) == 1;
    fclose(f);
    return got && MM_HW_ARCH[0] != '\0' && strcmp(arch, MM_HW_ARCH) != 0;
}
