/* Lab 06's test program: the suites it runs (main() is common/mm_ck_main.c). */
#include "mm_check.h"

Suite *format_suite(void);
Suite *reader_suite(void);
Suite *sampler_suite(void);
Suite *stream_suite(void);
Suite *loader_suite(void);

Suite *(*const mm_lab_suites[])(void) = { format_suite, reader_suite, sampler_suite,
                                          stream_suite, loader_suite, NULL };
