/* Lab 04 tests, part B: binding plans on the shipped servers (exact answers) and on random
 * synthetic machines (the rule's invariants), and their numactl form. A plan's cpusets are
 * bitmaps of your process: each is read back (tu_fetch) and checked here. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mm_check.h"
#include "plan.h"
#include "support.h"

static nb_gpu_t gpu_on(int node)
{
    nb_gpu_t g = { "0000:00:00.0", 0x10de, 0x2330, 0x0302, node };
    return g;
}

/* PUs [a, a + n) and [b, b + n): n cores whose two hardware threads are a + i and b + i. */
static hwloc_bitmap_t two_ranges(unsigned a, unsigned b, unsigned n)
{
    hwloc_bitmap_t s = hwloc_bitmap_alloc();
    hwloc_bitmap_set_range(s, a, a + n - 1);
    hwloc_bitmap_set_range(s, b, b + n - 1);
    return s;
}

static void assert_entry(const nb_plan_t *p, unsigned i, int node, unsigned ncores,
                         hwloc_bitmap_t cpus)
{
    const nb_plan_entry_t *e = &p->gpu[i];
    ck_assert_msg(e->node == node, "GPU %u: node %d, expected %d", i, e->node, node);
    ck_assert_msg(e->ncores == ncores, "GPU %u: %u cores, expected %u", i, e->ncores, ncores);
    hwloc_bitmap_t got = tu_fetch(e->cpuset);
    ck_assert_msg(got && hwloc_bitmap_isequal(got, cpus), "GPU %u: PUs %s, expected %s", i,
                  tu_list(got), tu_list(cpus));
    hwloc_bitmap_free(got);
    hwloc_bitmap_free(cpus);
}

static void plan_on(hwloc_topology_t t, const int *node, unsigned n, unsigned reserve,
                    nb_plan_t *p)
{
    nb_gpu_t g[NB_MAX_GPUS];
    for (unsigned i = 0; i < n; i++)
        g[i] = gpu_on(node[i]);
    int rc = nb_plan_build(t, g, n, reserve, p);
    ck_assert_msg(rc == 0, "nb_plan_build returned %d (%s)", rc, strerror(rc < 0 ? -rc : 0));
    ck_assert_msg(p->n == n, "the plan has %u entries for %u GPUs", p->n, n);
}

MM_TEST(test_plan_two_socket)
{
    hwloc_topology_t t = tu_there_shipped("two-socket-8gpu");
    int node[8] = { 0, 0, 0, 0, 1, 1, 1, 1 };
    nb_plan_t p;
    plan_on(t, node, 8, 0, &p);
    for (unsigned k = 0; k < 8; k++) { /* socket s, core c: PUs 56s + c and 112 + 56s + c */
        unsigned first = 56 * (k / 4) + 14 * (k % 4);
        assert_entry(&p, k, (int)k / 4, 14, two_ranges(first, 112 + first, 14));
    }
    nb_plan_free(&p);
    ck_assert_msg(p.n == 0, "nb_plan_free must set n to 0");
}
MM_END_TEST

MM_TEST(test_plan_two_socket_reserve)
{
    hwloc_topology_t t = tu_there_shipped("two-socket-8gpu");
    int node[8] = { 0, 0, 0, 0, 1, 1, 1, 1 };
    unsigned from[5] = { 1, 14, 28, 42, 56 }; /* 55 cores after core 0: 13, 14, 14, 14 */
    nb_plan_t p;
    plan_on(t, node, 8, 1, &p);
    for (unsigned k = 0; k < 8; k++) {
        unsigned j = k % 4, base = 56 * (k / 4), n = from[j + 1] - from[j];
        assert_entry(&p, k, (int)k / 4, n, two_ranges(base + from[j], 112 + base + from[j], n));
    }
    nb_plan_free(&p);
}
MM_END_TEST

MM_TEST(test_plan_epyc_nps4)
{
    hwloc_topology_t t = tu_there_shipped("epyc-nps4-4gpu");
    int node[4] = { 1, 1, 2, 3 };
    nb_plan_t p;
    plan_on(t, node, 4, 0, &p); /* node k: cores 24k .. 24k+23, PUs c and 96 + c */
    assert_entry(&p, 0, 1, 12, two_ranges(24, 120, 12));
    assert_entry(&p, 1, 1, 12, two_ranges(36, 132, 12));
    assert_entry(&p, 2, 2, 24, two_ranges(48, 144, 24));
    assert_entry(&p, 3, 3, 24, two_ranges(72, 168, 24));
    nb_plan_free(&p);
}
MM_END_TEST

