/* Lab 08 tests, part C: the memory budget. The figures of the ZeRO paper (arXiv 1910.02054),
 * Korthikanti et al.'s activation formulas (arXiv 2205.05198), the Llama-2-7B KV cache, random
 * configurations against the formulas of mp_budget.h, and bad configurations. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "mm_check.h"
#include "mp_budget.h"

/* Llama-2-7B, training, mixed-precision Adam, one GPU. */
static mp_config_t llama7b(void)
{
    mp_config_t c;
    mp_config_init(&c);
    c.params = 6738415616, c.layers = 32, c.hidden = 4096, c.heads = 32, c.kv_heads = 32;
    c.seq_len = 4096, c.micro_batch = 1, c.recipe = MP_AMP_BF16, c.optimizer = MP_ADAM;
    return c;
}

static uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

MM_TEST(test_bytes_per_param)
{
    static const uint64_t want[4][3][3] = {
        { { 4, 4, 0 }, { 4, 4, 4 }, { 4, 4, 8 } },     /* fp32: SGD, momentum, Adam */
        { { 2, 2, 4 }, { 2, 2, 8 }, { 2, 2, 12 } },    /* amp-fp16 */
        { { 2, 2, 4 }, { 2, 2, 8 }, { 2, 2, 12 } },    /* amp-bf16 */
        { { 2, 2, 0 }, { 2, 2, 2 }, { 2, 2, 4 } } };   /* pure bf16 */
    for (int r = 0; r < 4; r++)
        for (int o = 0; o < 3; o++) {
            mp_per_param_t pp;
            MM_ASSERT_OK(mp_bytes_per_param((mp_recipe_t)r, (mp_optimizer_t)o, &pp));
            ck_assert_msg(pp.weights == want[r][o][0] && pp.grads == want[r][o][1] &&
                          pp.optimizer == want[r][o][2],
                          "recipe %d optimizer %d: got %llu/%llu/%llu bytes, want %llu/%llu/%llu",
                          r, o, (unsigned long long)pp.weights, (unsigned long long)pp.grads,
                          (unsigned long long)pp.optimizer, (unsigned long long)want[r][o][0],
                          (unsigned long long)want[r][o][1], (unsigned long long)want[r][o][2]);
        }
    mp_per_param_t pp;
    MM_ASSERT_ERR(mp_bytes_per_param((mp_recipe_t)4, MP_ADAM, &pp), -EINVAL);
    MM_ASSERT_ERR(mp_bytes_per_param(MP_FP32, (mp_optimizer_t)-1, &pp), -EINVAL);
    MM_ASSERT_ERR(mp_bytes_per_param(MP_FP32, MP_ADAM, NULL), -EINVAL);
}
MM_END_TEST

MM_TEST(test_zero_paper_figures)
{
    /* ZeRO, Figure 1: Psi = 7.5B, N_d = 64, K = 12: 120, 31.4, 16.6, 1.9 GB per GPU */
    static const uint64_t want[4] = { 120000000000ull, 31406250000ull, 16640625000ull,
                                      1875000000ull };
    static const double paper_gb[4] = { 120, 31.4, 16.6, 1.9 };
    mp_config_t c = llama7b();
    c.params = 7500000000, c.dp = 64, c.recipe = MP_AMP_FP16;
    for (int stage = 0; stage <= 3; stage++) {
        uint64_t w, g, o;
        c.zero_stage = stage;
        MM_ASSERT_OK(mp_state_bytes(&c, &w, &g, &o));
        ck_assert_msg(w + g + o == want[stage], "ZeRO stage %d, 7.5e9 params over 64 ranks: %llu "
                      "bytes per GPU, want %llu", stage, (unsigned long long)(w + g + o),
                      (unsigned long long)want[stage]);
        ck_assert(fabs((double)(w + g + o) / 1e9 - paper_gb[stage]) < 0.05);
    }
}
MM_END_TEST

