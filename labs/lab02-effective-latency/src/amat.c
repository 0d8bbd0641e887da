/* Lab 02, part A: average memory access time (contract and worked example in include/amat.h).
 * Background and hints: labs/lab02-effective-latency/README.md, `make hint LAB=02`. */
#include "amat.h"
#include <errno.h>
#include <math.h>

/* ===== YOUR CODE HERE (optional): extra #includes, your own types and static helpers ===== */

/* ===== END YOUR CODE ===== */

int el_amat(const double *hit, const double *lat, size_t ncaches, double *out)
{
    /* ===== YOUR CODE HERE =====
     * Check every argument first (isfinite() rejects NaN and infinities). Then walk the levels
     * keeping the share of loads that get this far: level i serves reach * hit[i] of them at
     * lat[i] each; memory serves what is left. Write *out only when everything was valid. */
    (void)hit, (void)lat, (void)ncaches, (void)out;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}
