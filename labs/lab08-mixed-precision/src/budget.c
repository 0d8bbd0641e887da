/* Lab 08, part C: the memory budget of one GPU (contract in include/mp_budget.h). Every figure
 * is a whole number of bytes: use 64-bit integers and watch for overflow. */
#include "mp_budget.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

void mp_config_init(mp_config_t *c)
{
    *c = (mp_config_t){ .mode = MP_TRAIN, .recipe = MP_AMP_BF16, .optimizer = MP_ADAM,
                        .zero_stage = 0, .dp = 1, .tp = 1, .micro_batch = 1,
                        .recompute = MP_RECOMPUTE_NONE, .arch = MP_ARCH_GPT };
}

/* ===== YOUR CODE HERE: static helpers (a ceiling division; multiplication and addition that
 * notice overflow: __builtin_mul_overflow / __builtin_add_overflow) ===== */
/* ===== END YOUR CODE ===== */

int mp_bytes_per_param(mp_recipe_t recipe, mp_optimizer_t optimizer, mp_per_param_t *out)
{
    /* ===== YOUR CODE HERE: the table in mp_budget.h ===== */
    (void)recipe, (void)optimizer, (void)out;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int mp_state_bytes(const mp_config_t *c, uint64_t *weights, uint64_t *grads, uint64_t *optimizer)
{
    /* ===== YOUR CODE HERE =====
     * Validate the fields this function uses, then: P = ceil(params / tp), S = ceil(P / dp),
     * and for each of weights, grads, optimizer: bytes per parameter * (P or S by stage). */
    (void)c, (void)weights, (void)grads, (void)optimizer;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int mp_activation_bytes(const mp_config_t *c, uint64_t *out)
{
    /* ===== YOUR CODE HERE: per_layer = R + ceil(Q / t), times the layers; R and Q by arch,
     * recompute, flash and seq_parallel (the tables in mp_budget.h) ===== */
    (void)c, (void)out;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int mp_kv_cache_bytes(const mp_config_t *c, uint64_t *out)
{
    /* ===== YOUR CODE HERE ===== */
    (void)c, (void)out;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int mp_budget(const mp_config_t *c, mp_budget_t *out)
{
    /* ===== YOUR CODE HERE: the functions above, by mode; fill a local, copy it out last ===== */
    (void)c, (void)out;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int mp_max_micro_batch(const mp_config_t *c, int64_t *b)
{
    /* ===== YOUR CODE HERE =====
     * The total grows with the micro-batch: a binary search over 1..MP_MAX_MICRO_BATCH on a copy
     * of *c. Treat -EOVERFLOW of a large b as "does not fit". */
    (void)c, (void)b;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}

int mp_format_breakdown(const mp_budget_t *b, int64_t gpu_mem, char *buf, size_t len)
{
    /* ===== YOUR CODE HERE =====
     * snprintf(NULL, 0, ...) measures without writing; keep writing at buf + pos while it fits
     * and count the whole length either way. */
    (void)b, (void)gpu_mem, (void)buf, (void)len;
    return -ENOSYS;
    /* ===== END YOUR CODE ===== */
}
