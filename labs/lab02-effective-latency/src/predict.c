/* Lab 02, part D: hit rates of a simulated hierarchy and the predicted average latency of a
 * trace (contracts in include/predict.h). Uses your parts A and C. */
#include "predict.h"
#include <errno.h>
#include <stdlib.h>
#include "amat.h"
#include "cachesim.h"

/* ===== YOUR CODE HERE (optional): extra #includes, your own types and static helpers ===== */

/* ===== END YOUR CODE ===== */

int el_sim_hit_rates(const uint64_t *addr, size_t n, size_t size, size_t warmup,
                     const el_geom_t *geom, size_t nlevels, double *hit)
{
    /* ===== YOUR CODE HERE =====
     * One el_cache_t per level. For each load, for each of cache 0's lines it touches: look the
     * line up in cache 0, then in cache 1 if it missed, and so on. Reset every cache's counts
     * when load number `warmup` comes up; at the end, hit[i] = hits / (hits + misses). */
    (void)addr, (void)n, (void)size, (void)warmup, (void)geom, (void)nlevels, (void)hit;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int el_predict_ns(const uint64_t *addr, size_t n, size_t size, size_t warmup,
                  const el_geom_t *geom, const double *lat, size_t nlevels, double *hit,
                  double *ns)
{
    /* ===== YOUR CODE HERE: el_sim_hit_rates, then el_amat ===== */
    (void)addr, (void)n, (void)size, (void)warmup, (void)geom, (void)lat, (void)nlevels, (void)hit,
        (void)ns;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}
