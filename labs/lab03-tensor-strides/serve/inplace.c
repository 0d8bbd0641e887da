/* Lab 03 serve code (runs in the student's process): the view operations with out == v, and
 * free() of the buffer tv_reshape made. The harness checks every result against its model. */
#include "inplace.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int serve_inplace(const void *in, size_t in_len, void *out, size_t out_len);
int serve_free_copy(const void *in, size_t in_len, void *out, size_t out_len);

/* Runs in->op on a copy of in->v with out == v (that copy, at *out); returns the operation's
 * result, or -EINVAL for a malformed request (sizes, operation). *out is the view afterwards. */
int serve_inplace(const void *in, size_t in_len, void *out, size_t out_len)
{
    if (in_len != sizeof(tv_inplace_t) || out_len != sizeof(tv_t))
        return -EINVAL;
    tv_inplace_t a;
    memcpy(&a, in, sizeof a);
    tv_t *v = out;
    *v = a.v;
    switch (a.op) {
    case TV_IP_PERMUTE:
        return tv_permute(v, a.perm, v);
    case TV_IP_TRANSPOSE:
        return tv_transpose(v, a.d0, a.d1, v);
    case TV_IP_SLICE:
        return tv_slice(v, a.d0, a.start, a.stop, a.step, v);
    case TV_IP_EXPAND:
        return a.ndim <= TV_MAX_DIMS ? tv_expand(v, a.ndim, a.shape, v) : -EINVAL;
    default:
        return -EINVAL;
    }
}

/* free() of the pointer in in (tv_free_copy_t), as tv_reshape's contract asks of its caller.
 * Returns 0, or -EINVAL for a malformed request. */
int serve_free_copy(const void *in, size_t in_len, void *out, size_t out_len)
{
    (void)out, (void)out_len;
    if (in_len != sizeof(tv_free_copy_t))
        return -EINVAL;
    tv_free_copy_t a;
    memcpy(&a, in, sizeof a);
    free((void *)(uintptr_t)a.ptr);
    return 0;
}
