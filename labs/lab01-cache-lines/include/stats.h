/* Lab 01, part B: running statistics of a sample stream, updated by several worker threads at
 * once (think DataLoader workers tracking the mean and spread of the samples they decode). Each
 * worker adds to its own partial; the partials are merged once, when the result is asked for. */
#ifndef CL_STATS_H
#define CL_STATS_H
#include <stddef.h>
#include <stdint.h>

#define CL_MAX_WORKERS 64

typedef struct {
    uint64_t count;
    double sum;   /* sum of samples */
    double sumsq; /* sum of squared samples */
    float min, max;
} cl_stats_t;

typedef struct cl_accum cl_accum_t;

/* The empty statistic: count 0, sums 0, min +inf, max -inf. */
void cl_stats_init(cl_stats_t *s);

/* Folds `from` into `into` (as if into's samples and from's were one stream). */
void cl_stats_merge(cl_stats_t *into, const cl_stats_t *from);

/* Creates an accumulator for `nworkers` workers, each partial empty (as cl_stats_init), laid out
 * so that NO `line`-byte cache line holds bytes of two partials. (Lines are the aligned blocks
 * [k * line, (k + 1) * line) of the address space. A partial is larger than an 8-byte line, so
 * it may span several lines; each of those lines holds bytes of that partial only.)
 * Returns 0 and sets *out; -EINVAL if out is NULL, nworkers is 0 or > CL_MAX_WORKERS, or line
 * is not a power of two >= 8; -ENOMEM (nothing leaked). *out is untouched on failure. */
int cl_accum_create(cl_accum_t **out, unsigned nworkers, size_t line);

/* Worker `w`'s partial, where cl_accum_add writes it (read-only: the tests check where the
 * partials lie and what they hold). NULL if a is NULL or w is out of range. */
const cl_stats_t *cl_accum_partial(const cl_accum_t *a, unsigned w);

/* Worker `w` adds sample x to its own partial. Different workers call this at the same time,
 * each w from one thread only: no locks or atomics are needed. Does nothing if a is NULL or w is
 * out of range. */
void cl_accum_add(cl_accum_t *a, unsigned w, float x);

/* Merges every partial into *out (call after the workers are done). Returns 0, or -EINVAL if a
 * or out is NULL. */
int cl_accum_result(const cl_accum_t *a, cl_stats_t *out);

/* Frees everything; NULL is ignored. */
void cl_accum_destroy(cl_accum_t *a);

#endif
