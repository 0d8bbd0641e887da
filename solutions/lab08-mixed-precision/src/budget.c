/* Lab 08, part C (reference): the memory budget of one GPU (see mp_budget.h). */
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

/* a * b and a + b that remember an overflow in *ovf instead of wrapping. */
static uint64_t mul(uint64_t a, uint64_t b, int *ovf)
{
    uint64_t r;
    *ovf |= __builtin_mul_overflow(a, b, &r);
    return r;
}

static uint64_t add(uint64_t a, uint64_t b, int *ovf)
{
    uint64_t r;
    *ovf |= __builtin_add_overflow(a, b, &r);
    return r;
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

int mp_bytes_per_param(mp_recipe_t recipe, mp_optimizer_t optimizer, mp_per_param_t *out)
{
    /* optimizer bytes: [recipe][SGD, momentum, Adam]; mixed precision adds the fp32 master */
    static const uint64_t states[4][3] = { { 0, 4, 8 }, { 4, 8, 12 }, { 4, 8, 12 }, { 0, 2, 4 } };
    if (!out || (unsigned)recipe > MP_BF16 || (unsigned)optimizer > MP_ADAM)
        return -EINVAL;
    uint64_t w = recipe == MP_FP32 ? 4 : 2;
    *out = (mp_per_param_t){ w, w, states[recipe][optimizer] };
    return 0;
}

int mp_state_bytes(const mp_config_t *c, uint64_t *weights, uint64_t *grads, uint64_t *optimizer)
{
    mp_per_param_t pp;
    if (!c || !weights || !grads || !optimizer || (unsigned)c->mode > MP_INFER ||
        c->params < 1 || c->zero_stage < 0 || c->zero_stage > 3 || c->dp < 1 || c->tp < 1 ||
        mp_bytes_per_param(c->recipe, c->optimizer, &pp) != 0)
        return -EINVAL;
    uint64_t p = ceil_div((uint64_t)c->params, (uint64_t)c->tp);
    uint64_t shard = ceil_div(p, (uint64_t)c->dp);
    int ovf = 0, train = c->mode == MP_TRAIN;
    uint64_t w = mul(pp.weights, c->zero_stage >= 3 && train ? shard : p, &ovf);
    uint64_t g = train ? mul(pp.grads, c->zero_stage >= 2 ? shard : p, &ovf) : 0;
    uint64_t o = train ? mul(pp.optimizer, c->zero_stage >= 1 ? shard : p, &ovf) : 0;
    if (ovf)
        return -EOVERFLOW;
    *weights = w;
    *grads = g;
    *optimizer = o;
    return 0;
}

/* The fields activations and the KV cache both need. */
static int shape_ok(const mp_config_t *c)
{
    return (unsigned)c->recipe <= MP_BF16 && c->layers >= 1 && c->hidden >= 1 && c->heads >= 1 &&
           c->hidden % c->heads == 0 && c->tp >= 1 && c->heads % c->tp == 0 &&
           c->seq_len >= 1 && c->micro_batch >= 1;
}

/* The bytes one layer keeps: R on every tensor-parallel rank, Q split over them (Q += R with
 * sequence parallelism); see the table in mp_budget.h. */
static void layer_terms(const mp_config_t *c, uint64_t sbh, uint64_t sbf, uint64_t as2b,
                        uint64_t *r, uint64_t *q, int *ovf)
{
    int llama = c->arch == MP_ARCH_LLAMA;
    *r = mul(llama ? 8 : 10, sbh, ovf);
    *q = llama ? add(mul(8, sbh, ovf), mul(8, sbf, ovf), ovf) : mul(24, sbh, ovf);
    if (c->recompute == MP_RECOMPUTE_NONE && !c->flash)
        *q = add(*q, mul(llama ? 2 : 5, as2b, ovf), ovf);
    else if (c->recompute == MP_RECOMPUTE_FULL)
        *r = mul(2, sbh, ovf), *q = 0;
    if (c->seq_parallel)
        *q = add(*q, *r, ovf), *r = 0;
}

int mp_activation_bytes(const mp_config_t *c, uint64_t *out)
{
    if (!c || !out || !shape_ok(c) || (unsigned)c->recompute > MP_RECOMPUTE_FULL ||
        (unsigned)c->arch > MP_ARCH_LLAMA || (c->arch == MP_ARCH_LLAMA && c->ffn_hidden < 1))
        return -EINVAL;
    int ovf = 0;
    uint64_t s = (uint64_t)c->seq_len, b = (uint64_t)c->micro_batch, r, q;
    uint64_t sbh = mul(mul(s, b, &ovf), (uint64_t)c->hidden, &ovf);
    uint64_t sbf = c->arch == MP_ARCH_LLAMA ? mul(mul(s, b, &ovf), (uint64_t)c->ffn_hidden, &ovf)
                                            : 0;
    uint64_t as2b = mul(mul(mul((uint64_t)c->heads, s, &ovf), s, &ovf), b, &ovf);
    layer_terms(c, sbh, sbf, as2b, &r, &q, &ovf);
    uint64_t layer = add(r, ceil_div(q, (uint64_t)c->tp), &ovf);
    uint64_t total = mul(mul((uint64_t)c->layers, layer, &ovf), c->recipe == MP_FP32 ? 2 : 1, &ovf);
    if (ovf)
        return -EOVERFLOW;
    *out = total;
    return 0;
}

int mp_kv_cache_bytes(const mp_config_t *c, uint64_t *out)
{
    if (!c || !out || !shape_ok(c) || c->kv_heads < 1 || c->heads % c->kv_heads != 0)
        return -EINVAL;
    int ovf = 0;
    uint64_t kv = ceil_div((uint64_t)c->kv_heads, (uint64_t)c->tp);
    uint64_t head = (uint64_t)(c->hidden / c->heads), e = c->recipe == MP_FP32 ? 4 : 2;
    uint64_t per_token = mul(mul(mul(2 * e, (uint64_t)c->layers, &ovf), kv, &ovf), head, &ovf);
    uint64_t tokens = mul((uint64_t)c->seq_len, (uint64_t)c->micro_batch, &ovf);
    uint64_t total = mul(per_token, tokens, &ovf);
    if (ovf)
        return -EOVERFLOW;
    *out = total;
    return 0;
}

int mp_budget(const mp_config_t *c, mp_budget_t *out)
{
    mp_budget_t r = { 0 };
    if (!c || !out || c->overhead < 0)
        return -EINVAL;
    int rc = mp_state_bytes(c, &r.weights, &r.grads, &r.optimizer);
    if (rc == 0)
        rc = c->mode == MP_TRAIN ? mp_activation_bytes(c, &r.activations)
                                 : mp_kv_cache_bytes(c, &r.kv_cache);
    if (rc != 0)
        return rc;
    r.other = (uint64_t)c->overhead;
    int ovf = 0;
    uint64_t parts[6] = { r.weights, r.grads, r.optimizer, r.activations, r.kv_cache, r.other };
    for (int i = 0; i < 6; i++)
        r.total = add(r.total, parts[i], &ovf);
    if (ovf)
        return -EOVERFLOW;
    *out = r;
    return 0;
}

/* Sets *fit to whether micro-batch b fits; returns mp_budget's error. */
static int fits(const mp_config_t *c, int64_t b, int *fit)
{
    mp_config_t t = *c;
    mp_budget_t r;
    t.micro_batch = b;
    int rc = mp_budget(&t, &r);
    *fit = rc == 0 && r.total <= (uint64_t)c->gpu_mem;
    return rc;
}

int mp_max_micro_batch(const mp_config_t *c, int64_t *b)
{
    if (!c || !b || c->gpu_mem < 1)
        return -EINVAL;
    int fit, rc = fits(c, 1, &fit);
    if (rc != 0)
        return rc;
    if (!fit)
        return -ENOSPC;
    int64_t lo = 1, hi = MP_MAX_MICRO_BATCH; /* lo fits; find the last b that does */
    fits(c, hi, &fit);
    if (fit)
        lo = hi;
    while (hi - lo > 1) { /* totals grow with b; an overflow counts as "does not fit" */
        int64_t mid = lo + (hi - lo) / 2;
        fits(c, mid, &fit);
        if (fit)
            lo = mid;
        else
            hi = mid;
    }
    *b = lo;
    return 0;
}

/* snprintf at buf + *pos, keeping count of the whole length even once buf is full. */
static void emit(char *buf, size_t len, size_t *pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void emit(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(*pos < len ? buf + *pos : NULL, *pos < len ? len - *pos : 0, fmt, ap);
    va_end(ap);
    if (n > 0)
        *pos += (size_t)n;
}

int mp_format_breakdown(const mp_budget_t *b, int64_t gpu_mem, char *buf, size_t len)
{
    if (!b || (!buf && len > 0) || gpu_mem < 0)
        return -EINVAL;
    const char *name[7] = { "weights", "gradients", "optimizer", "activations", "kv cache",
                            "other", "total" };
    uint64_t v[7] = { b->weights, b->grads, b->optimizer, b->activations, b->kv_cache, b->other,
                      b->total };
    size_t pos = 0;
    if (len > 0)
        buf[0] = '\0';
    emit(buf, len, &pos, "%-12s %10s %10s %7s\n", "component", "GB", "GiB", "share");
    for (int i = 0; i < 7; i++)
        emit(buf, len, &pos, "%-12s %10.2f %10.2f %6.1f%%\n", name[i], (double)v[i] / 1e9,
             (double)v[i] / 0x1p30, b->total ? 100.0 * (double)v[i] / (double)b->total : 0.0);
    if (gpu_mem > 0) {
        double free_b = (double)gpu_mem - (double)b->total;
        emit(buf, len, &pos, "%-12s %10.2f %10.2f\n", "gpu memory", (double)gpu_mem / 1e9,
             (double)gpu_mem / 0x1p30);
        emit(buf, len, &pos, "%-12s %10.2f %10.2f\n", "headroom", free_b / 1e9, free_b / 0x1p30);
    }
    return (int)pos;
}