MM_TEST(test_plan_unknown_node)
{
    hwloc_topology_t vm = tu_there_shipped("cloud-vm-2node");
    hwloc_topology_t t = tu_there_shipped("two-socket-8gpu");
    int unknown[2] = { -1, -1 }, mixed[3] = { 0, -1, 0 };
    nb_plan_t p;
    plan_on(vm, unknown, 2, 0, &p);
    assert_entry(&p, 0, -1, 0, hwloc_bitmap_alloc());
    assert_entry(&p, 1, -1, 0, hwloc_bitmap_alloc());
    nb_plan_free(&p);
    plan_on(t, mixed, 3, 0, &p); /* the unbound GPU does not take a share of node 0 */
    assert_entry(&p, 0, 0, 28, two_ranges(0, 112, 28));
    assert_entry(&p, 1, -1, 0, hwloc_bitmap_alloc());
    assert_entry(&p, 2, 0, 28, two_ranges(28, 140, 28));
    nb_plan_free(&p);
}
MM_END_TEST

/* The rule of plan.h computed here: the PUs GPU i should get, or NULL if node -1. */
static hwloc_bitmap_t expected(hwloc_topology_t t, const int *node, unsigned n, unsigned i,
                               unsigned reserve, unsigned *ncores)
{
    *ncores = 0;
    if (node[i] < 0)
        return NULL;
    unsigned j = 0, m = 0, k = 0, c = 0;
    for (unsigned g = 0; g < n; g++) {
        if (node[g] == node[i]) {
            j += g < i;
            m++;
        }
    }
    hwloc_obj_t nd = hwloc_get_numanode_obj_by_os_index(t, (unsigned)node[i]), core = NULL;
    while ((core = hwloc_get_next_obj_inside_cpuset_by_type(t, nd->cpuset, HWLOC_OBJ_CORE,
                                                              core)))
        c++;
    c = c > reserve ? c - reserve : 0;
    hwloc_bitmap_t s = hwloc_bitmap_alloc();
    while ((core = hwloc_get_next_obj_inside_cpuset_by_type(t, nd->cpuset, HWLOC_OBJ_CORE,
                                                              core))) {
        if (k >= reserve + j * c / m && k < reserve + (j + 1) * c / m)
            hwloc_bitmap_or(s, s, core->cpuset), (*ncores)++;
        k++;
    }
    return s;
}

/* The cpusets of a plan's n entries, read back from your process (NULL where one is NULL). */
static void fetch_sets(const nb_plan_t *p, unsigned n, hwloc_bitmap_t *sets)
{
    for (unsigned i = 0; i < n; i++)
        sets[i] = tu_fetch(p->gpu[i].cpuset);
}

static void free_sets(hwloc_bitmap_t *sets, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        hwloc_bitmap_free(sets[i]);
}

/* The invariants any plan must keep, checked one by one so a failure says which. sets: the
 * entries' cpusets (fetch_sets); t: the oracle's topology. */
static void check_invariants(hwloc_topology_t t, const nb_plan_t *p, hwloc_bitmap_t *sets,
                             const int *node, unsigned n, unsigned reserve, const char *desc)
{
    hwloc_bitmap_t seen = hwloc_bitmap_alloc();
    for (unsigned i = 0; i < n; i++) {
        const nb_plan_entry_t *e = &p->gpu[i];
        unsigned want_cores;
        hwloc_bitmap_t want = expected(t, node, n, i, reserve, &want_cores), got = sets[i];
        ck_assert_msg(e->node == node[i], "%s: GPU %u on node %d, plan says %d", desc, i,
                      node[i], e->node);
        ck_assert_msg(got != NULL, "%s: GPU %u has no cpuset", desc, i);
        ck_assert_msg(!hwloc_bitmap_intersects(seen, got),
                      "%s: GPU %u shares PUs with another GPU", desc, i);
        hwloc_bitmap_or(seen, seen, got);
        if (node[i] >= 0) {
            hwloc_obj_t nd = hwloc_get_numanode_obj_by_os_index(t, (unsigned)node[i]);
            ck_assert_msg(hwloc_bitmap_isincluded(got, nd->cpuset),
                          "%s: GPU %u gets PUs %s outside its node %d (%s)", desc, i,
                          tu_list(got), node[i], tu_list(nd->cpuset));
        }
        ck_assert_msg(want ? hwloc_bitmap_isequal(want, got) : hwloc_bitmap_iszero(got),
                      "%s, reserve %u: GPU %u gets %s, the rule gives %s", desc, reserve, i,
                      tu_list(got), want ? tu_list(want) : "nothing");
        ck_assert_msg(e->ncores == want_cores, "%s: GPU %u: ncores %u, expected %u", desc, i,
                      e->ncores, want_cores);
        hwloc_bitmap_free(want);
    }
    hwloc_bitmap_free(seen);
}

