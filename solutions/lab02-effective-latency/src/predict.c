/* Lab 02, part D (reference): hit rates of a simulated hierarchy and the predicted average
 * latency of a trace (see predict.h). */
#include "predict.h"
#include <errno.h>
#include <stdlib.h>
#include "amat.h"
#include "cachesim.h"

static void destroy_all(el_cache_t **c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        el_cache_destroy(c[i]);
}

static int create_all(el_cache_t **c, const el_geom_t *geom, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int rc = el_cache_create(&c[i], geom[i].sets, geom[i].ways, geom[i].line);
        if (rc != 0) {
            destroy_all(c, i);
            return rc;
        }
    }
    return 0;
}

/* One access of one byte (so: one line) goes down the hierarchy until a level hits. */
static void access_line(el_cache_t **c, size_t n, uint64_t a)
{
    for (size_t i = 0; i < n && el_cache_access(c[i], a, 1) > 0; i++)
        ;
}

/* Every line of the load at `a` is one access. */
static void access_load(el_cache_t **c, size_t n, uint64_t a, size_t size, size_t line)
{
    uint64_t first = a / line, last = (a + (size - 1)) / line;
    for (uint64_t ln = first;; ln++) {
        access_line(c, n, ln == first ? a : ln * line);
        if (ln == last)
            break;
    }
}

/* The simulation proper: cache 0's lines split the loads into accesses. */
static void run_trace(el_cache_t **c, size_t nl, size_t line, const uint64_t *addr, size_t n,
                      size_t size, size_t warmup)
{
    for (size_t k = 0; k < n; k++) {
        if (k == warmup)
            for (size_t i = 0; i < nl; i++)
                el_cache_reset_stats(c[i]);
        access_load(c, nl, addr[k], size, line);
    }
}

int el_sim_hit_rates(const uint64_t *addr, size_t n, size_t size, size_t warmup,
                     const el_geom_t *geom, size_t nlevels, double *hit)
{
    if (!addr || !geom || !hit || size == 0 || size > EL_MAX_ACCESS || warmup >= n ||
        nlevels == 0 || nlevels > EL_MAX_LEVELS)
        return -EINVAL;
    for (size_t k = 0; k < n; k++)
        if (addr[k] > UINT64_MAX - (size - 1))
            return -EINVAL;
    el_cache_t *c[EL_MAX_LEVELS];
    int rc = create_all(c, geom, nlevels);
    if (rc != 0)
        return rc;
    run_trace(c, nlevels, geom[0].line, addr, n, size, warmup);
    for (size_t i = 0; i < nlevels; i++) {
        el_cache_stats_t s = el_cache_stats(c[i]);
        uint64_t reached = s.hits + s.misses;
        hit[i] = reached ? (double)s.hits / (double)reached : 0.0;
    }
    destroy_all(c, nlevels);
    return 0;
}

int el_predict_ns(const uint64_t *addr, size_t n, size_t size, size_t warmup,
                  const el_geom_t *geom, const double *lat, size_t nlevels, double *hit,
                  double *ns)
{
    double h[EL_MAX_LEVELS], out;
    if (!lat || !ns)
        return -EINVAL;
    int rc = el_sim_hit_rates(addr, n, size, warmup, geom, nlevels, h);
    if (rc == 0)
        rc = el_amat(h, lat, nlevels, &out);
    if (rc != 0)
        return rc;
    for (size_t i = 0; hit && i < nlevels; i++)
        hit[i] = h[i];
    *ns = out;
    return 0;
}
