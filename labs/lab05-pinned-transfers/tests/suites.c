/* Lab 05's test program: the suites it runs (main() is common/mm_ck_main.c). */
#include "mm_check.h"

Suite *bandwidth_suite(void);
Suite *plan_suite(void);
Suite *sim_suite(void);
Suite *pipeline_suite(void);

Suite *(*const mm_lab_suites[])(void) = { bandwidth_suite, plan_suite, sim_suite, pipeline_suite,
                                          NULL };

#if defined(MM_HAVE_CUDA) && defined(__SANITIZE_ADDRESS__)
/* Under AddressSanitizer the CUDA driver needs the shadow gap unprotected (it maps memory
 * there), and the driver's own allocations it never frees are not this lab's leaks. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "protect_shadow_gap=0";
}
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libcuda.so\nleak:libcudart.so\nleak:libnvidia-\n";
}
#endif
