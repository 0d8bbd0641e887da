/* Lab 04's workloads (calls.toml's [[workload]]; layouts in work04.h): what the tests and the
 * benchmark need done inside the student process, where your code runs: topologies and bitmaps
 * made there for your functions to take, pages touched there, threads that bind themselves with
 * your code, the benchmark's memory work on your binding. Public code; what it returns is data
 * the harness checks (placement in shared memory and thread affinity it checks itself). */
#include <errno.h>
#include <hwloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "bind.h"
#include "mm_serve.h"
#include "shipped.h"
#include "work04.h"

#define HANDLE(p) ((uint64_t)(uintptr_t)(p))
#define PTR(h) ((void *)(uintptr_t)(h))

/* Contract of every serve_*: reads in[0..in_len) as its work04.h input, writes its output to
 * out[0..out_len), returns 0 or a negative errno (-EINVAL when the sizes do not match). */

int serve_topo(const void *in, size_t in_len, void *out, size_t out_len)
{
    const nb_sv_topo_in_t *a = in;
    hwloc_topology_t t;
    if (in_len != sizeof *a || out_len != sizeof(uint64_t) || hwloc_topology_init(&t) != 0)
        return -EINVAL;
    hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    char text[sizeof a->text];
    snprintf(text, sizeof text, "%s", a->text);
    const nb_shipped_t *s = a->kind == NB_SV_SHIPPED ? nb_shipped(text) : NULL;
    int rc = a->kind == NB_SV_SYNTHETIC ? hwloc_topology_set_synthetic(t, text)
             : a->kind == NB_SV_SHIPPED ? (s ? hwloc_topology_set_xmlbuffer(t, s->xml, (int)s->len)
                                             : -1)
                                        : 0;
    if (rc != 0 || hwloc_topology_load(t) != 0) {
        hwloc_topology_destroy(t);
        return -EINVAL;
    }
    uint64_t h = HANDLE(t);
    memcpy(out, &h, sizeof h);
    return 0;
}

int serve_topo_facts(const void *in, size_t in_len, void *out, size_t out_len)
{
    uint64_t h;
    if (in_len != sizeof h || out_len != sizeof(nb_sv_facts_t))
        return -EINVAL;
    memcpy(&h, in, sizeof h);
    nb_sv_facts_t f = { hwloc_topology_is_thissystem(PTR(h)) };
    memcpy(out, &f, sizeof f);
    return 0;
}

int serve_obj(const void *in, size_t in_len, void *out, size_t out_len)
{
    const nb_sv_obj_in_t *a = in;
    unsigned bus, dev, fn;
    hwloc_obj_t o = NULL;
    if (in_len != sizeof *a || out_len != sizeof(uint64_t))
        return -EINVAL;
    if (!a->pci)
        o = hwloc_get_obj_by_type(PTR(a->topo), HWLOC_OBJ_CORE, a->index);
    else if (sscanf(a->busid, "%x:%x.%x", &bus, &dev, &fn) == 3)
        o = hwloc_get_pcidev_by_busid(PTR(a->topo), 0, bus, dev, fn);
    uint64_t h = HANDLE(o);
    memcpy(out, &h, sizeof h);
    return o ? 0 : -ENOENT;
}

int serve_bitmap(const void *in, size_t in_len, void *out, size_t out_len)
{
    nb_sv_bitmap_t b;
    if (in_len != sizeof b || out_len != sizeof(uint64_t))
        return -EINVAL;
    memcpy(&b, in, sizeof b);
    b.list[sizeof b.list - 1] = 0;
    hwloc_bitmap_t s = hwloc_bitmap_alloc();
    if (!s || hwloc_bitmap_list_sscanf(s, b.list) != 0) {
        hwloc_bitmap_free(s);
        return -EINVAL;
    }
    uint64_t h = HANDLE(s);
    memcpy(out, &h, sizeof h);
    return 0;
}

int serve_bitmap_list(const void *in, size_t in_len, void *out, size_t out_len)
{
    nb_sv_bitmap_t b = { 0 };
    if (in_len != sizeof b.handle || out_len != sizeof b)
        return -EINVAL;
    memcpy(&b.handle, in, sizeof b.handle);
    b.null = b.handle == 0;
    if (!b.null && hwloc_bitmap_list_snprintf(b.list, sizeof b.list, PTR(b.handle)) < 0)
        return -EINVAL;
    memcpy(out, &b, sizeof b);
    return 0;
}

int serve_pages(const void *in, size_t in_len, void *out, size_t out_len)
{
    const nb_sv_pages_in_t *a = in;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    (void)out;
    if (in_len != sizeof *a || out_len != 0 || a->npages > NB_SV_MAX_PAGES)
        return -EINVAL;
    volatile char *p = PTR(a->addr);
    if (madvise(PTR(a->addr), a->npages * page, MADV_NOHUGEPAGE) != 0)
        return -errno;
    if (a->cpu >= 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(a->cpu, &one);
        if (sched_setaffinity(0, sizeof one, &one) != 0)
            return -errno;
    }
    for (size_t i = 0; i < a->npages; i++) {
        if (a->what[i] == 1)
            memset((char *)PTR(a->addr) + i * page, 7, page);
        else if (a->what[i] == 2)
            (void)p[i * page];
    }
    return 0;
}

