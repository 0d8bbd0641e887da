/* Lab 04 tests, part D: first touch, node-local allocation and the placement report. The memory
 * a test places is shared with your process, and touched there (by your code, or by the pages
 * workload on a CPU the test picks); each page is checked against move_pages(2) called here, on
 * this process's mapping of the same page. What nb_alloc_on_node maps is your process's own:
 * its pages are read from your process's /proc files (numa_maps.h). Written for any number of
 * NUMA nodes: on a one-node machine every placed page must be on node 0. What these tests hold
 * on every kernel (README §2.8): a page written is on the writer's node; shared memory (shmem)
 * has no zero page, so a page only read gets a page, and a node, of its own; a page never
 * touched has none: a negative status, -ENOENT for shmem on every kernel (private anonymous
 * memory says -EFAULT up to Linux 6.11, -ENOENT from 6.12; its read pages, the zero page,
 * -EFAULT, or a node on a kernel without a zero page). So a status is compared with
 * move_pages' own here, never with a fixed errno. */
#include <errno.h>
#include <numa.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../serve/work04.h"
#include "mm_call.h"
#include "mm_check.h"
#include "numa_maps.h"
#include "place.h"
#include "support.h"
#include "topo.h"

/* A random CPU your process may run on. */
static int pick_cpu(mm_rng_t *r)
{
    hwloc_bitmap_t now = hwloc_bitmap_alloc();
    tu_affinity(now);
    int k = (int)mm_rng_range(r, 0, (uint64_t)hwloc_bitmap_weight(now) - 1);
    int pu = hwloc_bitmap_first(now);
    while (k-- > 0)
        pu = hwloc_bitmap_next(now, pu);
    hwloc_bitmap_free(now);
    return pu;
}

MM_TEST(test_untouched_pages_enoent)
{
    TU_NEED(TU_MOVE_PAGES);
    enum { N = 16 };
    mm_rng_t r = MM_RNG();
    char *p = tu_fresh(N);
    int st[N], oracle[N];
    unsigned char what[N] = { 0 };
    for (int i = 0; i < N; i++)
        st[i] = 12345;
    tu_page_status(p, N, oracle);
    MM_ASSERT_OK(nb_page_nodes(p, N, st));
    for (int i = 0; i < N; i++)
        ck_assert_msg(st[i] == oracle[i] && st[i] < 0, "page %d was never touched: move_pages "
                      "here says %d (-ENOENT, or -EFAULT on older kernels), you report %d", i,
                      oracle[i], st[i]);
    int cpu = pick_cpu(&r), node = numa_node_of_cpu(cpu);
    for (int i = 0; i < N; i += 2)
        what[i] = 1;
    what[1] = 2; /* page 1: read, never written */
    tu_touch(p, N, cpu, what);
    MM_ASSERT_OK(nb_page_nodes(p, N, st));
    tu_page_status(p, N, oracle);
    for (int i = 0; i < N; i++)
        ck_assert_msg(st[i] == oracle[i], "page %d: you report %d, move_pages says %d", i, st[i],
                      oracle[i]);
    for (int i = 0; i < N; i += 2)
        ck_assert_msg(st[i] == node, "page %d was first written on node %d, reported %d", i,
                      node, st[i]);
    ck_assert_msg(st[3] < 0 && st[5] < 0, "a page never touched has no node: got %d and %d",
                  st[3], st[5]);
    ck_assert_msg(st[1] >= 0, "page 1 was only read: shared memory has no zero page, so the read "
                  "gave it a page of its own, with a node; you report %d", st[1]);
}
MM_END_TEST

MM_TEST(test_pages_follow_the_writer)
{
    TU_NEED(TU_MOVE_PAGES);
    mm_rng_t r = MM_RNG();
    unsigned char all[64];
    memset(all, 1, sizeof all);
    for (int round = 0; round < 4; round++) {
        size_t n = (size_t)mm_rng_range(&r, 1, 64);
        int cpu = pick_cpu(&r), node = numa_node_of_cpu(cpu), st[64];
        char *p = tu_fresh(n);
        tu_touch(p, n, cpu, all);
        MM_ASSERT_OK(nb_page_nodes(p, n, st));
        for (size_t i = 0; i < n; i++)
            ck_assert_msg(st[i] == node, "first written from CPU %d (node %d), page %zu is "
                          "reported on %d", cpu, node, i, st[i]);
    }
}
MM_END_TEST

