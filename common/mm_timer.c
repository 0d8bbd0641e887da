/* Monotonic wall-clock timing (see mm_timer.h). */
#include "mm_timer.h"
#include <time.h>

uint64_t mm_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double mm_elapsed_s(uint64_t start_ns)
{
    return (double)(mm_now_ns() - start_ns) * 1e-9;
}