/* A worker of worker_bind: binds itself with your code, then lets the harness look at it. */
static void *bind_and_show(void *arg)
{
    const nb_sv_worker_in_t *a = arg;
    int rc = nb_bind_thread(PTR(a->topo), PTR(a->set));
    int32_t tid = (int32_t)syscall(SYS_gettid);
    if (mm_serve_callback("nb.bound", &tid, sizeof tid, NULL, 0) != 0)
        rc = -EPIPE;
    return (void *)(intptr_t)rc;
}

int serve_worker_bind(const void *in, size_t in_len, void *out, size_t out_len)
{
    nb_sv_worker_in_t a;
    pthread_t th;
    void *rc;
    if (in_len != sizeof a || out_len != sizeof(int32_t))
        return -EINVAL;
    memcpy(&a, in, sizeof a);
    if (pthread_create(&th, NULL, bind_and_show, &a) != 0)
        return -EAGAIN;
    pthread_join(th, &rc);
    int32_t r = (int32_t)(intptr_t)rc;
    memcpy(out, &r, sizeof r);
    return 0;
}

int serve_write_file(const void *in, size_t in_len, void *out, size_t out_len)
{
    const nb_sv_file_in_t *a = in;
    char name[sizeof a->name], dir[3000];
    if (in_len < sizeof *a || a->len != in_len - sizeof *a || out_len < 2 ||
        !getcwd(dir, sizeof dir))
        return -EINVAL;
    snprintf(name, sizeof name, "%s", a->name);
    if (strchr(name, '/') || (size_t)snprintf(out, out_len, "%s/%s", dir, name) >= out_len)
        return -EINVAL;
    FILE *f = fopen(out, "w");
    if (!f)
        return -errno;
    size_t put = fwrite(a->data, 1, a->len, f);
    return fclose(f) == 0 && put == a->len ? 0 : -EIO;
}

int serve_remove_file(const void *in, size_t in_len, void *out, size_t out_len)
{
    char name[64];
    (void)out;
    if (in_len == 0 || in_len > sizeof name || out_len != 0)
        return -EINVAL;
    memcpy(name, in, in_len);
    name[in_len - 1] = 0;
    if (!name[0] || strchr(name, '/'))
        return -EINVAL;
    return unlink(name) == 0 ? 0 : -errno;
}

/* ---- the benchmark's side of "yours": your binding, the same kernels as the harness's ---- */

int serve_cycle(const void *in, size_t in_len, void *out, size_t out_len)
{
    const nb_sv_bench_in_t *a = in;
    (void)out;
    if (in_len != sizeof *a || out_len != 0)
        return -EINVAL;
    return nb_build_cycle(PTR(a->buf), a->bytes, a->seed) == 0 ? 0 : -ENOMEM;
}

int serve_chase(const void *in, size_t in_len, void *out, size_t out_len)
{
    const nb_sv_bench_in_t *a = in;
    nb_sv_bench_out_t r = { 0 };
    if (in_len != sizeof *a || out_len != sizeof r)
        return -EINVAL;
    r.failed = nb_bind_thread_to_node(PTR(a->topo), a->node) != 0;
    r.at = nb_chase(PTR(a->buf), a->at, a->steps);
    memcpy(out, &r, sizeof r);
    return 0;
}

typedef struct {
    const nb_sv_bench_in_t *a;
    unsigned w;
    int failed;
    uint64_t sink;
} member_t;

static void *member(void *arg)
{
    member_t *m = arg;
    char *win = (char *)PTR(m->a->buf) + m->a->win;
    m->failed = (m->a->where ? nb_bind_thread(PTR(m->a->topo), PTR(m->a->where))
                             : nb_bind_thread_to_node(PTR(m->a->topo), m->a->node)) != 0;
    if (m->a->kind == NB_WORK_READ)
        m->sink = nb_read_slice(win, m->a->n, m->w);
    else
        nb_collate_slice(win, m->a->n, m->w);
    return NULL;
}

int serve_team(const void *in, size_t in_len, void *out, size_t out_len)
{
    nb_sv_bench_in_t a;
    nb_sv_bench_out_t r = { 0 };
    pthread_t th[NB_MAX_WORKERS];
    member_t m[NB_MAX_WORKERS];
    unsigned started = 0;
    if (in_len != sizeof a || out_len != sizeof r)
        return -EINVAL;
    memcpy(&a, in, sizeof a);
    if (a.n == 0 || a.n > NB_MAX_WORKERS)
        return -EINVAL;
    for (unsigned w = 0; w < a.n; w++) {
        m[w] = (member_t){ &a, w, 0, 0 };
        if (pthread_create(&th[w], NULL, member, &m[w]) != 0)
            break;
        started++;
    }
    for (unsigned w = 0; w < started; w++) {
        pthread_join(th[w], NULL);
        r.failed |= m[w].failed;
        r.sink += m[w].sink;
    }
    r.failed |= started != a.n;
    memcpy(out, &r, sizeof r);
    return 0;
}
