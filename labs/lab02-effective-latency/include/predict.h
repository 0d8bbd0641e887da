/* Lab 02, part D: predict how long a kernel's loads take on average, from the hit rates a
 * simulated hierarchy (part C) gives for its address trace and the latencies the staircase
 * (part B) measured for each level, combined by part A's formula. */
#ifndef EL_PREDICT_H
#define EL_PREDICT_H
#include <stddef.h>
#include <stdint.h>
#include "amat.h"     /* EL_MAX_LEVELS */
#include "cachesim.h" /* EL_MAX_ACCESS */

typedef struct {
    size_t sets, ways, line; /* as for el_cache_create */
} el_geom_t;

/* Runs the loads addr[0..n), each of `size` bytes, through a hierarchy of nlevels simulated
 * caches (geom[0] first, e.g. L1, L2, L3). Each line of cache 0 that a load touches is one
 * access. An access is looked up in cache 0; one that misses cache i goes on to cache i + 1
 * (each cache brings the line in on its own miss; nothing else moves between levels); one that
 * misses them all is served by memory. The first `warmup` loads only warm the caches; the loads
 * from addr[warmup] on are counted: hit[i] = counted accesses that hit cache i / counted
 * accesses that reached it (0 if none reached it) -- the local hit rates of el_amat.
 * Returns 0;
 *   -EINVAL: a pointer is NULL, size is 0 or more than EL_MAX_ACCESS, warmup >= n, nlevels is 0
 *            or more than EL_MAX_LEVELS, a geometry is invalid, or a load runs past 2^64 (hit
 *            untouched);
 *   -ENOMEM: out of memory. */
int el_sim_hit_rates(const uint64_t *addr, size_t n, size_t size, size_t warmup,
                     const el_geom_t *geom, size_t nlevels, double *hit);

/* The prediction: the hit rates of el_sim_hit_rates for the same arguments, then el_amat with
 * lat[0..nlevels] (lat[i]: measured latency of cache i; lat[nlevels]: of memory). Writes the
 * average latency of a counted access to *ns (the unit of lat) and, if hit is not NULL, the hit
 * rates to hit[0..nlevels). Returns 0;
 *   -EINVAL: bad arguments, invalid latencies included (see el_amat); *ns and hit untouched;
 *   -ENOMEM: out of memory. */
int el_predict_ns(const uint64_t *addr, size_t n, size_t size, size_t warmup,
                  const el_geom_t *geom, const double *lat, size_t nlevels, double *hit,
                  double *ns);

#endif
