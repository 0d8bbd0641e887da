/* Lab 04 tests, part C: binding threads on this machine (checked against what the kernel says,
 * sched_getaffinity), and refusing to bind with another machine's topology. */
#include <errno.h>
#include <numa.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include "bind.h"
#include "mm_check.h"
#include "plan.h"
#include "support.h"
#include "topo.h"

static void assert_affinity(hwloc_const_bitmap_t want, const char *what)
{
    hwloc_bitmap_t now = hwloc_bitmap_alloc();
    tu_affinity(now);
    ck_assert_msg(hwloc_bitmap_isequal(now, want), "%s: the kernel says this thread may run on "
                  "%s, expected %s", what, tu_list(now), tu_list(want));
    hwloc_bitmap_free(now);
}

MM_TEST(test_bind_one_pu)
{
    hwloc_topology_t t = tu_yours_system();
    hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(t);
    mm_rng_t r = MM_RNG();
    int k = (int)mm_rng_range(&r, 0, (uint64_t)hwloc_bitmap_weight(allowed) - 1);
    int pu = hwloc_bitmap_first(allowed);
    while (k-- > 0)
        pu = hwloc_bitmap_next(allowed, pu);
    hwloc_bitmap_t one = hwloc_bitmap_alloc(), got = hwloc_bitmap_alloc();
    hwloc_bitmap_only(one, (unsigned)pu);
    MM_ASSERT_OK(nb_bind_thread(t, one));
    assert_affinity(one, "after binding to one PU");
    ck_assert_msg(hwloc_bitmap_isset(one, (unsigned)sched_getcpu()), "running on CPU %d, "
                  "bound to %s", sched_getcpu(), tu_list(one));
    MM_ASSERT_OK(nb_thread_binding(t, got));
    ck_assert_msg(hwloc_bitmap_isequal(got, one), "nb_thread_binding says %s, expected %s",
                  tu_list(got), tu_list(one));
    MM_ASSERT_OK(nb_unbind_thread(t));
    assert_affinity(allowed, "after nb_unbind_thread");
    hwloc_bitmap_free(one);
    hwloc_bitmap_free(got);
    hwloc_topology_destroy(t);
}
MM_END_TEST

MM_TEST(test_bind_node)
{
    hwloc_topology_t t = tu_yours_system(), oracle = tu_system();
    hwloc_bitmap_t want = hwloc_bitmap_alloc();
    struct bitmask *cpus = numa_allocate_cpumask();
    for (hwloc_obj_t n = NULL; (n = hwloc_get_next_obj_by_type(oracle, HWLOC_OBJ_NUMANODE, n));) {
        if (numa_node_to_cpus((int)n->os_index, cpus) != 0)
            continue;
        hwloc_bitmap_zero(want);
        for (unsigned c = 0; c < cpus->size; c++)
            if (numa_bitmask_isbitset(cpus, c))
                hwloc_bitmap_set(want, c);
        hwloc_bitmap_and(want, want, hwloc_topology_get_allowed_cpuset(oracle));
        if (hwloc_bitmap_iszero(want))
            continue; /* a node without CPUs (memory only) */
        MM_ASSERT_OK(nb_bind_thread_to_node(t, (int)n->os_index));
        assert_affinity(want, "after nb_bind_thread_to_node (libnuma's numa_node_to_cpus)");
    }
    MM_ASSERT_ERR(nb_bind_thread_to_node(t, numa_max_node() + 1), -EINVAL);
    MM_ASSERT_ERR(nb_bind_thread_to_node(t, -1), -EINVAL);
    numa_free_cpumask(cpus);
    hwloc_bitmap_free(want);
    hwloc_topology_destroy(t);
    hwloc_topology_destroy(oracle);
}
MM_END_TEST

typedef struct {
    hwloc_topology_t t;
    hwloc_bitmap_t set, seen;
    int rc;
} binder_t;

static void *bind_self(void *arg)
{
    binder_t *b = arg;
    b->rc = nb_bind_thread(b->t, b->set);
    tu_affinity(b->seen);
    return NULL;
}