/* mp_state_bytes by its formula. */
static void expect_states(const mp_config_t *c, uint64_t want[3])
{
    mp_per_param_t pp;
    MM_ASSERT_OK(mp_bytes_per_param(c->recipe, c->optimizer, &pp));
    uint64_t p = ceil_div((uint64_t)c->params, (uint64_t)c->tp), s = ceil_div(p, (uint64_t)c->dp);
    int train = c->mode == MP_TRAIN;
    want[0] = pp.weights * (train && c->zero_stage == 3 ? s : p);
    want[1] = train ? pp.grads * (c->zero_stage >= 2 ? s : p) : 0;
    want[2] = train ? pp.optimizer * (c->zero_stage >= 1 ? s : p) : 0;
}

static mp_config_t random_config(mm_rng_t *r)
{
    mp_config_t c = llama7b();
    c.mode = mm_rng_unit(r) < 0.8 ? MP_TRAIN : MP_INFER;
    c.params = (int64_t)mm_rng_range(r, 1, 400000000000ull);
    c.recipe = (mp_recipe_t)mm_rng_range(r, 0, 3);
    c.optimizer = (mp_optimizer_t)mm_rng_range(r, 0, 2);
    c.zero_stage = (int64_t)mm_rng_range(r, 0, 3);
    c.dp = (int64_t)mm_rng_range(r, 1, 1024);
    c.tp = (int64_t)1 << mm_rng_range(r, 0, 3);
    c.heads = c.tp * (int64_t)mm_rng_range(r, 1, 16);
    c.kv_heads = c.heads / ((int64_t)1 << mm_rng_range(r, 0, 2)) ?: 1;
    c.kv_heads = c.heads % c.kv_heads ? c.heads : c.kv_heads;
    c.hidden = c.heads * (int64_t)mm_rng_range(r, 1, 256);
    c.layers = (int64_t)mm_rng_range(r, 1, 100);
    c.seq_len = (int64_t)mm_rng_range(r, 1, 8192);
    c.micro_batch = (int64_t)mm_rng_range(r, 1, 16);
    c.seq_parallel = (int)mm_rng_range(r, 0, 1);
    c.recompute = (mp_recompute_t)mm_rng_range(r, 0, 2);
    c.overhead = (int64_t)mm_rng_range(r, 0, 4000000000ull);
    return c;
}

MM_TEST(test_zero_random)
{
    mm_rng_t r = MM_RNG();
    for (int i = 0; i < 2000; i++) {
        mp_config_t c = random_config(&r);
        uint64_t w, g, o, want[3];
        expect_states(&c, want);
        MM_ASSERT_OK(mp_state_bytes(&c, &w, &g, &o));
        ck_assert_msg(w == want[0] && g == want[1] && o == want[2],
                      "%s, params %lld, recipe %d, optimizer %d, stage %lld, dp %lld, tp %lld: "
                      "got %llu/%llu/%llu, want %llu/%llu/%llu",
                      c.mode == MP_TRAIN ? "training" : "inference", (long long)c.params,
                      c.recipe, c.optimizer, (long long)c.zero_stage, (long long)c.dp,
                      (long long)c.tp, (unsigned long long)w, (unsigned long long)g,
                      (unsigned long long)o, (unsigned long long)want[0],
                      (unsigned long long)want[1], (unsigned long long)want[2]);
    }
}
MM_END_TEST

/* Korthikanti et al., Table 2, summed over the layers (see mp_activation_bytes). */
static uint64_t expect_activations(const mp_config_t *c)
{
    uint64_t s = (uint64_t)c->seq_len, b = (uint64_t)c->micro_batch, h = (uint64_t)c->hidden;
    uint64_t a = (uint64_t)c->heads, t = (uint64_t)c->tp, sbh = s * b * h, as2b = a * s * s * b;
    uint64_t rep = c->recompute == MP_RECOMPUTE_FULL ? 2 * sbh : 10 * sbh;
    uint64_t split = c->recompute == MP_RECOMPUTE_NONE ? 24 * sbh + 5 * as2b
                     : c->recompute == MP_RECOMPUTE_SELECTIVE ? 24 * sbh : 0;
    uint64_t layer = c->seq_parallel ? ceil_div(rep + split, t) : rep + ceil_div(split, t);
    return (uint64_t)c->layers * layer * (c->recipe == MP_FP32 ? 2 : 1);
}

