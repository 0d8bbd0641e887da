/* Lab 04 tests: the shared oracles (support.h). */
#include "support.h"
#include <errno.h>
#include <numaif.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "mm_check.h"
#include "mm_hw.h"
#include "shipped.h"
#include "topo.h"

typedef int (*source_fn)(hwloc_topology_t t, const char *arg);

static hwloc_topology_t load(source_fn source, const char *arg, size_t len)
{
    hwloc_topology_t t;
    ck_assert_int_eq(hwloc_topology_init(&t), 0);
    hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (source)
        ck_assert_msg(source(t, arg) == 0, "hwloc rejects %.40s", arg);
    else if (arg)
        ck_assert_msg(hwloc_topology_set_xmlbuffer(t, arg, (int)len) == 0, "bad shipped XML");
    ck_assert_msg(hwloc_topology_load(t) == 0, "hwloc cannot load the topology");
    return t;
}

static int synthetic(hwloc_topology_t t, const char *desc)
{
    return hwloc_topology_set_synthetic(t, desc);
}

hwloc_topology_t tu_shipped(const char *name)
{
    const nb_shipped_t *s = nb_shipped(name);
    ck_assert_msg(s != NULL, "no shipped topology %s", name);
    return load(NULL, s->xml, s->len);
}

hwloc_topology_t tu_synthetic(const char *desc)
{
    return load(synthetic, desc, 0);
}

hwloc_topology_t tu_system(void)
{
    return load(NULL, NULL, 0);
}

hwloc_topology_t tu_yours(const char *name)
{
    const nb_shipped_t *s = nb_shipped(name);
    hwloc_topology_t t = NULL;
    ck_assert_ptr_nonnull(s);
    int rc = nb_topo_load_xml_buffer(&t, s->xml, s->len);
    ck_assert_msg(rc == 0 && t != NULL, "nb_topo_load_xml_buffer(%s) returned %d (%s)", name, rc,
                  strerror(rc < 0 ? -rc : 0));
    return t;
}

hwloc_topology_t tu_yours_system(void)
{
    hwloc_topology_t t = NULL;
    int rc = nb_topo_load_system(&t);
    ck_assert_msg(rc == 0 && t != NULL, "nb_topo_load_system returned %d (%s)", rc,
                  strerror(rc < 0 ? -rc : 0));
    return t;
}

const char *tu_list(hwloc_const_bitmap_t set)
{
    static char buf[4][512];
    static unsigned next;
    char *b = buf[next++ % 4];
    if (!set)
        return "(null)";
    hwloc_bitmap_list_snprintf(b, sizeof buf[0], set);
    return b;
}

void tu_affinity(hwloc_bitmap_t out)
{
    cpu_set_t set;
    ck_assert_int_eq(sched_getaffinity(0, sizeof set, &set), 0);
    hwloc_bitmap_zero(out);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set))
            hwloc_bitmap_set(out, (unsigned)c);
}

void tu_pin(int pu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(pu, &set);
    ck_assert_msg(sched_setaffinity(0, sizeof set, &set) == 0, "cannot pin to CPU %d", pu);
}

void tu_page_status(const void *addr, size_t npages, int *status)
{
    void **pages = malloc(npages * sizeof *pages);
    ck_assert_ptr_nonnull(pages);
    for (size_t i = 0; i < npages; i++)
        pages[i] = (char *)addr + i * tu_page();
    long rc = move_pages(0, (unsigned long)npages, pages, NULL, status, 0);
    int err = errno;
    free(pages);
    ck_assert_msg(rc == 0, "move_pages failed: %s", strerror(err));
}

int tu_resident(const void *addr)
{
    unsigned char v = 0;
    void *page = (void *)((uintptr_t)addr / tu_page() * tu_page());
    ck_assert_msg(mincore(page, tu_page(), &v) == 0, "mincore failed: %s", strerror(errno));
    return v & 1;
}

char *tu_map(size_t npages)
{
    void *p = mmap(NULL, npages * tu_page(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    ck_assert_msg(p != MAP_FAILED, "mmap of %zu pages failed", npages);
    /* Where transparent huge pages are "always", touching one page would fault in the 2 MiB
     * around it, and the pages a test leaves untouched would not stay so. */
    madvise(p, npages * tu_page(), MADV_NOHUGEPAGE);
    return p;
}

void tu_unmap(char *p, size_t npages)
{
    munmap(p, npages * tu_page());
}

size_t tu_page(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

static int refused(long rc)
{
    return rc != 0 && (errno == EPERM || errno == ENOSYS || errno == EACCES);
}

/* The first call of `need` that this machine refuses, or NULL. */
static const char *first_refused(int need, char *p)
{
    void *page = p;
    int st = 0, mode = 0;
    if ((need & TU_MBIND) && refused(mbind(p, tu_page(), MPOL_DEFAULT, NULL, 0, 0)))
        return "mbind";
    if ((need & TU_GET_MEMPOLICY) && refused(get_mempolicy(&mode, NULL, 0, NULL, 0)))
        return "get_mempolicy";
    if ((need & TU_MOVE_PAGES) && refused(move_pages(0, 1, &page, NULL, &st, 0)))
        return "move_pages";
    return NULL;
}

const char *tu_refused(int need)
{
    static char why[300];
    char *p = tu_map(1);
    p[0] = 1;
    const char *call = first_refused(need, p);
    int err = errno;
    tu_unmap(p, 1);
    if (!call)
        return NULL;
    if (mm_hw_emulated())
        snprintf(why, sizeof why, "this machine refuses %s (%s): a CPU emulator (qemu-user) "
                 "runs this program and does not implement the memory-policy calls", call,
                 strerror(err));
    else
        snprintf(why, sizeof why, "this machine refuses %s (%s): in a container, the default "
                 "seccomp profile allows the memory-policy calls only with CAP_SYS_NICE, and "
                 "move_pages not at all (docker run --cap-add SYS_NICE --security-opt "
                 "seccomp=unconfined; the dev container has both)", call, strerror(err));
    return why;
}
