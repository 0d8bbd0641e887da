/* Aligned allocation with argument checking (alignment a power of two, size > 0). */
#ifndef MM_ALIGNED_H
#define MM_ALIGNED_H
#include <stddef.h>

/* Returns true when x is a power of two (x > 0). */
int mm_is_pow2(size_t x);

/* Allocates `size` bytes whose address is a multiple of `align`. `align` must be a power of two
 * (any size; values below sizeof(void *) are raised to it) and size > 0. Returns NULL with errno =
 * EINVAL for bad arguments, ENOMEM when out of memory. Free with mm_aligned_free. */
void *mm_aligned_alloc(size_t align, size_t size);

/* Frees memory from mm_aligned_alloc; NULL is ignored. */
void mm_aligned_free(void *p);

#endif