/* Every core of a node that hosts a GPU, but the first `reserve`, is in exactly one entry (the
 * entries are disjoint, checked above); other nodes' cores are in none. */
static void check_cover(hwloc_topology_t t, hwloc_bitmap_t *sets, const int *node, unsigned n,
                        unsigned reserve, const char *desc)
{
    hwloc_bitmap_t all = hwloc_bitmap_alloc(), want = hwloc_bitmap_alloc();
    for (unsigned i = 0; i < n; i++)
        hwloc_bitmap_or(all, all, sets[i]);
    for (unsigned i = 0; i < n; i++) {
        if (node[i] < 0)
            continue;
        hwloc_obj_t nd = hwloc_get_numanode_obj_by_os_index(t, (unsigned)node[i]), core = NULL;
        for (unsigned k = 0; (core = hwloc_get_next_obj_inside_cpuset_by_type(
                                  t, nd->cpuset, HWLOC_OBJ_CORE, core)); k++)
            if (k >= reserve)
                hwloc_bitmap_or(want, want, core->cpuset);
    }
    ck_assert_msg(hwloc_bitmap_isequal(all, want), "%s, reserve %u: the plans cover PUs %s; "
                  "every core of the GPUs' nodes but the reserved ones is %s", desc, reserve,
                  tu_list(all), tu_list(want));
    hwloc_bitmap_free(all);
    hwloc_bitmap_free(want);
}

/* Whether some node hosts more GPUs than it has cores left after the reserve. */
static int too_few_cores(unsigned nodes, unsigned cores_per_node, const int *node, unsigned n,
                         unsigned reserve)
{
    for (unsigned nd = 0; nd < nodes; nd++) {
        unsigned m = 0;
        for (unsigned i = 0; i < n; i++)
            m += node[i] == (int)nd;
        if (m > 0 && (cores_per_node <= reserve || cores_per_node - reserve < m))
            return 1;
    }
    return 0;
}

MM_TEST(test_plan_random_synthetic)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 40; round++) {
        unsigned pk = (unsigned)mm_rng_range(&r, 1, 3), nn = (unsigned)mm_rng_range(&r, 1, 3);
        unsigned c = (unsigned)mm_rng_range(&r, 1, 9), u = (unsigned)mm_rng_range(&r, 1, 3);
        unsigned n = (unsigned)mm_rng_range(&r, 1, 8), reserve = (unsigned)mm_rng_range(&r, 0, 2);
        char desc[80];
        snprintf(desc, sizeof desc, "pack:%u numa:%u core:%u pu:%u", pk, nn, c, u);
        hwloc_topology_t t = tu_synthetic(desc), there = tu_there_synthetic(desc);
        int node[8];
        nb_gpu_t g[8];
        hwloc_bitmap_t sets[8];
        for (unsigned i = 0; i < n; i++)
            g[i] = gpu_on(node[i] = (int)mm_rng_range(&r, 0, pk * nn) - 1); /* -1: unknown */
        nb_plan_t p = { .n = 0 };
        int rc = nb_plan_build(there, g, n, reserve, &p);
        if (too_few_cores(pk * nn, c, node, n, reserve)) {
            ck_assert_msg(rc == -ENOSPC && p.n == 0, "%s, %u GPUs, reserve %u: a node has fewer "
                          "cores than GPUs: expected -ENOSPC and an empty plan, got %d", desc, n,
                          reserve, rc);
        } else {
            ck_assert_msg(rc == 0 && p.n == n, "%s, %u GPUs, reserve %u: returned %d, %u "
                          "entries", desc, n, reserve, rc, p.n);
            fetch_sets(&p, n, sets);
            check_invariants(t, &p, sets, node, n, reserve, desc);
            check_cover(t, sets, node, n, reserve, desc);
            free_sets(sets, n);
            nb_plan_free(&p);
        }
        hwloc_topology_destroy(t);
    }
}
MM_END_TEST

