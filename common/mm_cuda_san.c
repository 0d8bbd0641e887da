/* Sanitizer settings every CUDA lab's programs need, compiled into each of them by
 * common/lab-build.mk (an empty file without CUDA or without AddressSanitizer). */
#ifdef MM_HAVE_CUDA
#if defined(__SANITIZE_ADDRESS__)
#define MM_CUDA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MM_CUDA_ASAN 1
#endif
#endif
#endif

#ifdef MM_CUDA_ASAN
/* AddressSanitizer's defaults for this program: the CUDA driver maps memory in the shadow gap,
 * which ASan protects by default (the driver's initialisation then fails with "out of memory").
 * ASAN_OPTIONS in the environment still adds to and overrides this. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "protect_shadow_gap=0";
}

/* Allocations the CUDA libraries make and never free are not the lab's leaks. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libcuda.so\nleak:libcudart.so\nleak:libnvidia-\n";
}
#endif