MM_TEST(test_touch_parallel_covers_every_page)
{
    TU_NEED(TU_MOVE_PAGES);
    hwloc_topology_t t = tu_yours_system();
    hwloc_bitmap_t before = hwloc_bitmap_alloc(), after = hwloc_bitmap_alloc();
    hwloc_bitmap_t allowed = tu_allowed(), where = tu_send(allowed);
    tu_affinity(before);
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 10; round++) {
        size_t n = (size_t)mm_rng_range(&r, 1, 300), rem = (size_t)mm_rng_range(&r, 1, tu_page());
        unsigned threads = (unsigned)mm_rng_range(&r, 1, 8);
        char *p = tu_fresh(n + 1);
        memset(p, 0xaa, n * tu_page()); /* so that a zero byte shows a page was written */
        MM_ASSERT_OK(nb_touch_parallel(t, p, (n - 1) * tu_page() + rem, threads, where));
        for (size_t i = 0; i < n; i++)
            ck_assert_msg(memchr(p + i * tu_page(), 0, tu_page()) != NULL, "%zu pages (the last "
                          "one partial), %u threads: page %zu was not written", n, threads, i);
        ck_assert_msg(!tu_resident(p + n * tu_page()), "%zu pages, %u threads: the page after "
                      "the range was touched", n, threads);
    }
    tu_affinity(after);
    ck_assert_msg(hwloc_bitmap_isequal(before, after), "the caller's binding changed from %s to "
                  "%s: the touching threads must bind themselves", tu_list(before),
                  tu_list(after));
    hwloc_bitmap_free(before);
    hwloc_bitmap_free(after);
    hwloc_bitmap_free(allowed);
}
MM_END_TEST

MM_TEST(test_touch_parallel_follows_where)
{
    TU_NEED(TU_MOVE_PAGES);
    enum { N = 64 };
    hwloc_topology_t t = tu_yours_system(), oracle = tu_system();
    hwloc_bitmap_t where = hwloc_bitmap_alloc();
    int st[N];
    for (hwloc_obj_t n = NULL; (n = hwloc_get_next_obj_by_type(oracle, HWLOC_OBJ_NUMANODE, n));) {
        hwloc_bitmap_and(where, n->cpuset, hwloc_topology_get_allowed_cpuset(oracle));
        if (hwloc_bitmap_iszero(where))
            continue; /* memory only: no CPU to touch from */
        char *p = tu_fresh(N);
        MM_ASSERT_OK(nb_touch_parallel(t, p, N * tu_page(), 4, tu_send(where)));
        tu_page_status(p, N, st);
        for (int i = 0; i < N; i++)
            ck_assert_msg(st[i] == (int)n->os_index, "touched from node %u's CPUs %s, page %d "
                          "is on %d", n->os_index, tu_list(where), i, st[i]);
    }
    hwloc_bitmap_free(where);
    hwloc_topology_destroy(oracle);
}
MM_END_TEST

MM_TEST(test_touch_parallel_bad_args)
{
    TU_NEED(TU_MOVE_PAGES);
    hwloc_topology_t t = tu_yours_system(), xml = tu_there_shipped("laptop-1node");
    hwloc_bitmap_t allowed = tu_allowed(), empty = hwloc_bitmap_alloc();
    hwloc_bitmap_t far4000 = hwloc_bitmap_alloc();
    hwloc_bitmap_only(far4000, 4000);
    hwloc_bitmap_t all = tu_send(allowed), none = tu_send(empty), far = tu_send(far4000);
    char *p = tu_fresh(4);
    size_t b = 4 * tu_page();
    MM_ASSERT_ERR(nb_touch_parallel(t, NULL, b, 2, all), -EINVAL);
    MM_ASSERT_ERR(nb_touch_parallel(t, p + 1, b - 1, 2, all), -EINVAL);
    MM_ASSERT_ERR(nb_touch_parallel(t, p, 0, 2, all), -EINVAL);
    MM_ASSERT_ERR(nb_touch_parallel(t, p, b, 0, all), -EINVAL);
    MM_ASSERT_ERR(nb_touch_parallel(t, p, b, NB_MAX_THREADS + 1, all), -EINVAL);
    MM_ASSERT_ERR(nb_touch_parallel(t, p, b, 2, NULL), -EINVAL);
    MM_ASSERT_ERR(nb_touch_parallel(t, p, b, 2, none), -EINVAL);
    MM_ASSERT_ERR(nb_touch_parallel(t, p, b, 2, far), -EINVAL);
    MM_ASSERT_ERR(nb_touch_parallel(xml, p, b, 2, all), -EOPNOTSUPP);
    for (int i = 0; i < 4; i++)
        ck_assert_msg(!tu_resident(p + (size_t)i * tu_page()), "a rejected call touched page %d",
                      i);
    hwloc_bitmap_free(allowed);
    hwloc_bitmap_free(empty);
    hwloc_bitmap_free(far4000);
}
MM_END_TEST