static void check_activations(const mp_config_t *c)
{
    uint64_t got = 0, want = expect_activations(c);
    MM_ASSERT_OK(mp_activation_bytes(c, &got));
    ck_assert_msg(got == want, "activations, s %lld b %lld h %lld a %lld L %lld t %lld sp %d "
                  "recompute %d recipe %d: got %llu bytes, want %llu", (long long)c->seq_len,
                  (long long)c->micro_batch, (long long)c->hidden, (long long)c->heads,
                  (long long)c->layers, (long long)c->tp, c->seq_parallel, c->recompute,
                  c->recipe, (unsigned long long)got, (unsigned long long)want);
}

MM_TEST(test_activations_korthikanti)
{
    mp_config_t c = llama7b(); /* s 4096, b 1, h 4096, a 32, L 32 */
    uint64_t got, sbh = 4096ull * 4096;
    MM_ASSERT_OK(mp_activation_bytes(&c, &got));
    ck_assert_msg(got == 32 * (34 * sbh + 5ull * 32 * 4096 * 4096),
                  "no recomputation: L * sbh(34 + 5as/h); got %llu", (unsigned long long)got);
    c.recompute = MP_RECOMPUTE_SELECTIVE;
    MM_ASSERT_OK(mp_activation_bytes(&c, &got));
    ck_assert_msg(got == 32 * 34 * sbh, "selective: L * 34sbh; got %llu", (unsigned long long)got);
    c.recompute = MP_RECOMPUTE_FULL;
    MM_ASSERT_OK(mp_activation_bytes(&c, &got));
    ck_assert_msg(got == 32 * 2 * sbh, "full: L * 2sbh; got %llu", (unsigned long long)got);
    mm_rng_t r = MM_RNG();
    for (int i = 0; i < 2000; i++) {
        c = random_config(&r);
        c.tp = 1, c.seq_parallel = 0;
        check_activations(&c);
    }
}
MM_END_TEST

MM_TEST(test_activations_tensor_parallel)
{
    mp_config_t c = llama7b();
    uint64_t got, sbh = 4096ull * 4096;
    c.tp = 8, c.recompute = MP_RECOMPUTE_SELECTIVE, c.seq_parallel = 1;
    MM_ASSERT_OK(mp_activation_bytes(&c, &got));
    ck_assert_msg(got == 32 * 34 * sbh / 8, "selective + sequence parallel: L * 34sbh/t; got %llu",
                  (unsigned long long)got);
    c.seq_parallel = 0, c.recompute = MP_RECOMPUTE_NONE;
    MM_ASSERT_OK(mp_activation_bytes(&c, &got));
    ck_assert_msg(got == 32 * (10 * sbh + (24 * sbh + 5ull * 32 * 4096 * 4096) / 8),
                  "tensor parallel: L * sbh(10 + 24/t + 5as/(ht)); got %llu",
                  (unsigned long long)got);
    mm_rng_t r = MM_RNG();
    for (int i = 0; i < 2000; i++) {
        c = random_config(&r);
        check_activations(&c);
    }
}
MM_END_TEST

/* A Llama layer (RMSNorm, SwiGLU of width f, no dropout), bf16, counted by hand: the norms'
 * inputs 2 x 2sbh, the inputs of the QKV and gate/up projections 2 x 2sbh (R = 8sbh); Q and K
 * after RoPE 4sbh, V 2sbh, the output projection's input 2sbh; gate, up, silu(gate) and their
 * product 4 x 2sbf; the softmax output 2as2b, kept once in bf16 (eager attention only). */
