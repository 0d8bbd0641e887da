/* Lab 07's test program: the suites it runs (main() is common/mm_ck_main.c). */
#include "mm_check.h"

Suite *sizes_suite(void);
Suite *blockset_suite(void);
Suite *alloc_suite(void);
Suite *streams_suite(void);
Suite *oom_suite(void);
Suite *stats_suite(void);
Suite *cuda_suite(void);
Suite *heap_suite(void);

Suite *(*const mm_lab_suites[])(void) = { sizes_suite, blockset_suite, alloc_suite, streams_suite,
                                           oom_suite,   stats_suite,    heap_suite,  cuda_suite,
                                           NULL };
