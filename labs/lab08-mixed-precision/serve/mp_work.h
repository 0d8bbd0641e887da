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
    uint64_t src, dst; /* addresses of n elements each, in memory the harness shares; src 0 (the
                          narrowing ops only): input i is the fp32 whose bits are first + i */
    uint64_t first;   /* with src 0: the first input's bits (first + n <= 2^32) */
} mp_work_convert_t;

/* With src 0 and dst 0 (n a multiple of 4), the outputs stay in the student's process and the
 * workload answers their sum (out: one uint64_t): mp_work_mix over the batch's 64-bit words,
 * outputs 4j .. 4j + 3 in word j, the lowest in the low bits. The harness works out the same sum
 * from its oracle's answers, and asks for the outputs themselves when the sums differ. Any
 * output that differs changes the sum: a word's mix is a bijection of the word, so two wrong
 * outputs cancel only by chance (about 2^-64). */
static inline uint64_t mp_work_mix(uint64_t j, uint64_t w)
{
    uint64_t x = (w ^ (j * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 31;
    return x * 0x94D049BB133111EBull;
}

#endif