MM_TEST(test_activations_llama_flash)
{
    mp_config_t c = llama7b(); /* s 4096, b 1, h 4096, a 32, L 32 */
    c.arch = MP_ARCH_LLAMA, c.ffn_hidden = 11008;
    uint64_t got, sbh = 4096ull * 4096, sbf = 4096ull * 11008, as2b = 32ull * 4096 * 4096;
    MM_ASSERT_OK(mp_activation_bytes(&c, &got));
    ck_assert_msg(got == 32 * (16 * sbh + 8 * sbf + 2 * as2b) && got == 54492397568ull,
                  "Llama, eager: L * (16sbh + 8sbf + 2as2b) = 54.49 GB; got %llu",
                  (unsigned long long)got);
    c.flash = 1;
    MM_ASSERT_OK(mp_activation_bytes(&c, &got));
    ck_assert_msg(got == 32 * (16 * sbh + 8 * sbf) && got == 20132659200ull,
                  "Llama, FlashAttention: L * (16sbh + 8sbf) = 20.13 GB; got %llu",
                  (unsigned long long)got);
    c.tp = 8, c.flash = 0;
    MM_ASSERT_OK(mp_activation_bytes(&c, &got));
    ck_assert_msg(got == 32 * (8 * sbh + (8 * sbh + 8 * sbf + 2 * as2b) / 8),
                  "Llama, tensor parallel over 8: L * (8sbh + (8sbh + 8sbf + 2as2b) / t); got %llu",
                  (unsigned long long)got);
    c.seq_parallel = 1, c.recompute = MP_RECOMPUTE_SELECTIVE;
    MM_ASSERT_OK(mp_activation_bytes(&c, &got));
    ck_assert_msg(got == 32 * (16 * sbh + 8 * sbf) / 8, "Llama, selective + sequence parallel: "
                  "L * (16sbh + 8sbf) / t; got %llu", (unsigned long long)got);
    c.recompute = MP_RECOMPUTE_FULL, c.seq_parallel = 0, c.tp = 1;
    MM_ASSERT_OK(mp_activation_bytes(&c, &got));
    ck_assert_msg(got == 32 * 2 * sbh, "Llama, full recompute: L * 2sbh; got %llu",
                  (unsigned long long)got);
    c = llama7b(), c.flash = 1; /* GPT layer with FlashAttention: the 5as2b term goes */
    MM_ASSERT_OK(mp_activation_bytes(&c, &got));
    ck_assert_msg(got == 32 * 34 * sbh, "GPT, FlashAttention: L * 34sbh; got %llu",
                  (unsigned long long)got);
    c.flash = 0, c.ffn_hidden = -5; /* ignored by a GPT layer */
    MM_ASSERT_OK(mp_activation_bytes(&c, &got));
    c.arch = MP_ARCH_LLAMA, c.ffn_hidden = 0;
    MM_ASSERT_ERR(mp_activation_bytes(&c, &got), -EINVAL);
    c.ffn_hidden = 11008, c.arch = (mp_arch_t)2;
    MM_ASSERT_ERR(mp_activation_bytes(&c, &got), -EINVAL);
}
MM_END_TEST

MM_TEST(test_kv_cache)
{
    mp_config_t c = llama7b();
    uint64_t got;
    c.mode = MP_INFER, c.seq_len = 2048, c.recipe = MP_AMP_FP16;
    MM_ASSERT_OK(mp_kv_cache_bytes(&c, &got));
    ck_assert_msg(got == 1073741824ull, "Llama-2-7B, 2048 tokens, fp16: 2*32*32*128*2048*2 = "
                  "1073741824 bytes (1 GiB), got %llu", (unsigned long long)got);
    c.micro_batch = 3, c.recipe = MP_FP32;
    MM_ASSERT_OK(mp_kv_cache_bytes(&c, &got));
    ck_assert_msg(got == 6 * 1073741824ull, "3 sequences in fp32: 6 GiB, got %llu",
                  (unsigned long long)got);
    c = llama7b(); /* Llama-2-70B: 80 layers, 64 heads of 128, 8 kv heads (grouped-query) */
    c.layers = 80, c.hidden = 8192, c.heads = 64, c.kv_heads = 8;
    MM_ASSERT_OK(mp_kv_cache_bytes(&c, &got));
    ck_assert_msg(got == 2ull * 80 * 8 * 128 * 4096 * 2, "Llama-2-70B at 4096 tokens: 1.25 GiB, "
                  "got %llu", (unsigned long long)got);
    c.tp = 8;
    MM_ASSERT_OK(mp_kv_cache_bytes(&c, &got));
    ck_assert_msg(got == 2ull * 80 * 1 * 128 * 4096 * 2, "tp 8: one kv head per GPU; got %llu",
                  (unsigned long long)got);
    c.tp = 16;
    MM_ASSERT_OK(mp_kv_cache_bytes(&c, &got));
    ck_assert_msg(got == 2ull * 80 * 1 * 128 * 4096 * 2, "tp 16 > 8 kv heads: each GPU still "
                  "holds a whole (replicated) kv head; got %llu", (unsigned long long)got);
}
MM_END_TEST

