/* Lab 02, part B (reference): Sattolo cycles, the pointer chase, the staircase and its knees
 * (see chase.h). */
#include "chase.h"
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "mm_bench.h" /* mm_median */
#include "mm_timer.h"
#include "walk.h"     /* el_pages_alloc */

#define BATCH 4096          /* loads between two clock reads */
#define MAX_BATCHES 65536   /* a measurement stops here even if `ms` has not passed */
#define WARMUP_MAX (1u << 16)

int el_sattolo(size_t *next, size_t n, mm_rng_t *rng)
{
    if (!next || !rng || n == 0)
        return -EINVAL;
    for (size_t i = 0; i < n; i++)
        next[i] = i;
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = (size_t)mm_rng_range(rng, 0, i - 1), t = next[i];
        next[i] = next[j];
        next[j] = t;
    }
    return 0;
}

static int bad_chase_args(size_t bytes, size_t line, double ms)
{
    return line < sizeof(void *) || (line & (line - 1)) || bytes / 2 < line || !(ms > 0) ||
           ms > 10000;
}

/* Links node i (at buf + i * line) to node next[i], in a random single cycle. */
static int link_cycle(char *buf, size_t n, size_t line, uint64_t seed)
{
    size_t *next = malloc(n * sizeof *next);
    if (!next)
        return -ENOMEM;
    mm_rng_t r = mm_rng_new(seed);
    el_sattolo(next, n, &r);
    for (size_t i = 0; i < n; i++)
        *(void **)(buf + i * line) = buf + next[i] * line;
    free(next);
    return 0;
}

/* Follows `steps` pointers from p: every load's address is the value of the load before. */
static void *chase(void *p, size_t steps)
{
    void **q = p;
    for (size_t i = 0; i < steps; i++)
        q = (void **)*q;
    return q;
}

static int time_batches(void *start, double ms, double *ns)
{
    double *t = malloc(MAX_BATCHES * sizeof *t);
    if (!t)
        return -ENOMEM;
    void *volatile p = start;
    size_t nb = 0;
    uint64_t t0 = mm_now_ns(), end = t0 + (uint64_t)(ms * 1e6);
    for (uint64_t now = t0; nb < MAX_BATCHES && (nb == 0 || now < end); nb++) {
        p = chase(p, BATCH);
        uint64_t after = mm_now_ns();
        t[nb] = (double)(after - now) / BATCH;
        now = after;
    }
    *ns = mm_median(t, nb);
    free(t);
    return 0;
}

int el_chase_ns(size_t bytes, size_t line, double ms, double *ns)
{
    if (!ns || bad_chase_args(bytes, line, ms))
        return -EINVAL;
    size_t n = bytes / line;
    char *buf = el_pages_alloc(n * line);
    if (!buf)
        return -ENOMEM;
    int rc = link_cycle(buf, n, line, bytes);
    if (rc == 0) {
        void *p = chase(buf, n < WARMUP_MAX ? n : WARMUP_MAX);
        rc = time_batches(p, ms, ns);
    }
    el_pages_free(buf);
    return rc;
}

int el_staircase(const size_t *sizes, size_t n, size_t line, double ms, double *ns)
{
    if (!sizes || !ns || n == 0)
        return -EINVAL;
    for (size_t i = 0; i < n; i++)
        if (bad_chase_args(sizes[i], line, ms) || (i > 0 && sizes[i] <= sizes[i - 1]))
            return -EINVAL;
    for (size_t i = 0; i < n; i++) {
        int rc = el_chase_ns(sizes[i], line, ms, &ns[i]);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int bad_staircase(const size_t *sizes, const double *ns, size_t n)
{
    if (!sizes || !ns || n < 2)
        return 1;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(ns[i]) || !(ns[i] > 0) || (i > 0 && sizes[i] <= sizes[i - 1]))
            return 1;
    return 0;
}

/* The rise that starts at step `i` (ns[i+1] / ns[i] >= EL_KNEE_STEP): sets *end to its last
 * point and returns its steepest step. */
static size_t scan_rise(const double *ns, size_t n, size_t i, size_t *end)
{
    size_t steep = i;
    while (i + 1 < n && ns[i + 1] / ns[i] >= EL_KNEE_STEP) {
        if (ns[i + 1] / ns[i] > ns[steep + 1] / ns[steep])
            steep = i;
        i++;
    }
    *end = i;
    return steep;
}

/* Appends a boundary; -ENOSPC when knees[] is full. */
static int report(size_t *knees, size_t max, size_t *found, size_t size)
{
    if (*found == max)
        return -ENOSPC;
    knees[(*found)++] = size;
    return 0;
}

int el_find_knees(const size_t *sizes, const double *ns, size_t n, size_t *knees, size_t max)
{
    if (bad_staircase(sizes, ns, n) || (!knees && max > 0))
        return -EINVAL;
    size_t found = 0;
    for (size_t a = 0; a + 1 < n;) {
        if (ns[a + 1] / ns[a] < EL_KNEE_STEP) {
            a++;
            continue;
        }
        size_t b, s = scan_rise(ns, n, a, &b);
        int rc = 0;
        if (ns[b] / ns[a] >= EL_KNEE_RISE) {
            if (ns[s] / ns[a] >= EL_KNEE_RISE) /* two levels in one rise */
                rc = report(knees, max, &found, sizes[a]);
            if (rc == 0)
                rc = report(knees, max, &found, sizes[s]);
        }
        if (rc != 0)
            return rc;
        a = b;
    }
    return (int)found;
}
