/* Lab 08: the request of the `convert` workload (serve/convert_work.c), which the tests and the
 * benchmark send: every input of a conversion, batch by batch, in the student's process. */
#ifndef MP_WORK_H
#define MP_WORK_H
#include <stdint.h>

typedef enum {
    MP_WORK_F16,       /* dst[i] = mp_f32_to_f16(src[i])     src fp32, dst 16-bit */
    MP_WORK_BF16,      /* dst[i] = mp_f32_to_bf16(src[i])    src fp32, dst 16-bit */
    MP_WORK_F16_BULK,  /* mp_f32_to_f16_n on pieces of 1..300 elements */
    MP_WORK_BF16_BULK, /* mp_f32_to_bf16_n on pieces of 1..300 elements */
    MP_WORK_F16_WIDEN, /* dst[i] = mp_f16_to_f32(src[i])     src 16-bit, dst fp32 */
    MP_WORK_BF16_WIDEN /* dst[i] = mp_bf16_to_f32(src[i])    src 16-bit, dst fp32 */
} mp_work_op_t;

#define MP_WORK_MAX_THREADS 8
#define MP_WORK_MAX_PIECE 300

typedef struct {
    uint32_t op;      /* mp_work_op_t */
    uint32_t threads; /* 1..MP_WORK_MAX_THREADS, each on its own contiguous part */
    uint64_t seed;    /* the bulk ops: seeds the piece lengths (a part from lo: seed + lo) */
    uint64_t n;       /* elements */
    uint64_t src, dst; /* addresses of n elements each, in memory the harness shares */
} mp_work_convert_t;

#endif