static uint64_t expect_kv(const mp_config_t *c)
{
    return 2 * (uint64_t)c->layers * ceil_div((uint64_t)c->kv_heads, (uint64_t)c->tp) *
           (uint64_t)(c->hidden / c->heads) * (uint64_t)c->seq_len * (uint64_t)c->micro_batch *
           (c->recipe == MP_FP32 ? 4 : 2);
}

MM_TEST(test_budget_total)
{
    mm_rng_t r = MM_RNG();
    for (int i = 0; i < 2000; i++) {
        mp_config_t c = random_config(&r);
        mp_budget_t b;
        uint64_t st[3];
        expect_states(&c, st);
        MM_ASSERT_OK(mp_budget(&c, &b));
        int train = c.mode == MP_TRAIN;
        uint64_t act = train ? expect_activations(&c) : 0, kv = train ? 0 : expect_kv(&c);
        ck_assert_msg(b.weights == st[0] && b.grads == st[1] && b.optimizer == st[2] &&
                      b.activations == act && b.kv_cache == kv &&
                      b.other == (uint64_t)c.overhead,
                      "%s config %d: a component is wrong (weights %llu/%llu, activations "
                      "%llu/%llu, kv %llu/%llu)", train ? "training" : "inference", i,
                      (unsigned long long)b.weights, (unsigned long long)st[0],
                      (unsigned long long)b.activations, (unsigned long long)act,
                      (unsigned long long)b.kv_cache, (unsigned long long)kv);
        ck_assert_msg(b.total == st[0] + st[1] + st[2] + act + kv + (uint64_t)c.overhead,
                      "total must be the sum of the six components");
    }
}
MM_END_TEST

MM_TEST(test_max_micro_batch)
{
    mm_rng_t r = MM_RNG();
    for (int i = 0; i < 300; i++) {
        mp_config_t c = random_config(&r), t;
        mp_budget_t one, b1, b2;
        c.params = (int64_t)mm_rng_range(&r, 1, 20000000000ull);
        c.micro_batch = 1;
        MM_ASSERT_OK(mp_budget(&c, &one));
        c.gpu_mem = (int64_t)(one.total + mm_rng_range(&r, 0, 8 * one.total));
        int64_t best = 0;
        MM_ASSERT_OK(mp_max_micro_batch(&c, &best));
        t = c, t.micro_batch = best;
        MM_ASSERT_OK(mp_budget(&t, &b1));
        t.micro_batch = best + 1;
        MM_ASSERT_OK(mp_budget(&t, &b2));
        ck_assert_msg(best >= 1 && b1.total <= (uint64_t)c.gpu_mem &&
                      (best == MP_MAX_MICRO_BATCH || b2.total > (uint64_t)c.gpu_mem),
                      "gpu_mem %lld: answered b = %lld, whose total is %llu (b + 1: %llu)",
                      (long long)c.gpu_mem, (long long)best, (unsigned long long)b1.total,
                      (unsigned long long)b2.total);
        c.gpu_mem = (int64_t)one.total - 1;
        MM_ASSERT_ERR(mp_max_micro_batch(&c, &best), c.gpu_mem >= 1 ? -ENOSPC : -EINVAL);
    }
}
MM_END_TEST

MM_TEST(test_max_micro_batch_story)
{
    /* The handout's question: Llama-2-7B, ZeRO-2 over 8 GPUs, selective recompute, 80 GiB */
    mp_config_t c = llama7b();
    int64_t b = -1;
    c.zero_stage = 2, c.dp = 8, c.recompute = MP_RECOMPUTE_SELECTIVE, c.gpu_mem = 80ll << 30;
    c.arch = MP_ARCH_LLAMA, c.ffn_hidden = 11008;
    MM_ASSERT_OK(mp_max_micro_batch(&c, &b));
    ck_assert_msg(b == 3, "2*6.74e9 + 14*6.74e9/8 = 25.3 GB of states, and 32 (16sbh + 8sbf) = "
                  "20.1 GB per sequence of 4096 tokens: 3 sequences fit in 80 GiB (85.9 GB), "
                  "got %lld", (long long)b);
    c.zero_stage = 0;
    MM_ASSERT_ERR(mp_max_micro_batch(&c, &b), -ENOSPC);
    c.gpu_mem = 0;
    MM_ASSERT_ERR(mp_max_micro_batch(&c, &b), -EINVAL);
    MM_ASSERT_ERR(mp_max_micro_batch(NULL, &b), -EINVAL);
}
MM_END_TEST

