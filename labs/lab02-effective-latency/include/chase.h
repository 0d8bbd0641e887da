/* Lab 02, part B: measure load latency with a pointer chase. Every load's address comes from the
 * previous load, in an order no prefetcher can guess (a random single cycle, Sattolo's
 * algorithm), so the time per step is the latency of the level the working set fits in. Over a
 * range of sizes this draws the latency staircase; its knees are the cache boundaries. */
#ifndef EL_CHASE_H
#define EL_CHASE_H
#include <stddef.h>
#include "mm_rng.h"

/* Fills next[0..n) with a uniformly random permutation that is ONE cycle through all n indices
 * (Sattolo's algorithm: start from the identity; for i = n-1 down to 1, swap next[i] with
 * next[j] for a random j in [0, i-1], drawn with mm_rng_range(rng, 0, i - 1)). Following next[]
 * from any index visits all n indices once before it comes back. n == 1 gives next[0] = 0.
 * The same generator state gives the same permutation. Returns 0;
 *   -EINVAL: next or rng is NULL, or n == 0. */
int el_sattolo(size_t *next, size_t n, mm_rng_t *rng);

/* Measures the latency of one dependent load over a working set of `bytes` bytes: a buffer from
 * el_pages_alloc (walk.h) cut into bytes / line nodes of `line` bytes, one pointer at the start
 * of each node, linked in a random single cycle (el_sattolo, generator seeded from `bytes`):
 * node i points to node next[i]. After a warm-up of one lap (at most 2^16 steps), follows the
 * pointers in batches for about `ms` milliseconds and writes to *ns the median over batches of
 * the time per load, in nanoseconds (the median ignores batches hit by an interrupt or a context
 * switch). The buffer goes back with el_pages_free, its chain still in it (a test reads it).
 * line: a power of two >= sizeof(void *); bytes >= 2 * line; 0 < ms <= 10000.
 * Returns 0;
 *   -EINVAL: bad arguments;
 *   -ENOMEM: out of memory. */
int el_chase_ns(size_t bytes, size_t line, double ms, double *ns);

/* The staircase: el_chase_ns(sizes[i], line, ms, &ns[i]) for each of the n sizes, which must be
 * strictly increasing (each >= 2 * line). Returns 0; -EINVAL (checked before anything is
 * measured); the first error of el_chase_ns otherwise. */
int el_staircase(const size_t *sizes, size_t n, size_t line, double ms, double *ns);

#define EL_KNEE_STEP 1.25 /* a step of the staircase this much slower than the one before rises */
#define EL_KNEE_RISE 1.5 /* a rise of at least this much in total is a level boundary */

/* Finds the level boundaries of a staircase: sizes[0..n) strictly increasing, ns[i] > 0 finite,
 * n >= 2. A *rise* is a maximal run of consecutive steps i -> i+1 each with
 * ns[i+1] / ns[i] >= EL_KNEE_STEP; say it goes from point a to point b. A rise whose total ratio
 * ns[b] / ns[a] is >= EL_KNEE_RISE is a boundary, reported as sizes[s] of its steepest step
 * s -> s+1 (largest ratio; the first one on a tie): the last working set that still fit. If the
 * rise also climbs by EL_KNEE_RISE or more before its steepest step (ns[s] / ns[a] >=
 * EL_KNEE_RISE), two levels merged into one rise, and sizes[a] is a boundary too.
 * Example: ns 1.2, 1.2, 1.6, 4.0, 4.1, 4.0 at 16..96 KiB has one rise, 24 -> 48 KiB (steps 1.0,
 * 1.33, 2.5, 1.03), total 3.3, steepest step 32 -> 48 KiB, 1.33x before it: one boundary, 32 KiB.
 * Writes the boundaries in increasing order to knees[0..max) and returns how many there are
 * (0 for a flat staircase);
 *   -EINVAL: bad arguments (knees may be NULL only if max == 0);
 *   -ENOSPC: there are more than max. */
int el_find_knees(const size_t *sizes, const double *ns, size_t n, size_t *knees, size_t max);

#endif
