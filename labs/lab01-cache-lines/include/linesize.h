/* Lab 01, part C: find the cache line size by experiment. Two threads on two cores each add 1 to
 * their own counter, `distance` bytes apart, with atomic read-modify-writes; while both counters
 * sit in one line, every add must first take the line from the other core and the pair slows
 * down. The smallest distance with no slowdown is the line. */
#ifndef CL_LINESIZE_H
#define CL_LINESIZE_H
#include <stddef.h>
#include <stdint.h>

#define CL_MAX_DISTANCE 4096

/* Runs two threads, pinned to two different cores when the machine has two, that each add 1 to
 * their own counter `iters` times (*a for one, *b for the other), and starts them together.
 * Every add is an atomic read-modify-write, e.g. __atomic_fetch_add(p, 1, __ATOMIC_RELAXED)
 * (`lock add` on x86): a core can do one only while it holds the line exclusively, so two
 * writers in one line take it from each other on every add. (A plain store, even through a
 * volatile pointer, retires into the core's store buffer before the core owns the line, and
 * the buffer hides most of that ping-pong: such a sweep can show no line at all.) Because the
 * adds are atomic, other threads may add to *a or *b at the same time and no add is lost.
 * Adds exactly `iters` to *a and to *b. Returns 0 and sets *ns_per_op to the wall time divided
 * by iters;
 *   -EINVAL: a or b or ns_per_op is NULL, a == b, or iters == 0 (the counters are untouched);
 *   -EAGAIN: the second thread cannot be started (the counters are untouched). */
int cl_pair_run(uint64_t *a, uint64_t *b, uint64_t iters, double *ns_per_op);

/* For each distance[i] (a multiple of 8, 8..CL_MAX_DISTANCE), in order, runs cl_pair_run on two
 * zeroed counters that distance apart in one buffer of 2 * CL_MAX_DISTANCE bytes, and writes ns
 * per increment to ns[i]. The first counter sits at an address that is a multiple of 4096 (the
 * 4 KiB base page of x86-64 and most Arm Linux kernels, a constant here: not sysconf's page
 * size, and no huge page is asked for), so it starts a cache line for every line size up to
 * 4096 and the pair's placement is the same in every run. Returns 0;
 *   -EINVAL: distance or ns is NULL, n == 0, iters == 0, or a bad distance (nothing is run);
 *   -ENOMEM: no buffer (nothing is run);
 *   -EAGAIN: cl_pair_run could not start its second thread at distance[i]. The sweep stops
 *            there and returns -EAGAIN: ns[0..i) hold the times measured before, ns[i..n) are
 *            left as they were, and the buffer is freed. (Any other error of cl_pair_run is
 *            passed on the same way.) */
int cl_sweep(const size_t *distance, size_t n, uint64_t iters, double *ns);

/* Infers the line size from a sweep: distance[0..n) strictly increasing, ns[i] > 0, n >= 2.
 * "Far" is the time at the largest distance. The answer is the smallest distance d such that
 * every distance >= d runs below the midpoint between far and the slowest time, i.e. below
 * far + (max - far) / 2.
 * A CPU whose adjacent-line prefetcher fetches lines in aligned pairs makes writers one line
 * apart interfere too, but less: e.g. 8x below 64 B, 2.5x at 64 B, 1x from 128 B. A partial
 * step like that, below the midpoint, does not move the answer (64 here); one above the
 * midpoint (e.g. 8x, then 5x at 64 B) makes the answer 128, the pair of lines that such a CPU's
 * writers must keep apart (its destructive-interference size).
 * Returns 0 and sets *line;
 *   -EINVAL:  bad arguments;
 *   -ENODATA: the slowest time is under 1.5 x far (no false-sharing signal: e.g. both threads
 *             share one core, or plain stores hid the ping-pong). */
int cl_infer_line_size(const size_t *distance, const double *ns, size_t n, size_t *line);

#endif
