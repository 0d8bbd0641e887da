/* Lab 02, part A: average memory access time (AMAT) of a cache hierarchy, the arithmetic that
 * turns hit rates and per-level latencies into the cost of one average load. */
#ifndef EL_AMAT_H
#define EL_AMAT_H
#include <stddef.h>

#define EL_MAX_LEVELS 8 /* caches in front of memory, at most */

/* The model ("served by"): a load that reaches cache i hits there with its *local* hit rate
 * hit[i] (hits at i / loads that reached i) and then costs lat[i], the full load-to-use latency
 * of a load served by cache i (what a pointer chase that fits in cache i measures). Otherwise it
 * goes on to cache i + 1; memory (lat[ncaches]) serves every load that missed all caches.
 *   P_0 = 1,  P_(i+1) = P_i * (1 - hit[i]),
 *   AMAT = sum_(i < ncaches) P_i * hit[i] * lat[i]  +  P_ncaches * lat[ncaches].
 * Latencies do not add up level by level: lat[i] already includes the lookups above i.
 * Example: hit rates 0.6, 0.7, 0.4 and latencies 4, 12, 40, 250 cycles give
 * 0.6*4 + 0.4*0.7*12 + 0.4*0.3*0.4*40 + 0.4*0.3*0.6*250 = 2.4 + 3.36 + 1.92 + 18 = 25.68 cycles.
 *
 * hit[0..ncaches) must be finite and in [0, 1]; lat[0..ncaches] finite and > 0 (any unit: the
 * result is in the same unit). ncaches may be 0 (memory only: AMAT = lat[0]); hit may then be
 * NULL. Returns 0 and sets *out;
 *   -EINVAL: lat or out is NULL, hit is NULL while ncaches > 0, ncaches > EL_MAX_LEVELS, or a
 *            value is out of range.
 * *out is untouched on error. */
int el_amat(const double *hit, const double *lat, size_t ncaches, double *out);

#endif