MM_TEST(test_plan_bad_args)
{
    hwloc_topology_t t = tu_there_shipped("two-socket-8gpu");
    hwloc_topology_t small = tu_there_synthetic("pack:1 core:2 pu:1");
    nb_gpu_t g[NB_MAX_GPUS + 1] = { gpu_on(0), gpu_on(0), gpu_on(0) }; /* all sent to you */
    nb_gpu_t far = gpu_on(2), neg = gpu_on(-2);
    nb_plan_t p = { .n = 0 };
    MM_ASSERT_ERR(nb_plan_build(NULL, g, 1, 0, &p), -EINVAL);
    MM_ASSERT_ERR(nb_plan_build(t, g, 1, 0, NULL), -EINVAL);
    MM_ASSERT_ERR(nb_plan_build(t, NULL, 1, 0, &p), -EINVAL);
    MM_ASSERT_ERR(nb_plan_build(t, g, NB_MAX_GPUS + 1, 0, &p), -EINVAL);
    MM_ASSERT_ERR(nb_plan_build(t, &far, 1, 0, &p), -EINVAL);
    MM_ASSERT_ERR(nb_plan_build(t, &neg, 1, 0, &p), -EINVAL);
    MM_ASSERT_ERR(nb_plan_build(small, g, 3, 0, &p), -ENOSPC);
    ck_assert_msg(p.n == 0, "a failed plan must be empty");
    MM_ASSERT_ERR(nb_plan_build(small, g, 2, 1, &p), -ENOSPC);
    MM_ASSERT_OK(nb_plan_build(t, NULL, 0, 0, &p));
    ck_assert_msg(p.n == 0, "no GPUs, no entries");
    nb_plan_free(&p);
    nb_plan_free(NULL);
}
MM_END_TEST

static const char two_socket_text[] =
    "gpu 0: node 0, 14 cores: numactl --physcpubind=0-13,112-125 --membind=0\n"
    "gpu 1: node 0, 14 cores: numactl --physcpubind=14-27,126-139 --membind=0\n"
    "gpu 2: node 0, 14 cores: numactl --physcpubind=28-41,140-153 --membind=0\n"
    "gpu 3: node 0, 14 cores: numactl --physcpubind=42-55,154-167 --membind=0\n"
    "gpu 4: node 1, 14 cores: numactl --physcpubind=56-69,168-181 --membind=1\n"
    "gpu 5: node 1, 14 cores: numactl --physcpubind=70-83,182-195 --membind=1\n"
    "gpu 6: node 1, 14 cores: numactl --physcpubind=84-97,196-209 --membind=1\n"
    "gpu 7: node 1, 14 cores: numactl --physcpubind=98-111,210-223 --membind=1\n";

MM_TEST(test_plan_format)
{
    hwloc_topology_t t = tu_there_shipped("two-socket-8gpu");
    hwloc_topology_t vm = tu_there_shipped("cloud-vm-2node");
    int node[8] = { 0, 0, 0, 0, 1, 1, 1, 1 }, unknown[1] = { -1 };
    char buf[2048];
    nb_plan_t p;
    plan_on(t, node, 8, 0, &p);
    int n = nb_plan_format(&p, buf, sizeof buf);
    ck_assert_msg(n == (int)strlen(two_socket_text) && strcmp(buf, two_socket_text) == 0,
                  "nb_plan_format returned %d and wrote:\n%s\nexpected:\n%s", n, buf,
                  two_socket_text);
    nb_plan_free(&p);
    plan_on(vm, unknown, 1, 0, &p);
    n = nb_plan_format(&p, buf, sizeof buf);
    const char *line = "gpu 0: node unknown, not bound\n";
    ck_assert_msg(strcmp(buf, line) == 0 && n == (int)strlen(line),
                  "an unbound GPU's line: got %d, \"%s\"", n, buf);
    nb_plan_free(&p);
}
MM_END_TEST

MM_TEST(test_plan_format_small_buffer)
{
    hwloc_topology_t t = tu_there_shipped("two-socket-8gpu");
    int node[8] = { 0, 0, 0, 0, 1, 1, 1, 1 };
    mm_rng_t r = MM_RNG();
    size_t size = (size_t)mm_rng_range(&r, 1, sizeof two_socket_text - 1);
    char buf[sizeof two_socket_text];
    nb_plan_t p;
    plan_on(t, node, 8, 0, &p);
    memset(buf, 'x', sizeof buf);
    MM_ASSERT_ERR(nb_plan_format(&p, buf, size), -ERANGE);
    ck_assert_msg(memchr(buf, '\0', size) != NULL, "a %zu-byte buffer must end with a NUL", size);
    ck_assert_msg(strncmp(buf, two_socket_text, strlen(buf)) == 0,
                  "what fits must be the start of the full text, got \"%s\"", buf);
    MM_ASSERT_ERR(nb_plan_format(&p, buf, 0), -EINVAL);
    MM_ASSERT_ERR(nb_plan_format(NULL, buf, sizeof buf), -EINVAL);
    MM_ASSERT_ERR(nb_plan_format(&p, NULL, sizeof buf), -EINVAL);
    nb_plan_free(&p);
}
MM_END_TEST
