/* Lab 05's test program: the suites it runs (main() is common/mm_ck_main.c). */
#include "mm_check.h"

Suite *bandwidth_suite(void);
Suite *plan_suite(void);
Suite *sim_suite(void);
Suite *pipeline_suite(void);

Suite *(*const mm_lab_suites[])(void) = { bandwidth_suite, plan_suite, sim_suite, pipeline_suite,
                                          NULL };

