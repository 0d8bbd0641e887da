/* Aligned allocation (see mm_aligned.h). */
#include "mm_aligned.h"
#include <errno.h>
#include <stdlib.h>

int mm_is_pow2(size_t x)
{
    return x != 0 && (x & (x - 1)) == 0;
}

void *mm_aligned_alloc(size_t align, size_t size)
{
    if (!mm_is_pow2(align) || size == 0) {
        errno = EINVAL;
        return NULL;
    }
    if (align < sizeof(void *))
        align = sizeof(void *);
    void *p = NULL;
    int rc = posix_memalign(&p, align, size);
    if (rc != 0) {
        errno = rc;
        return NULL;
    }
    return p;
}

void mm_aligned_free(void *p)
{
    free(p);
}
