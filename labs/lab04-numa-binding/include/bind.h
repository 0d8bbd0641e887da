/* Lab 04, part C: binding the calling thread to a set of CPUs on this machine, as a DataLoader
 * worker would bind itself to the cores its GPU's plan gives it. Binding needs the topology of
 * this machine: hwloc silently does nothing (and returns success) when asked to bind with a
 * synthetic or XML topology, so these functions refuse such topologies instead. */
#ifndef NB_BIND_H
#define NB_BIND_H
#include <hwloc.h>

/* Binds the calling thread only (not the rest of the process) to the PUs of `set` that this
 * process may use (hwloc_topology_get_allowed_cpuset); other PUs in set are ignored.
 * Returns 0;
 *   -EINVAL:     t or set is NULL or set holds no allowed PU;
 *   -EOPNOTSUPP: t is not this machine's topology (hwloc_topology_is_thissystem);
 *   the negative errno of a failed bind. */
int nb_bind_thread(hwloc_topology_t t, hwloc_const_cpuset_t set);

/* Binds the calling thread to the PUs of NUMA node `node` (an OS index). Returns 0;
 *   -EINVAL:     t is NULL, t has no such node or the node has no PU this process may use;
 *   -EOPNOTSUPP: as nb_bind_thread. */
int nb_bind_thread_to_node(hwloc_topology_t t, int node);

/* Writes the PUs the calling thread is bound to into `out` (an allocated bitmap). Returns 0;
 *   -EINVAL:     NULL arguments;
 *   -EOPNOTSUPP: as nb_bind_thread;
 *   the negative errno of a failure. */
int nb_thread_binding(hwloc_topology_t t, hwloc_cpuset_t out);

/* Lets the calling thread run on every PU this process may use again. Returns 0;
 *   -EINVAL:     t is NULL;
 *   -EOPNOTSUPP: as nb_bind_thread;
 *   the negative errno of a failure. */
int nb_unbind_thread(hwloc_topology_t t);

#endif
