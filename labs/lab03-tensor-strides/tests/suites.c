/* Lab 03's test program: the suites it runs (main() is common/mm_ck_main.c). */
#include "mm_check.h"

Suite *view_suite(void);
Suite *reshape_suite(void);
Suite *copy_suite(void);
Suite *trace_suite(void);

Suite *(*const mm_lab_suites[])(void) = { view_suite, reshape_suite, copy_suite, trace_suite,
                                           NULL };
