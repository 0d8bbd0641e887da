/* Attributes the shared helpers' declarations use, where the compiler knows them. */
#ifndef MM_ATTR_H
#define MM_ATTR_H

/* On a function that returns 0 or -errno (or a count, or -1): a caller that drops the result
 * gets a warning (an error under WERROR=1), since the failure would pass unnoticed. */
#if defined(__GNUC__) || defined(__clang__)
#define MM_MUST_CHECK __attribute__((warn_unused_result))
#else
#define MM_MUST_CHECK
#endif

#endif
