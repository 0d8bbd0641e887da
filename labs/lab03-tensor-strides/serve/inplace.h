/* Lab 03: what the harness and the lab's serve code (serve/inplace.c) agree on for the view
 * operations called with out == v ("out may be v" in include/view.h): the one call a stub
 * cannot make, since it copies v and *out into shared memory separately. */
#ifndef TV_SERVE_INPLACE_H
#define TV_SERVE_INPLACE_H
#include <stdint.h>
#include "view.h"

enum { TV_IP_PERMUTE, TV_IP_TRANSPOSE, TV_IP_SLICE, TV_IP_EXPAND };

/* The workload's input: the view, the operation and its arguments (the ones it takes). Its
 * output is the tv_t after the call. */
typedef struct {
    tv_t v;
    int op;                          /* TV_IP_* */
    unsigned d0, d1;                 /* transpose's dimensions; slice's is d0 */
    int64_t start, stop, step;       /* slice */
    unsigned ndim;                   /* expand's new rank */
    unsigned perm[TV_MAX_DIMS];      /* permute */
    int64_t shape[TV_MAX_DIMS];      /* expand */
} tv_inplace_t;

/* The free_copy workload's input: the pointer tv_reshape put in *copy. */
typedef struct {
    uint64_t ptr;
} tv_free_copy_t;

#endif
