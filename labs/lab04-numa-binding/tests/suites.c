/* Lab 04's test program: the suites it runs (main() is common/mm_ck_main.c). */
#include "mm_check.h"

Suite *topo_suite(void);
Suite *plan_suite(void);
Suite *bind_suite(void);
Suite *place_suite(void);

Suite *(*const mm_lab_suites[])(void) = { topo_suite, plan_suite, bind_suite, place_suite, NULL };