/* The GB figure printed on the line of `name`, or NAN. */
static double line_gb(const char *text, const char *name, double *gib)
{
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        char label[13] = "";
        double gb = NAN;
        memcpy(label, p, strnlen(p, 12) < 12 ? strnlen(p, 12) : 12);
        for (int i = 11; i >= 0 && (label[i] == ' ' || label[i] == '\0'); i--)
            label[i] = '\0';
        if (strcmp(label, name) == 0 && sscanf(p + 12, "%lf %lf", &gb, gib) == 2)
            return gb;
    }
    return NAN;
}

MM_TEST(test_breakdown_format)
{
    mp_budget_t b = { 13476831232ull, 11792227328ull, 10108, 18253611008ull, 0, 1ull << 30, 0 };
    b.total = b.weights + b.grads + b.optimizer + b.activations + b.other;
    char buf[2048];
    int n = mp_format_breakdown(&b, 80ll << 30, buf, sizeof buf);
    ck_assert_msg(n > 0 && (size_t)n == strlen(buf), "returned %d for %zu characters", n,
                  strlen(buf));
    const char *names[7] = { "weights", "gradients", "optimizer", "activations", "kv cache",
                             "other", "total" };
    uint64_t v[7] = { b.weights, b.grads, b.optimizer, b.activations, 0, b.other, b.total };
    for (int i = 0; i < 7; i++) {
        double gib = NAN, gb = line_gb(buf, names[i], &gib);
        ck_assert_msg(fabs(gb - (double)v[i] / 1e9) < 0.006 &&
                      fabs(gib - (double)v[i] / 0x1p30) < 0.006,
                      "line '%s' must show %.2f GB and %.2f GiB:\n%s", names[i], (double)v[i] / 1e9,
                      (double)v[i] / 0x1p30, buf);
    }
    double gib = NAN, gb = line_gb(buf, "headroom", &gib);
    ck_assert_msg(fabs(gib - (80.0 - (double)b.total / 0x1p30)) < 0.006 && gb == gb,
                  "headroom must be gpu_mem - total:\n%s", buf);
    char small[16];
    ck_assert_int_eq(mp_format_breakdown(&b, 80ll << 30, small, sizeof small), n);
    ck_assert_msg(small[15] == '\0' && strncmp(small, buf, 15) == 0,
                  "a short buffer gets the start of the text and a NUL, like snprintf");
    ck_assert_int_eq(mp_format_breakdown(&b, 80ll << 30, NULL, 0), n);
    MM_ASSERT_ERR(mp_format_breakdown(NULL, 0, buf, sizeof buf), -EINVAL);
    MM_ASSERT_ERR(mp_format_breakdown(&b, 0, NULL, 10), -EINVAL);
    MM_ASSERT_ERR(mp_format_breakdown(&b, -1, buf, sizeof buf), -EINVAL);
}
MM_END_TEST

/* Every function that reads a field must reject a bad value in it. */
static void expect_rejected(const mp_config_t *c, const char *what)
{
    mp_budget_t b, before, bi;
    memset(&b, 0x5A, sizeof b);
    before = b;
    mp_config_t inf = *c;
    inf.mode = MP_INFER;
    int rt = mp_budget(c, &b), ri = mp_budget(&inf, &bi);
    ck_assert_msg(rt == -EINVAL, "training with %s: mp_budget returned %d, want -EINVAL", what, rt);
    ck_assert_msg(memcmp(&b, &before, sizeof b) == 0, "%s: a rejected call must not write *out",
                  what);
    ck_assert_msg(ri == -EINVAL || strstr(what, "[train]"),
                  "inference with %s: mp_budget returned %d, want -EINVAL", what, ri);
}

