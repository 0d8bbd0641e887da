/* Lab 02: mm_median (common/mm_bench.h) for the student process, which links no benchmark code
 * (common/lab-build.mk leaves mm_bench.o out of student_lab) while the lab's given walk.c and
 * the chase the handout suggests take medians with it. */
#include <stdlib.h>
#include "mm_bench.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v[0..n) and returns its median (mm_bench.h's contract); n >= 1. */
double mm_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
