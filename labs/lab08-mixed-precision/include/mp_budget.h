/* Lab 08, part C: how many bytes one GPU needs to train (or serve) a transformer: weights,
 * gradients, optimizer states, activations, KV cache; ZeRO sharding over data-parallel ranks,
 * tensor parallelism, activation recomputation; and the largest micro-batch that fits.
 * All figures are bytes per GPU. GB = 10^9 bytes, GiB = 2^30 bytes. */
#ifndef MP_BUDGET_H
#define MP_BUDGET_H
#include <stddef.h>
#include <stdint.h>

/* Numeric recipes. Bytes per parameter (see mp_bytes_per_param):
 *   MP_FP32      everything fp32
 *   MP_AMP_FP16  fp16 weights and gradients, plus an fp32 master copy of the weights (counted with
 *                the optimizer states, as the ZeRO paper does)
 *   MP_AMP_BF16  the same with bf16 instead of fp16: the same bytes
 *   MP_BF16      "pure" bf16: weights, gradients and optimizer states all bf16, no master copy */
typedef enum { MP_FP32, MP_AMP_FP16, MP_AMP_BF16, MP_BF16 } mp_recipe_t;
typedef enum { MP_SGD, MP_MOMENTUM, MP_ADAM } mp_optimizer_t;
typedef enum { MP_RECOMPUTE_NONE, MP_RECOMPUTE_SELECTIVE, MP_RECOMPUTE_FULL } mp_recompute_t;
typedef enum { MP_TRAIN, MP_INFER } mp_mode_t;
/* The layer whose activations are counted (see mp_activation_bytes):
 *   MP_ARCH_GPT    GPT-3 style: LayerNorm, a GeLU MLP of width 4h, dropout (Korthikanti et al.)
 *   MP_ARCH_LLAMA  Llama style: RMSNorm, a SwiGLU MLP of width ffn_hidden, no dropout */
typedef enum { MP_ARCH_GPT, MP_ARCH_LLAMA } mp_arch_t;

typedef struct {
    mp_mode_t mode;
    int64_t params;       /* Psi: the model's parameter count */
    int64_t layers;       /* L: transformer layers */
    int64_t hidden;       /* h: hidden size */
    int64_t heads;        /* a: attention heads; the head size is hidden / heads */
    int64_t kv_heads;     /* key/value heads (= heads, or fewer with grouped-query attention) */
    int64_t seq_len;      /* s: tokens per sequence (inference: tokens kept in the KV cache) */
    int64_t micro_batch;  /* b: sequences per GPU per step */
    mp_recipe_t recipe;
    mp_optimizer_t optimizer;
    int64_t zero_stage;   /* 0..3: 1 shards optimizer states, 2 also gradients, 3 also weights */
    int64_t dp;           /* N_d: data-parallel ranks that ZeRO shards over */
    int64_t tp;           /* t: tensor-parallel ranks (each holds 1/t of every layer) */
    int seq_parallel;     /* nonzero: Megatron sequence parallelism (with tensor parallelism) */
    mp_recompute_t recompute;
    mp_arch_t arch;       /* the layer's kind (activations only) */
    int64_t ffn_hidden;   /* f: the MLP's inner width (MP_ARCH_LLAMA only; Llama-2-7B: 11008) */
    int flash;            /* nonzero: FlashAttention, which never stores the a*s*s*b matrices */
    int64_t overhead;     /* other bytes per GPU: CUDA context, communication buffers, allocator
                           * fragmentation; your estimate, counted as is (>= 0) */
    int64_t gpu_mem;      /* bytes of memory of one GPU (used by mp_max_micro_batch) */
} mp_config_t;

typedef struct {
    uint64_t weights, grads, optimizer; /* bytes per parameter, before any sharding */
} mp_per_param_t;

typedef struct {
    uint64_t weights, grads, optimizer, activations, kv_cache, other, total;
} mp_budget_t;

/* A config with every size 0 (to be set) and: MP_TRAIN, MP_AMP_BF16, MP_ADAM, ZeRO stage 0,
 * dp 1, tp 1, micro_batch 1, no sequence parallelism, MP_RECOMPUTE_NONE, MP_ARCH_GPT, no flash,
 * overhead 0, gpu_mem 0 (given). */
void mp_config_init(mp_config_t *c);

/* Bytes per parameter of a recipe and optimizer:
 *                 weights grads  optimizer: SGD  momentum  Adam (m and v)
 *   MP_FP32          4      4               0      4        8
 *   MP_AMP_FP16/BF16 2      2               4      8       12   (fp32 master 4 + fp32 states)
 *   MP_BF16          2      2               0      2        4
 * so mixed-precision Adam costs 2 + 2 + 12 = 16 bytes per parameter (ZeRO, arXiv 1910.02054).
 * Returns 0;
 *   -EINVAL: a NULL out or a value outside the enums. */
int mp_bytes_per_param(mp_recipe_t recipe, mp_optimizer_t optimizer, mp_per_param_t *out);

/* Model states per GPU. With P = ceil(params / tp) parameters on this GPU's tensor-parallel slice
 * and S = ceil(P / dp) its ZeRO shard, and w, g, o the bytes per parameter:
 *   stage 0: w*P + g*P + o*P          stage 2: w*P + g*S + o*S
 *   stage 1: w*P + g*P + o*S          stage 3: w*S + g*S + o*S
 * (params 7.5e9, dp 64, mixed-precision Adam: 120 / 31.4 / 16.6 / 1.9 GB for stages 0..3).
 * MP_INFER: weights w*P only (no ZeRO sharding), grads and optimizer 0.
 * Uses mode, params (>= 1), recipe, optimizer, zero_stage (0..3), dp (>= 1), tp (>= 1).
 * Returns 0 and sets the three outputs;
 *   -EINVAL:    NULL pointers or a field out of range;
 *   -EOVERFLOW: a figure does not fit in 64 bits. */
