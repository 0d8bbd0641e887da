/* Lab 04 tests: the shared oracles and the way to your process (support.h). */
#include "support.h"
#include <errno.h>
#include <numaif.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "../serve/work04.h"
#include "mm_call.h"
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

static hwloc_topology_t there(int kind, const char *text)
{
    nb_sv_topo_in_t in = { kind, "" };
    uint64_t h = 0;
    snprintf(in.text, sizeof in.text, "%s", text ? text : "");
    int rc = mm_call_work("topo", &in, sizeof in, &h, sizeof h);
    ck_assert_msg(rc == 0 && h, "hwloc cannot load %.40s in your process (%d)", in.text, rc);
    return (hwloc_topology_t)(uintptr_t)h;
}

hwloc_topology_t tu_there_shipped(const char *name)
{
    return there(NB_SV_SHIPPED, name);
}

hwloc_topology_t tu_there_synthetic(const char *desc)
{
    return there(NB_SV_SYNTHETIC, desc);
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

int tu_is_thissystem(hwloc_topology_t t)
{
    uint64_t h = (uintptr_t)t;
    nb_sv_facts_t f;
    ck_assert_int_eq(mm_call_work("topo_facts", &h, sizeof h, &f, sizeof f), 0);
    return f.thissystem;
}

hwloc_bitmap_t tu_send(hwloc_const_bitmap_t set)
{
    nb_sv_bitmap_t b = { 0 };
    uint64_t h = 0;
    if (!set)
        return NULL;
    ck_assert(hwloc_bitmap_list_snprintf(b.list, sizeof b.list, set) < (int)sizeof b.list);
    ck_assert_int_eq(mm_call_work("bitmap", &b, sizeof b, &h, sizeof h), 0);
    return (hwloc_bitmap_t)(uintptr_t)h;
}

hwloc_bitmap_t tu_fetch(hwloc_const_bitmap_t set)
{
    uint64_t h = (uintptr_t)set;
    nb_sv_bitmap_t b;
    int rc = mm_call_work("bitmap_list", &h, sizeof h, &b, sizeof b);
    ck_assert_msg(rc == 0, "cannot read the bitmap %p of your process (%d)", (const void *)set,
                  rc);
    if (b.null)
        return NULL;
    hwloc_bitmap_t s = hwloc_bitmap_alloc();
    b.list[sizeof b.list - 1] = 0;
    ck_assert_msg(s && hwloc_bitmap_list_sscanf(s, b.list) == 0, "bad bitmap %.40s", b.list);
    return s;
}

hwloc_bitmap_t tu_allowed(void)
{
    hwloc_topology_t o = tu_system();
    hwloc_bitmap_t set = hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(o));
    hwloc_topology_destroy(o);
    ck_assert_ptr_nonnull(set);
    return set;
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
    ck_assert_msg(sched_getaffinity(mm_student_pid(), sizeof set, &set) == 0,
                  "cannot read your process's CPU affinity: %s", strerror(errno));
    hwloc_bitmap_zero(out);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set))
            hwloc_bitmap_set(out, (unsigned)c);
}

int tu_cpu(void)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)mm_student_pid());
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot read %s", path);
    size_t n = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[n] = 0;
    char *p = strrchr(line, ')'); /* then fields 3..: state is 3, the CPU 39 */
    int field = 2, cpu = -1;
    for (char *tok = p ? strtok(p + 1, " ") : NULL; tok; tok = strtok(NULL, " "))
        if (++field == 39)
            cpu = atoi(tok);
    ck_assert_msg(cpu >= 0, "no CPU in %s", path);
    return cpu;
}

char *tu_fresh(size_t npages)
{
    size_t page = tu_page();
    uintptr_t at = (uintptr_t)mm_shared_alloc((npages + 1) * page);
    char *p = (char *)((at + page - 1) / page * page);
    /* mm_shared_alloc zeroes what it hands out, which places its pages here: give them back. */
    ck_assert_msg(madvise(p, npages * page, MADV_REMOVE) == 0, "MADV_REMOVE: %s",
                  strerror(errno));
    /* Where transparent huge pages are on, touching one page would fault in the 2 MiB around
     * it, and the pages a test leaves untouched would not stay so. */
    madvise(p, npages * page, MADV_NOHUGEPAGE);
    tu_touch(p, npages, -1, NULL);
    return p;
}

void tu_touch(char *p, size_t npages, int pu, const unsigned char *what)
{
    nb_sv_pages_in_t in = { (uintptr_t)p, (uint32_t)npages, pu, { 0 } };
    ck_assert(npages <= NB_SV_MAX_PAGES);
    if (what)
        memcpy(in.what, what, npages);
    int rc = mm_call_work("pages", &in, sizeof in, NULL, 0);
    ck_assert_msg(rc == 0, "your process could not touch its pages (pinned to CPU %d): %s", pu,
                  strerror(-rc));
}

void tu_page_status(const char *p, size_t npages, int *status)
{
    for (size_t i = 0; i < npages; i++) {
        if (tu_resident(p + i * tu_page()))
            (void)((volatile const char *)p)[i * tu_page()]; /* maps the page that is there */
        tu_move_pages(p + i * tu_page(), 1, &status[i]);
    }
}

void tu_move_pages(const void *addr, size_t npages, int *status)
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
    char *p = mmap(NULL, tu_page(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert(p != MAP_FAILED);
    p[0] = 1;
    const char *call = first_refused(need, p);
    int err = errno;
    munmap(p, tu_page());
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
