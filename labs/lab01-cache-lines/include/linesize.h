/* Lab 01, part C: find the cache line size by experiment. Two threads on two cores hammer two
 * counters `distance` bytes apart; while both sit in one line, every write steals the line from
 * the other core and the pair slows down. The smallest distance with no slowdown is the line. */
#ifndef CL_LINESIZE_H
#define CL_LINESIZE_H
#include <stddef.h>
#include <stdint.h>

#define CL_MAX_DISTANCE 4096

/* Runs two threads, pinned to two different cores when the machine has two, that each add 1 to
 * their own counter `iters` times (*a for one, *b for the other) through a volatile pointer, and
 * starts them together. Adds exactly `iters` to *a and to *b. Returns 0 and sets *ns_per_op to the
 * wall time divided by iters; -EINVAL if a or b or ns_per_op is NULL, a == b, or iters == 0;
 * -EAGAIN if threads cannot be started. */
int cl_pair_run(volatile uint64_t *a, volatile uint64_t *b, uint64_t iters, double *ns_per_op);

/* For each distance[i] (a multiple of 8, 8..CL_MAX_DISTANCE) runs cl_pair_run on two counters
 * that distance apart, the first at the start of a page, and writes ns per increment to ns[i].
 * Returns 0; -EINVAL for NULL pointers, n == 0, iters == 0 or a bad distance; -ENOMEM. */
int cl_sweep(const size_t *distance, size_t n, uint64_t iters, double *ns);

/* Infers the line size from a sweep: distance[0..n) strictly increasing, ns[i] > 0, n >= 2.
 * "Far" is the time at the largest distance. The answer is the smallest distance d such that
 * every distance >= d runs below the midpoint between far and the slowest time, i.e. below
 * far + (max - far) / 2. Returns 0 and sets *line; -EINVAL for bad arguments; -ENODATA when the
 * slowest time is under 1.5 x far (no false-sharing signal: e.g. both threads share one core). */
int cl_infer_line_size(const size_t *distance, const double *ns, size_t n, size_t *line);

#endif