/* The memory your nb_alloc_on_node gave is private to your process, so where its pages are is
 * read here from outside it, in the kernel's files about your process (numa_maps.h): every page
 * of the range present (pagemap), and numa_maps' count of pages on the node, in the mappings
 * that hold the range, less the present pages of those mappings outside it, at least the
 * range's page count; that proves every page of the range has a page frame of its own on the
 * node. Then its bytes, read through mm_peek (after, since a read faults absent pages in). */
static void check_on_node(void *p, size_t bytes, int node)
{
    nm_seen_t s;
    int rc = nm_read(mm_student_pid(), p, bytes, node, &s);
    ck_assert_msg(rc == 0, "cannot read where your process's pages are (/proc/<pid>/maps, "
                  "numa_maps, pagemap): %s", strerror(-rc));
    ck_assert_msg(s.present == s.pages, "nb_alloc_on_node(node %d, %zu bytes): %zu of %zu pages "
                  "present (pagemap): every page must be touched before it returns", node, bytes,
                  s.present, s.pages);
    ck_assert_msg(nm_proven(&s) >= s.pages, "nb_alloc_on_node(node %d, %zu bytes): the mappings "
                  "holding its %zu pages have %zu pages on node %d and %zu elsewhere "
                  "(numa_maps), %zu present around the range: not every page is on node %d "
                  "(a page only read is the shared zero page, on no node)", node, bytes, s.pages,
                  s.on_node, node, s.elsewhere, s.around, node);
    unsigned char *got = malloc(bytes);
    ck_assert_ptr_nonnull(got);
    ck_assert_msg(mm_peek(p, got, bytes) == 0, "the %zu bytes at %p are not readable", bytes, p);
    size_t nonzero = 0;
    for (size_t i = 0; i < bytes; i++)
        nonzero += got[i] != 0;
    free(got);
    ck_assert_msg(nonzero == 0, "new memory must read zero (%zu bytes do not)", nonzero);
}

MM_TEST(test_alloc_on_node)
{
    TU_NEED(TU_MBIND);
    hwloc_topology_t t = tu_yours_system(), oracle = tu_system();
    mm_rng_t r = MM_RNG();
    for (hwloc_obj_t n = NULL; (n = hwloc_get_next_obj_by_type(oracle, HWLOC_OBJ_NUMANODE, n));) {
        size_t bytes = (size_t)mm_rng_range(&r, 1, 4 << 20);
        unsigned threads = (unsigned)mm_rng_range(&r, 1, 4);
        void *p = NULL;
        int rc = nb_alloc_on_node(t, (int)n->os_index, bytes, threads, &p);
        ck_assert_msg(rc == 0 && p, "nb_alloc_on_node(node %u, %zu bytes, %u threads) returned "
                      "%d (%s)", n->os_index, bytes, threads, rc, strerror(rc < 0 ? -rc : 0));
        ck_assert_msg((uintptr_t)p % tu_page() == 0, "%p is not page-aligned", p);
        check_on_node(p, bytes, (int)n->os_index);
        char *fill = malloc(bytes);
        ck_assert_ptr_nonnull(fill);
        memset(fill, 0x5a, bytes);
        ck_assert_msg(mm_poke(p, fill, bytes) == 0, "the %zu bytes at %p are not writable",
                      bytes, p);
        free(fill);
        nb_free(p, bytes);
    }
    nb_free(NULL, 0);
    hwloc_topology_destroy(oracle);
}
MM_END_TEST

