/* Lab 04 tests, part C: binding threads on this machine, and refusing to bind with another
 * machine's topology. Your calls run on your process's serving thread; what each test checks of
 * a binding is what the kernel says of that thread (sched_getaffinity, /proc), read here. */
#include <dirent.h>
#include <errno.h>
#include <numa.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../serve/work04.h"
#include "bind.h"
#include "mm_call.h"
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
    hwloc_bitmap_t allowed = tu_allowed();
    mm_rng_t r = MM_RNG();
    int k = (int)mm_rng_range(&r, 0, (uint64_t)hwloc_bitmap_weight(allowed) - 1);
    int pu = hwloc_bitmap_first(allowed);
    while (k-- > 0)
        pu = hwloc_bitmap_next(allowed, pu);
    hwloc_bitmap_t one = hwloc_bitmap_alloc(), none = hwloc_bitmap_alloc();
    hwloc_bitmap_t out = tu_send(none); /* a bitmap of your process, for nb_thread_binding */
    hwloc_bitmap_only(one, (unsigned)pu);
    MM_ASSERT_OK(nb_bind_thread(t, tu_send(one)));
    assert_affinity(one, "after binding to one PU");
    ck_assert_msg(hwloc_bitmap_isset(one, (unsigned)tu_cpu()), "running on CPU %d, bound to %s",
                  tu_cpu(), tu_list(one));
    MM_ASSERT_OK(nb_thread_binding(t, out));
    hwloc_bitmap_t got = tu_fetch(out);
    ck_assert_msg(got && hwloc_bitmap_isequal(got, one), "nb_thread_binding says %s, expected %s",
                  tu_list(got), tu_list(one));
    MM_ASSERT_OK(nb_unbind_thread(t));
    assert_affinity(allowed, "after nb_unbind_thread");
    hwloc_bitmap_free(one);
    hwloc_bitmap_free(none);
    hwloc_bitmap_free(got);
    hwloc_bitmap_free(allowed);
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
    hwloc_topology_destroy(oracle);
}
MM_END_TEST

/* The task of your process whose thread id, as your process sees it (its pid namespace), is
 * `tid`: the last NSpid of /proc/<pid>/task/<task>/status. Returns the task's id here, or -1. */
static int task_here(int tid)
{
    char path[96], line[256];
    snprintf(path, sizeof path, "/proc/%d/task", (int)mm_student_pid());
    DIR *d = opendir(path);
    int found = -1;
    for (struct dirent *e; d && found < 0 && (e = readdir(d));) {
        snprintf(path, sizeof path, "/proc/%d/task/%.20s/status", (int)mm_student_pid(),
                 e->d_name);
        FILE *f = e->d_name[0] == '.' ? NULL : fopen(path, "r");
        while (f && fgets(line, sizeof line, f))
            if (strncmp(line, "NSpid:", 6) == 0) {
                char *last = strrchr(line, '\t');
                found = last && atoi(last + 1) == tid ? atoi(e->d_name) : -1;
            }
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return found;
}

typedef struct {
    int task;            /* the worker's task id here; -1: not found */
    hwloc_bitmap_t seen; /* its affinity, as the kernel said while it was alive */
} worker_seen_t;

/* Callback "nb.bound": the worker has bound itself and waits; read its affinity. */
static void on_bound(const void *args, size_t len, void *ret, void *ctx)
{
    worker_seen_t *w = ctx;
    int32_t tid = -1;
    cpu_set_t set;
    (void)ret;
    memcpy(&tid, args, len < sizeof tid ? len : sizeof tid);
    w->task = task_here(tid);
    if (w->task <= 0 || w->task == mm_student_pid() ||
        sched_getaffinity(w->task, sizeof set, &set) != 0)
        return;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set))
            hwloc_bitmap_set(w->seen, (unsigned)c);
}

MM_TEST(test_bind_is_per_thread)
{
    hwloc_topology_t t = tu_yours_system();
    hwloc_bitmap_t allowed = tu_allowed();
    if (hwloc_bitmap_weight(allowed) < 2)
        MM_SKIP("needs 2 CPUs to tell one thread's binding from the whole process's");
    hwloc_bitmap_t before = hwloc_bitmap_alloc(), set = hwloc_bitmap_alloc();
    tu_affinity(before);
    hwloc_bitmap_only(set, (unsigned)hwloc_bitmap_last(allowed));
    worker_seen_t w = { -1, hwloc_bitmap_alloc() };
    mm_call_on_callback("nb.bound", on_bound, &w);
    nb_sv_worker_in_t in = { (uintptr_t)t, (uintptr_t)tu_send(set) };
    int32_t rc = -1;
    ck_assert_int_eq(mm_call_work("worker_bind", &in, sizeof in, &rc, sizeof rc), 0);
    MM_ASSERT_ERR(rc, 0);
    ck_assert_msg(w.task > 0, "the worker thread was not found in your process");
    ck_assert_msg(hwloc_bitmap_isequal(w.seen, set), "the worker bound itself to %s but runs "
                  "on %s", tu_list(set), tu_list(w.seen));
    assert_affinity(before, "a worker bound itself; the main thread must stay as it was "
                    "(bind the thread, HWLOC_CPUBIND_THREAD, not the process)");
    hwloc_bitmap_free(w.seen);
    hwloc_bitmap_free(set);
    hwloc_bitmap_free(before);
    hwloc_bitmap_free(allowed);
}
MM_END_TEST