MM_TEST(test_bind_is_per_thread)
{
    hwloc_topology_t t = tu_yours_system();
    hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(t);
    if (hwloc_bitmap_weight(allowed) < 2)
        MM_SKIP("needs 2 CPUs to tell one thread's binding from the whole process's");
    hwloc_bitmap_t before = hwloc_bitmap_alloc();
    tu_affinity(before);
    binder_t b = { t, hwloc_bitmap_alloc(), hwloc_bitmap_alloc(), -1 };
    hwloc_bitmap_only(b.set, (unsigned)hwloc_bitmap_last(allowed));
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, bind_self, &b), 0);
    pthread_join(th, NULL);
    MM_ASSERT_ERR(b.rc, 0);
    ck_assert_msg(hwloc_bitmap_isequal(b.seen, b.set), "the worker bound itself to %s but "
                  "runs on %s", tu_list(b.set), tu_list(b.seen));
    assert_affinity(before, "a worker bound itself; the main thread must stay as it was "
                    "(bind the thread, HWLOC_CPUBIND_THREAD, not the process)");
    hwloc_bitmap_free(b.set);
    hwloc_bitmap_free(b.seen);
    hwloc_bitmap_free(before);
    hwloc_topology_destroy(t);
}
MM_END_TEST

MM_TEST(test_bind_refuses_other_topologies)
{
    hwloc_topology_t synth = tu_synthetic("pack:2 numa:1 core:2 pu:1");
    hwloc_topology_t xml = tu_shipped("two-socket-8gpu");
    hwloc_bitmap_t before = hwloc_bitmap_alloc(), set = hwloc_bitmap_alloc();
    tu_affinity(before);
    hwloc_bitmap_only(set, 0);
    hwloc_topology_t other[2] = { synth, xml };
    for (int i = 0; i < 2; i++) {
        MM_ASSERT_ERR(nb_bind_thread(other[i], set), -EOPNOTSUPP);
        MM_ASSERT_ERR(nb_bind_thread_to_node(other[i], 1), -EOPNOTSUPP);
        MM_ASSERT_ERR(nb_thread_binding(other[i], set), -EOPNOTSUPP);
        MM_ASSERT_ERR(nb_unbind_thread(other[i]), -EOPNOTSUPP);
    }
    assert_affinity(before, "after refused binds");
    hwloc_bitmap_free(before);
    hwloc_bitmap_free(set);
    hwloc_topology_destroy(synth);
    hwloc_topology_destroy(xml);
}
MM_END_TEST

MM_TEST(test_bind_bad_args)
{
    hwloc_topology_t t = tu_yours_system();
    hwloc_bitmap_t before = hwloc_bitmap_alloc(), set = hwloc_bitmap_alloc();
    tu_affinity(before);
    MM_ASSERT_ERR(nb_bind_thread(t, NULL), -EINVAL);
    MM_ASSERT_ERR(nb_bind_thread(NULL, before), -EINVAL);
    MM_ASSERT_ERR(nb_bind_thread(t, set), -EINVAL); /* empty */
    hwloc_bitmap_only(set, 4000);                    /* no such CPU here */
    MM_ASSERT_ERR(nb_bind_thread(t, set), -EINVAL);
    MM_ASSERT_ERR(nb_thread_binding(t, NULL), -EINVAL);
    MM_ASSERT_ERR(nb_unbind_thread(NULL), -EINVAL);
    assert_affinity(before, "after rejected binds");
    hwloc_bitmap_free(before);
    hwloc_bitmap_free(set);
    hwloc_topology_destroy(t);
}
MM_END_TEST

MM_TEST(test_bind_plan_here)
{
    hwloc_topology_t t = tu_yours_system();
    hwloc_obj_t n = NULL;
    while ((n = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, n)) &&
           hwloc_bitmap_iszero(n->cpuset))
        ; /* the first node with CPUs */
    ck_assert_msg(n != NULL, "this machine has no NUMA node with CPUs?");
    nb_gpu_t g = { "0000:00:00.0", 0x10de, 0x2330, 0x0302, (int)n->os_index };
    nb_plan_t p = { .n = 0 };
    MM_ASSERT_OK(nb_plan_build(t, &g, 1, 0, &p));
    hwloc_bitmap_t want = hwloc_bitmap_alloc();
    hwloc_bitmap_and(want, p.gpu[0].cpuset, hwloc_topology_get_allowed_cpuset(t));
    MM_ASSERT_OK(nb_bind_thread(t, p.gpu[0].cpuset));
    assert_affinity(want, "a worker bound by the plan of a GPU on this machine's first node");
    ck_assert_msg(numa_node_of_cpu(sched_getcpu()) == (int)n->os_index, "running on CPU %d, "
                  "node %d; the plan's node is %u", sched_getcpu(),
                  numa_node_of_cpu(sched_getcpu()), n->os_index);
    hwloc_bitmap_free(want);
    nb_plan_free(&p);
    hwloc_topology_destroy(t);
}
MM_END_TEST
