/* Lab 02's test program: the suites it runs (main() is common/mm_ck_main.c). */
#include "mm_check.h"

Suite *amat_suite(void);
Suite *chase_suite(void);
Suite *knees_suite(void);
Suite *cachesim_suite(void);
Suite *predict_suite(void);

Suite *(*const mm_lab_suites[])(void) = { amat_suite,     chase_suite,   knees_suite,
                                          cachesim_suite, predict_suite, NULL };