int mp_state_bytes(const mp_config_t *c, uint64_t *weights, uint64_t *grads, uint64_t *optimizer);

/* Activations one training micro-batch keeps for the backward pass, summed over all layers, on
 * one GPU, with 16-bit activations. Per layer, with s = seq_len, b = micro_batch, h = hidden,
 * a = heads, f = ffn_hidden, t = tp, "sbh" = s*b*h, "sbf" = s*b*f and "as2b" = a*s*s*b:
 *     per_layer = R + ceil(Q / t), where, for MP_ARCH_GPT (Korthikanti et al., "Reducing
 *     Activation Recomputation in Large Transformer Models", arXiv 2205.05198: a GPT-3 layer with
 *     LayerNorm, a 4h GeLU MLP, dropout and its 1-byte masks):
 *       MP_RECOMPUTE_NONE:      R = 10 sbh,  Q = 24 sbh + 5 as2b    (t = 1: sbh(34 + 5as/h))
 *       MP_RECOMPUTE_SELECTIVE: R = 10 sbh,  Q = 24 sbh             (attention recomputed)
 *       MP_RECOMPUTE_FULL:      R =  2 sbh,  Q = 0                  (only each layer's input)
 *     and for MP_ARCH_LLAMA (RMSNorm, SwiGLU MLP of width f, no dropout; the per-token
 *     statistics of the norms are left out, under 0.1%):
 *       MP_RECOMPUTE_NONE:      R =  8 sbh,  Q = 8 sbh + 8 sbf + 2 as2b
 *       MP_RECOMPUTE_SELECTIVE: R =  8 sbh,  Q = 8 sbh + 8 sbf
 *       MP_RECOMPUTE_FULL:      R =  2 sbh,  Q = 0
 *     flash nonzero drops the as2b term of Q (FlashAttention keeps no s*s matrix; its
 *     per-row statistics are left out, under 0.1%); with seq_parallel nonzero, Q += R and R = 0
 *     (e.g. GPT selective: 34 sbh / t).
 * total = layers * per_layer, doubled for MP_FP32 (4-byte activations). Ignores mode.
 * Uses recipe, layers, hidden, heads, seq_len, micro_batch (all >= 1), tp (>= 1), recompute,
 * arch, flash, and for MP_ARCH_LLAMA ffn_hidden (>= 1; ignored for MP_ARCH_GPT); hidden must be
 * a multiple of heads and heads a multiple of tp.
 * Returns 0;
 *   -EINVAL:    NULL, a field out of range;
 *   -EOVERFLOW: a figure does not fit in 64 bits. */
int mp_activation_bytes(const mp_config_t *c, uint64_t *out);

/* KV cache of inference on one GPU: keys and values of every layer for micro_batch sequences of
 * seq_len tokens: 2 * layers * ceil(kv_heads / tp) * (hidden / heads) * seq_len * micro_batch * e,
 * e = 4 bytes for MP_FP32, 2 otherwise (Llama-2-7B, s 2048, b 1, fp16: 1073741824 bytes).
 * Ignores mode. Uses recipe, layers, hidden, heads, kv_heads, seq_len, micro_batch (all >= 1),
 * tp (>= 1); hidden a multiple of heads, heads a multiple of kv_heads and of tp.
 * Returns 0;
 *   -EINVAL:    NULL, a field out of range;
 *   -EOVERFLOW: a figure does not fit in 64 bits. */
int mp_kv_cache_bytes(const mp_config_t *c, uint64_t *out);

/* The whole budget of one GPU. MP_TRAIN: model states + activations (kv_cache 0); MP_INFER:
 * weights + KV cache (grads, optimizer, activations 0). other = overhead (which must be >= 0);
 * total = the sum of the six. Uses the fields of the functions above for its mode.
 * Returns 0 and fills *out;
 *   -EINVAL:    NULL, a field out of range (*out untouched);
 *   -EOVERFLOW: a figure does not fit in 64 bits. */
int mp_budget(const mp_config_t *c, mp_budget_t *out);

#define MP_MAX_MICRO_BATCH (1 << 20)

/* The largest micro-batch b in 1..MP_MAX_MICRO_BATCH whose budget total (c with micro_batch = b)
 * is <= gpu_mem (c->micro_batch itself is ignored). Returns 0 and sets *b;
 *   -ENOSPC: not even b = 1 fits;
 *   -EINVAL: a NULL pointer, gpu_mem < 1 or a config mp_budget rejects. */
int mp_max_micro_batch(const mp_config_t *c, int64_t *b);

/* Writes a table of *b into buf, snprintf-style: at most len bytes including the final NUL
 * (buf may be NULL when len is 0), and returns the length the whole text has (so a return
 * value >= len means it was cut). One header line, then one line per component and the total:
 *     "%-12s %10.2f %10.2f %6.1f%%\n"  name, GB, GiB, percent of total (0.0 if total is 0)
 * with names "weights", "gradients", "optimizer", "activations", "kv cache", "other", "total";
 * then, if gpu_mem > 0, "%-12s %10.2f %10.2f\n" lines "gpu memory" (gpu_mem) and "headroom"
 * (gpu_mem - total, negative when it does not fit). Never prints. Returns that length;
 *   -EINVAL: b is NULL, buf is NULL with len > 0, or gpu_mem < 0. */
int mp_format_breakdown(const mp_budget_t *b, int64_t gpu_mem, char *buf, size_t len);

#endif