MM_TEST(test_alloc_bad_args)
{
    hwloc_topology_t t = tu_yours_system(), xml = tu_there_shipped("laptop-1node");
    void *p = &p; /* a sentinel: failures must leave it alone */
    int missing = numa_max_node() + 1;
    MM_ASSERT_ERR(nb_alloc_on_node(t, 0, 4096, 1, NULL), -EINVAL);
    MM_ASSERT_ERR(nb_alloc_on_node(t, 0, 0, 1, &p), -EINVAL);
    MM_ASSERT_ERR(nb_alloc_on_node(t, 0, 4096, 0, &p), -EINVAL);
    MM_ASSERT_ERR(nb_alloc_on_node(t, 0, 4096, NB_MAX_THREADS + 1, &p), -EINVAL);
    MM_ASSERT_ERR(nb_alloc_on_node(t, -1, 4096, 1, &p), -EINVAL);
    ck_assert_msg(nb_alloc_on_node(t, missing, 4096, 1, &p) == -EINVAL,
                  "node %d does not exist here: -EINVAL (libnuma's numa_alloc_onnode would "
                  "only print a warning and hand out memory from anywhere)", missing);
    MM_ASSERT_ERR(nb_alloc_on_node(xml, 0, 4096, 1, &p), -EOPNOTSUPP);
    ck_assert_msg(p == &p, "a failed allocation must not set *out");
}
MM_END_TEST

MM_TEST(test_placement_counts)
{
    TU_NEED(TU_MOVE_PAGES);
    mm_rng_t r = MM_RNG();
    size_t n = (size_t)mm_rng_range(&r, 8, 200), touched = 0;
    size_t bytes = n * tu_page() - (size_t)mm_rng_range(&r, 0, tu_page() - 1);
    int cpu = pick_cpu(&r), node = numa_node_of_cpu(cpu);
    char *p = tu_fresh(n);
    unsigned char what[200] = { 0 };
    for (size_t i = 0; i < n; i++)
        if (mm_rng_range(&r, 0, 1)) {
            what[i] = 1;
            touched++;
        }
    tu_touch(p, n, cpu, what);
    nb_placement_t got;
    memset(&got, 0xff, sizeof got);
    MM_ASSERT_OK(nb_placement(p, bytes, &got));
    ck_assert_msg(got.pages == n && got.unplaced == n - touched, "%zu bytes: %zu pages, %zu "
                  "unplaced; expected %zu and %zu", bytes, got.pages, got.unplaced, n,
                  n - touched);
    for (int k = 0; k < NB_MAX_NODES; k++)
        ck_assert_msg(got.on_node[k] == (k == node ? touched : 0), "on_node[%d] = %zu, expected "
                      "%zu", k, got.on_node[k], k == node ? touched : 0);
}
MM_END_TEST

MM_TEST(test_page_node_policy)
{
    TU_NEED(TU_GET_MEMPOLICY | TU_MOVE_PAGES);
    mm_rng_t r = MM_RNG();
    char *p = tu_fresh(8);
    int cpu = pick_cpu(&r), node = numa_node_of_cpu(cpu), got = -7;
    unsigned char what[8] = { 1, 1, 1, 1 };
    tu_touch(p, 8, cpu, what);
    for (size_t i = 0; i < 4; i++) {
        MM_ASSERT_OK(nb_page_node(p + i * tu_page() + 123, &got));
        ck_assert_msg(got == node, "page %zu was written on node %d, get_mempolicy gives %d", i,
                      node, got);
    }
    MM_ASSERT_OK(nb_page_node(p + 6 * tu_page(), &got));
    ck_assert_msg(got >= 0, "even an untouched page gets a node from get_mempolicy, got %d", got);
    ck_assert_msg(tu_resident(p + 6 * tu_page()) && !tu_resident(p + 7 * tu_page()),
                  "asking get_mempolicy about page 6 faulted it in (mincore sees it); page 7 was "
                  "left alone");
    MM_ASSERT_ERR(nb_page_node(NULL, &got), -EINVAL);
    MM_ASSERT_ERR(nb_page_node(p, NULL), -EINVAL);
}
MM_END_TEST

MM_TEST(test_page_nodes_bad_args)
{
    char *p = tu_fresh(2);
    int st[2];
    nb_placement_t out;
    MM_ASSERT_ERR(nb_page_nodes(NULL, 1, st), -EINVAL);
    MM_ASSERT_ERR(nb_page_nodes(p + 8, 1, st), -EINVAL);
    MM_ASSERT_ERR(nb_page_nodes(p, 0, st), -EINVAL);
    MM_ASSERT_ERR(nb_page_nodes(p, 1, NULL), -EINVAL);
    MM_ASSERT_ERR(nb_placement(p, tu_page(), NULL), -EINVAL);
    MM_ASSERT_ERR(nb_placement(p, 0, &out), -EINVAL);
    MM_ASSERT_ERR(nb_placement(p + 8, tu_page(), &out), -EINVAL);
}
MM_END_TEST
