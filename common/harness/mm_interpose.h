/* The benchmarks' guard against interposition: code under test that defines memcpy, malloc,
 * clock_gettime or another C library function the baseline and the timer call would replace it
 * for the whole program. Used by mm_bench_begin (mm_bench_report.c). */
#ifndef MM_INTERPOSE_H
#define MM_INTERPOSE_H

/* The name of the first such function the program defines itself, or NULL when none is (and in
 * sanitizer builds and programs that are not position-independent, which are not checked). */
const char *mm_interposed_fn(void);

#endif
