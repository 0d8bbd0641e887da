/* Lab 08's test program: the suites it runs (main() is common/mm_ck_main.c). */
#include "mm_check.h"

Suite *convert_suite(void);
Suite *scaler_suite(void);
Suite *budget_suite(void);
Suite *cli_suite(void);

Suite *(*const mm_lab_suites[])(void) = { convert_suite, scaler_suite, budget_suite, cli_suite,
                                          NULL };
