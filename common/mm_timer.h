/* Monotonic wall-clock timing for benchmarks and experiments. */
#ifndef MM_TIMER_H
#define MM_TIMER_H
#include <stdint.h>

/* Nanoseconds from CLOCK_MONOTONIC; only differences are meaningful. Never fails. */
uint64_t mm_now_ns(void);

/* Seconds elapsed since `start_ns` (a value returned by mm_now_ns). */
double mm_elapsed_s(uint64_t start_ns);

#endif
