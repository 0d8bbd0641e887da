/* Lab 01's test program: the suites it runs (main() is common/mm_ck_main.c). */
#include "mm_check.h"

Suite *counters_suite(void);
Suite *stats_suite(void);
Suite *partials_suite(void);
Suite *linesize_suite(void);

Suite *(*const mm_lab_suites[])(void) = { counters_suite, stats_suite, partials_suite,
                                           linesize_suite, NULL };
