/* Lab 11 tests under AddressSanitizer (make test's SAN=asan build; an empty file otherwise): the
 * embedded interpreter is never finalized (a test's process ends while it is alive, as Python's
 * own exit leaves most of its memory), so what CPython, NumPy and the libraries they load hold at
 * exit is not a leak of the lab. Your code's references are counted by the tests themselves. */
#if defined(__SANITIZE_ADDRESS__)
#define TU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TU_ASAN 1
#endif
#endif

#ifdef TU_ASAN
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:_PyMem_RawMalloc\nleak:_PyMem_RawCalloc\nleak:_PyMem_RawRealloc\n"
           "leak:_multiarray_umath\nleak:libcrypto.so\nleak:libpython3\n";
}
#endif
