/* Lab 08: the requests of its workloads, which the tests and the benchmark send: `convert`
 * (serve/convert_work.c), every input of a conversion, batch by batch, in the student's process;
 * `scaler_run` (serve/scaler_work.c), many steps of the loss scaler in one call. */
#ifndef MP_WORK_H
#define MP_WORK_H
#include <stdint.h>
#include <string.h>
#include "mp_scaler.h"

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
    uint32_t threads; /* 1..MP_WORK_MAX_THREADS, each on its own run of whole blocks */
    uint64_t seed;    /* the bulk ops: seeds each block's input offset and piece lengths */
    uint64_t n;       /* elements */
    uint64_t src, dst; /* addresses of n elements each, in memory the harness shares; src 0 (the
                          narrowing ops only): input i is the fp32 whose bits are first + i */
    uint64_t first;   /* with src 0: the first input's bits (first + n <= 2^32); with src, it only
                         seeds the draws (below) */
} mp_work_convert_t;

/* Elements are converted MP_WORK_BLOCK at a time, from the batch's first. A bulk op draws a
 * block's input offset and piece lengths from seed + first + (the block's first element), so a
 * block is cut the same way in any batch that holds it at a multiple of MP_WORK_BLOCK: a part
 * of a batch run again (first moved on by such a multiple) gives the same calls. */
#define MP_WORK_BLOCK 4096

/* With src 0 and dst 0 (n and first even), the outputs stay in the student's process and the
 * workload answers their sum (out: one uint32_t, mod 2^32): mp_work_mix over the batch's units,
 * unit u being the outputs of inputs 2u and 2u + 1 (their 4 bytes, as memory holds them). The
 * harness works out the same sum from its oracle's answers, and asks for the outputs themselves
 * when the sums differ. Any one wrong unit changes the sum, since a unit's mix is a bijection
 * of the unit (an xor, then murmur3's finalizer, every step invertible); several cancel only by
 * chance, about 2^-32. Multiplies of 32-bit lanes: a loop of them vectorizes (SSE4.1, AVX2,
 * AVX-512, NEON), so that the sum costs little beside the conversions. */
#define MP_WORK_KEY 0x9E3779B9u /* unit u's key: u * MP_WORK_KEY */

/* murmur3's 32-bit finalizer. */
static inline uint32_t mp_work_fmix(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    x *= 0xC2B2AE35u;
    return x ^ (x >> 16);
}

static inline uint32_t mp_work_mix(uint32_t u, uint32_t w)
{
    return mp_work_fmix(w ^ (u * MP_WORK_KEY));
}

/* The sum of a block's outputs o[0 .. MP_WORK_BLOCK), o[0] being unit u's: mp_work_mix with the
 * key stepped by addition, over a fixed trip count (the compiler vectorizes it). */
static inline uint32_t mp_work_sum_block(const uint16_t *o, uint32_t u)
{
    uint32_t sum = 0, key = u * MP_WORK_KEY;
    for (uint32_t j = 0; j < MP_WORK_BLOCK / 2; j++, key += MP_WORK_KEY) {
        uint32_t w;
        memcpy(&w, o + 2 * j, sizeof w);
        sum += mp_work_fmix(w ^ key);
    }
    return sum;
}

/* The sum of outputs o[0 .. 2 * units), o[0] being unit u's. */
static inline uint32_t mp_work_sum(const uint16_t *o, uint32_t u, uint64_t units)
{
    uint32_t sum = 0;
    uint64_t j = 0;
    for (; units - j >= MP_WORK_BLOCK / 2; j += MP_WORK_BLOCK / 2)
        sum += mp_work_sum_block(o + 2 * j, u + (uint32_t)j);
    for (; j < units; j++) {
        uint32_t w;
        memcpy(&w, o + 2 * j, sizeof w);
        sum += mp_work_mix(u + (uint32_t)j, w);
    }
    return sum;
}

/* `scaler_run`: mp_scaler_update(&s, found_inf[k]) for k = 0 .. n - 1 on the student's copy of
 * s, answering after each step its result and the scaler (out: n mp_work_step_t). */
#define MP_WORK_MAX_STEPS 4096
typedef struct {
    mp_scaler_t s; /* as the harness has it (made by mp_scaler_init) */
    uint32_t n;    /* steps, 1..MP_WORK_MAX_STEPS */
    uint8_t found_inf[MP_WORK_MAX_STEPS];
} mp_work_scaler_t;

typedef struct {
    int32_t ret;   /* mp_scaler_update's result */
    mp_scaler_t s; /* the scaler after it */
} mp_work_step_t;

#endif
