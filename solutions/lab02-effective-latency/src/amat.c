/* Lab 02, part A (reference): average memory access time (see amat.h). */
#include "amat.h"
#include <errno.h>
#include <math.h>

static int valid(const double *hit, const double *lat, size_t ncaches)
{
    for (size_t i = 0; i < ncaches; i++)
        if (!isfinite(hit[i]) || hit[i] < 0.0 || hit[i] > 1.0)
            return 0;
    for (size_t i = 0; i <= ncaches; i++)
        if (!isfinite(lat[i]) || !(lat[i] > 0.0))
            return 0;
    return 1;
}

int el_amat(const double *hit, const double *lat, size_t ncaches, double *out)
{
    if (!lat || !out || (!hit && ncaches > 0) || ncaches > EL_MAX_LEVELS)
        return -EINVAL;
    if (!valid(hit, lat, ncaches))
        return -EINVAL;
    double reach = 1.0, sum = 0.0; /* reach: share of the loads that get to level i */
    for (size_t i = 0; i < ncaches; i++) {
        sum += reach * hit[i] * lat[i];
        reach *= 1.0 - hit[i];
    }
    *out = sum + reach * lat[ncaches];
    return 0;
}