/* Sizes that no model has: each must be rejected, training and serving alike. */
static const struct {
    size_t field;
    int64_t value;
    const char *what;
} bad_sizes[] = {
    { offsetof(mp_config_t, params), 0, "params 0" },
    { offsetof(mp_config_t, params), -7000000000, "params < 0" },
    { offsetof(mp_config_t, layers), 0, "zero layers" },
    { offsetof(mp_config_t, layers), -32, "negative layers" },
    { offsetof(mp_config_t, hidden), 4100, "heads (32) not dividing hidden (4100)" },
    { offsetof(mp_config_t, hidden), -4096, "negative hidden" },
    { offsetof(mp_config_t, heads), 0, "zero heads" },
    { offsetof(mp_config_t, seq_len), 0, "zero seq_len" },
    { offsetof(mp_config_t, micro_batch), -1, "negative micro_batch" },
    { offsetof(mp_config_t, zero_stage), 4, "ZeRO stage 4" },
    { offsetof(mp_config_t, zero_stage), -1, "ZeRO stage -1" },
    { offsetof(mp_config_t, dp), 0, "0 data-parallel ranks" },
    { offsetof(mp_config_t, tp), 0, "0 tensor-parallel ranks" },
    { offsetof(mp_config_t, tp), 3, "tp 3 not dividing 32 heads" },
    { offsetof(mp_config_t, overhead), -1, "negative overhead" },
};

/* Bad enums, KV heads, NULL pointers. */
static void check_bad_enums_and_pointers(const mp_config_t *base)
{
    mp_config_t c = *base;
    mp_budget_t b;
    uint64_t x;
    c.recipe = (mp_recipe_t)9;
    expect_rejected(&c, "recipe 9");
    c = *base, c.optimizer = (mp_optimizer_t)3;
    expect_rejected(&c, "optimizer 3 [train]");
    c = *base, c.recompute = (mp_recompute_t)5;
    expect_rejected(&c, "recompute 5 [train]");
    c = *base, c.mode = (mp_mode_t)2;
    MM_ASSERT_ERR(mp_budget(&c, &b), -EINVAL);
    c = *base, c.kv_heads = 0, c.mode = MP_INFER;
    MM_ASSERT_ERR(mp_budget(&c, &b), -EINVAL);
    c.kv_heads = 5; /* does not divide 32 heads */
    MM_ASSERT_ERR(mp_budget(&c, &b), -EINVAL);
    MM_ASSERT_ERR(mp_budget(NULL, &b), -EINVAL);
    MM_ASSERT_ERR(mp_budget(base, NULL), -EINVAL);
    MM_ASSERT_ERR(mp_state_bytes(base, &x, NULL, &x), -EINVAL);
    MM_ASSERT_ERR(mp_activation_bytes(base, NULL), -EINVAL);
    MM_ASSERT_ERR(mp_kv_cache_bytes(NULL, &x), -EINVAL);
}

MM_TEST(test_bad_configs)
{
    mp_config_t base = llama7b();
    for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
        mp_config_t c = base;
        *(int64_t *)(void *)((char *)&c + bad_sizes[i].field) = bad_sizes[i].value;
        expect_rejected(&c, bad_sizes[i].what);
    }
    check_bad_enums_and_pointers(&base);
}
MM_END_TEST

MM_TEST(test_overflow)
{
    mp_config_t c = llama7b();
    mp_budget_t b;
    uint64_t x;
    c.params = INT64_MAX;
    MM_ASSERT_ERR(mp_budget(&c, &b), -EOVERFLOW);
    c = llama7b(), c.seq_len = 1ll << 31, c.micro_batch = 1ll << 20;
    MM_ASSERT_ERR(mp_activation_bytes(&c, &x), -EOVERFLOW);
    MM_ASSERT_ERR(mp_kv_cache_bytes(&c, &x), -EOVERFLOW);
    c.micro_batch = 1;
    MM_ASSERT_OK(mp_kv_cache_bytes(&c, &x));
    ck_assert_msg(x == 2ull * 32 * 32 * 128 * (1ull << 31) * 2,
                  "2^31 tokens: still fits in 64 bits");
}
MM_END_TEST