MM_TEST(test_bind_refuses_other_topologies)
{
    hwloc_topology_t synth = tu_there_synthetic("pack:2 numa:1 core:2 pu:1");
    hwloc_topology_t xml = tu_there_shipped("two-socket-8gpu");
    hwloc_bitmap_t before = hwloc_bitmap_alloc(), one = hwloc_bitmap_alloc();
    tu_affinity(before);
    hwloc_bitmap_only(one, 0);
    hwloc_bitmap_t set = tu_send(one);
    hwloc_topology_t other[2] = { synth, xml };
    for (int i = 0; i < 2; i++) {
        MM_ASSERT_ERR(nb_bind_thread(other[i], set), -EOPNOTSUPP);
        MM_ASSERT_ERR(nb_bind_thread_to_node(other[i], 1), -EOPNOTSUPP);
        MM_ASSERT_ERR(nb_thread_binding(other[i], set), -EOPNOTSUPP);
        MM_ASSERT_ERR(nb_unbind_thread(other[i]), -EOPNOTSUPP);
    }
    assert_affinity(before, "after refused binds");
    hwloc_bitmap_free(before);
    hwloc_bitmap_free(one);
}
MM_END_TEST

MM_TEST(test_bind_bad_args)
{
    hwloc_topology_t t = tu_yours_system();
    hwloc_bitmap_t before = hwloc_bitmap_alloc(), none = hwloc_bitmap_alloc();
    hwloc_bitmap_t far = hwloc_bitmap_alloc();
    tu_affinity(before);
    hwloc_bitmap_only(far, 4000); /* no such CPU here */
    hwloc_bitmap_t mine = tu_send(before), empty = tu_send(none);
    MM_ASSERT_ERR(nb_bind_thread(t, NULL), -EINVAL);
    MM_ASSERT_ERR(nb_bind_thread(NULL, mine), -EINVAL);
    MM_ASSERT_ERR(nb_bind_thread(t, empty), -EINVAL);
    MM_ASSERT_ERR(nb_bind_thread(t, tu_send(far)), -EINVAL);
    MM_ASSERT_ERR(nb_thread_binding(t, NULL), -EINVAL);
    MM_ASSERT_ERR(nb_unbind_thread(NULL), -EINVAL);
    assert_affinity(before, "after rejected binds");
    hwloc_bitmap_free(before);
    hwloc_bitmap_free(none);
    hwloc_bitmap_free(far);
}
MM_END_TEST

MM_TEST(test_bind_plan_here)
{
    hwloc_topology_t t = tu_yours_system(), oracle = tu_system();
    hwloc_obj_t n = NULL;
    while ((n = hwloc_get_next_obj_by_type(oracle, HWLOC_OBJ_NUMANODE, n)) &&
           hwloc_bitmap_iszero(n->cpuset))
        ; /* the first node with CPUs */
    ck_assert_msg(n != NULL, "this machine has no NUMA node with CPUs?");
    nb_gpu_t g = { "0000:00:00.0", 0x10de, 0x2330, 0x0302, (int)n->os_index };
    nb_plan_t p = { .n = 0 };
    MM_ASSERT_OK(nb_plan_build(t, &g, 1, 0, &p));
    hwloc_bitmap_t want = tu_fetch(p.gpu[0].cpuset);
    ck_assert_msg(want != NULL, "the plan of a GPU on node %u has no cpuset", n->os_index);
    hwloc_bitmap_and(want, want, hwloc_topology_get_allowed_cpuset(oracle));
    MM_ASSERT_OK(nb_bind_thread(t, p.gpu[0].cpuset));
    assert_affinity(want, "a worker bound by the plan of a GPU on this machine's first node");
    int cpu = tu_cpu();
    ck_assert_msg(numa_node_of_cpu(cpu) == (int)n->os_index, "running on CPU %d, node %d; the "
                  "plan's node is %u", cpu, numa_node_of_cpu(cpu), n->os_index);
    hwloc_bitmap_free(want);
    nb_plan_free(&p);
    hwloc_topology_destroy(oracle);
}
MM_END_TEST
