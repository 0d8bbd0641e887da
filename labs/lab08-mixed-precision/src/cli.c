/* Lab 08: `mlmem-budget`, the command-line front end of your budget functions (see mp_cli.h).
 * Given: not yours to edit (the grader builds its own copy). Run `mlmem-budget --help`. */
#include "mp_cli.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char usage[] =
    "usage: mlmem-budget [options]   memory per GPU to train (or serve) a transformer\n"
    "\n"
    "model (a preset, or the sizes; size flags given with --model override the preset):\n"
    "  --model NAME       llama2-7b, llama2-13b, llama2-70b, gpt3-175b\n"
    "  --params N         parameter count: 7e9, 6.74e9, 7B, 350M\n"
    "  --layers N  --hidden N  --heads N  --kv-heads N (default: --heads)\n"
    "  --seq N            tokens per sequence (inference: tokens in the KV cache)\n"
    "training (the default):\n"
    "  --recipe R         fp32 | amp-fp16 | amp-bf16 | bf16     (default amp-bf16)\n"
    "  --optimizer O      sgd | momentum | adam                 (default adam)\n"
    "  --zero K           ZeRO stage 0-3                        (default 0)\n"
    "  --ranks N          data-parallel ranks ZeRO shards over  (default 1)\n"
    "  --tp N             tensor-parallel ranks                 (default 1)\n"
    "  --seq-parallel     Megatron sequence parallelism (with --tp)\n"
    "  --recompute R      none | selective | full               (default none)\n"
    "  --arch A           gpt | llama: the layer whose activations are counted (default gpt;\n"
    "                     the llama2 presets set llama): gpt = LayerNorm, 4h GeLU MLP, dropout\n"
    "                     (Korthikanti et al.); llama = RMSNorm, SwiGLU MLP, no dropout\n"
    "  --ffn-hidden N     the SwiGLU MLP's width f (--arch llama; Llama-2-7B: 11008)\n"
    "  --flash            FlashAttention: no a*s*s*b attention matrices kept\n"
    "  --micro-batch N    sequences per GPU per step            (default 1)\n"
    "inference:\n"
    "  --inference        weights + KV cache instead of training\n"
    "  --batch N          sequences served at once (same as --micro-batch)\n"
    "machine:\n"
    "  --gpu-mem SIZE     memory of one GPU: 80GiB, 80GB, 8e10; adds the largest micro-batch\n"
    "                     that fits\n"
    "  --overhead SIZE    other memory per GPU: CUDA context, buffers (default 0)\n"
    "  -h, --help         this text\n"
    "\n"
    "example: mlmem-budget --model llama2-7b --zero 2 --ranks 8 --recompute selective "
    "--gpu-mem 80GiB\n";

/* ---- numbers with units ---- */

typedef struct {
    const char *name;
    double mult;
} unit_t;

static const unit_t byte_units[] = { { "", 1 },      { "B", 1 },        { "KB", 1e3 },
                                     { "MB", 1e6 },  { "GB", 1e9 },     { "TB", 1e12 },
                                     { "KiB", 0x1p10 }, { "MiB", 0x1p20 }, { "GiB", 0x1p30 },
                                     { "TiB", 0x1p40 } };
static const unit_t count_units[] = { { "", 1 },   { "K", 1e3 },  { "M", 1e6 },
                                      { "B", 1e9 }, { "T", 1e12 } };

/* A non-negative decimal number at the start of s (no sign, no hex, no inf/nan), scaled by the
 * unit that makes up the rest of s. */
static int scaled_number(const char *s, const unit_t *units, size_t nunits, double *v)
{
    if (!s || !(isdigit((unsigned char)s[0]) || (s[0] == '.' && isdigit((unsigned char)s[1]))))
        return -EINVAL;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        return -EINVAL;
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (errno == ERANGE || !isfinite(x))
        return -ERANGE;
    for (size_t i = 0; i < nunits; i++)
        if (strcasecmp(end, units[i].name) == 0) {
            *v = x * units[i].mult;
            return 0;
        }
    return -EINVAL;
}

static int to_int64(double v, int64_t *out)
{
    if (!(v < 0x1p63))
        return -ERANGE;
    *out = (int64_t)llround(v);
    return 0;
}

int mp_parse_bytes(const char *s, int64_t *out)
{
    double v;
    int rc = scaled_number(s, byte_units, sizeof byte_units / sizeof byte_units[0], &v);
    return rc ? rc : out ? to_int64(v, out) : -EINVAL;
}

int mp_parse_count(const char *s, int64_t *out)
{
    double v;
    int rc = scaled_number(s, count_units, sizeof count_units / sizeof count_units[0], &v);
    if (rc != 0 || !out)
        return rc ? rc : -EINVAL;
    if (fabs(v - nearbyint(v)) > 1e-9 * fmax(1.0, v)) /* "1.5" is not a count */
        return -EINVAL;
    return to_int64(v, out);
}

/* ---- presets ---- */

typedef struct {
    const char *name;
    int64_t params, layers, hidden, heads, kv_heads, seq_len;
    mp_arch_t arch;
    int64_t ffn_hidden;
} preset_t;

/* Llama 2 (Touvron et al. 2023; parameter counts of the released checkpoints), GPT-3 (Brown et
 * al. 2020, Table 2.1). */
static const preset_t presets[] = {
    { "llama2-7b", 6738415616, 32, 4096, 32, 32, 4096, MP_ARCH_LLAMA, 11008 },
    { "llama2-13b", 13015864320, 40, 5120, 40, 40, 4096, MP_ARCH_LLAMA, 13824 },
    { "llama2-70b", 68976648192, 80, 8192, 64, 8, 4096, MP_ARCH_LLAMA, 28672 },
    { "gpt3-175b", 175000000000, 96, 12288, 96, 96, 2048, MP_ARCH_GPT, 4 * 12288 },
};

int mp_preset(const char *name, mp_config_t *c)
{
    for (size_t i = 0; name && c && i < sizeof presets / sizeof presets[0]; i++) {
        const preset_t *p = &presets[i];
        if (strcasecmp(name, p->name) == 0) {
            c->params = p->params, c->layers = p->layers, c->hidden = p->hidden;
            c->heads = p->heads, c->kv_heads = p->kv_heads, c->seq_len = p->seq_len;
            c->arch = p->arch, c->ffn_hidden = p->ffn_hidden;
            return 0;
        }
    }
    return -ENOENT;
}

/* ---- output into a caller's buffer ---- */

typedef struct {
    char *buf;
    size_t len, pos;
} sink_t;

static void say(sink_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(sink_t *s, const char *fmt, ...)
{
    if (!s->buf || s->pos + 1 >= s->len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s->buf + s->pos, s->len - s->pos, fmt, ap);
    va_end(ap);
    if (n > 0)
        s->pos = s->pos + (size_t)n < s->len ? s->pos + (size_t)n : s->len - 1;
}

/* ---- the options ---- */

enum kind { K_COUNT, K_BYTES, K_SWITCH, K_RECIPE, K_OPTIMIZER, K_RECOMPUTE, K_ARCH, K_MODEL };

typedef struct {
    const char *flag;
    enum kind kind;
    size_t field; /* offsetof in mp_config_t */
} opt_t;

#define F(x) offsetof(mp_config_t, x)
static const opt_t opts[] = {
    { "--model", K_MODEL, 0 },           { "--params", K_COUNT, F(params) },
    { "--layers", K_COUNT, F(layers) },  { "--hidden", K_COUNT, F(hidden) },
    { "--heads", K_COUNT, F(heads) },    { "--kv-heads", K_COUNT, F(kv_heads) },
    { "--seq", K_COUNT, F(seq_len) },    { "--recipe", K_RECIPE, F(recipe) },
    { "--optimizer", K_OPTIMIZER, F(optimizer) }, { "--zero", K_COUNT, F(zero_stage) },
    { "--ranks", K_COUNT, F(dp) },       { "--tp", K_COUNT, F(tp) },
    { "--seq-parallel", K_SWITCH, F(seq_parallel) }, { "--recompute", K_RECOMPUTE, F(recompute) },
    { "--micro-batch", K_COUNT, F(micro_batch) }, { "--batch", K_COUNT, F(micro_batch) },
    { "--inference", K_SWITCH, F(mode) }, { "--gpu-mem", K_BYTES, F(gpu_mem) },
    { "--overhead", K_BYTES, F(overhead) }, { "--arch", K_ARCH, F(arch) },
    { "--ffn-hidden", K_COUNT, F(ffn_hidden) }, { "--flash", K_SWITCH, F(flash) },
};
#undef F

static const char *const recipe_names[] = { "fp32", "amp-fp16", "amp-bf16", "bf16" };
static const char *const optimizer_names[] = { "sgd", "momentum", "adam" };
static const char *const recompute_names[] = { "none", "selective", "full" };
static const char *const arch_names[] = { "gpt", "llama" };

typedef struct {
    mp_config_t c;
    int shape_flags; /* how many of --layers/--hidden/--heads/--seq were given */
    int have_kv, have_model, have_ffn;
    sink_t out, err;
} cli_t;

/* The index of v in names[0..n), or -1 after saying what the choices are. */
static int choice(cli_t *k, const opt_t *o, const char *v, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcasecmp(v, names[i]) == 0)
            return i;
    say(&k->err, "mlmem-budget: %s: unknown value '%s' (one of:", o->flag, v);
    for (int j = 0; j < n; j++)
        say(&k->err, " %s", names[j]);
    say(&k->err, ")\n");
    return -1;
}

static int set_number(cli_t *k, const opt_t *o, const char *v)
{
    int64_t x;
    int rc = o->kind == K_BYTES ? mp_parse_bytes(v, &x) : mp_parse_count(v, &x);
    if (rc == 0) {
        *(int64_t *)(void *)((char *)&k->c + o->field) = x;
        return 0;
    }
    if (rc == -ERANGE)
        say(&k->err, "mlmem-budget: %s: '%s' is too large\n", o->flag, v);
    else if (o->kind == K_BYTES)
        say(&k->err, "mlmem-budget: %s: '%s' is not a size: write e.g. 80GB (10^9 bytes), 80GiB "
                     "(2^30 bytes) or 8e10 (bytes)\n", o->flag, v);
    else
        say(&k->err, "mlmem-budget: %s: '%s' is not a whole number >= 0 (e.g. 4096, 7e9, 7B)\n",
            o->flag, v);
    return 2;
}

static int is_shape(size_t field)
{
    return field == offsetof(mp_config_t, layers) || field == offsetof(mp_config_t, hidden) ||
           field == offsetof(mp_config_t, heads) || field == offsetof(mp_config_t, seq_len);
}

static int set_option(cli_t *k, const opt_t *o, const char *v)
{
    int i = 0;
    switch (o->kind) {
    case K_MODEL: /* applied before the other options */
        return 0;
    case K_SWITCH:
        if (o->field == offsetof(mp_config_t, mode))
            k->c.mode = MP_INFER;
        else if (o->field == offsetof(mp_config_t, flash))
            k->c.flash = 1;
        else
            k->c.seq_parallel = 1;
        return 0;
    case K_RECIPE:
        if ((i = choice(k, o, v, recipe_names, 4)) >= 0)
            k->c.recipe = (mp_recipe_t)i;
        return i < 0 ? 2 : 0;
    case K_OPTIMIZER:
        if ((i = choice(k, o, v, optimizer_names, 3)) >= 0)
            k->c.optimizer = (mp_optimizer_t)i;
        return i < 0 ? 2 : 0;
    case K_RECOMPUTE:
        if ((i = choice(k, o, v, recompute_names, 3)) >= 0)
            k->c.recompute = (mp_recompute_t)i;
        return i < 0 ? 2 : 0;
    case K_ARCH:
        if ((i = choice(k, o, v, arch_names, 2)) >= 0)
            k->c.arch = (mp_arch_t)i;
        return i < 0 ? 2 : 0;
    default:
        k->shape_flags += is_shape(o->field);
        k->have_kv |= o->field == offsetof(mp_config_t, kv_heads);
        k->have_ffn |= o->field == offsetof(mp_config_t, ffn_hidden);
        return set_number(k, o, v);
    }
}

static const opt_t *find_opt(const char *flag)
{
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        if (strcmp(flag, opts[i].flag) == 0)
            return &opts[i];
    return NULL;
}

/* Applies --model first, so that the flags given with it override the preset. */
static int apply_model(cli_t *k, int argc, char *const argv[])
{
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--model") == 0) {
            if (mp_preset(argv[i + 1], &k->c) != 0) {
                say(&k->err, "mlmem-budget: --model: no preset '%s' (one of: llama2-7b, "
                             "llama2-13b, llama2-70b, gpt3-175b)\n", argv[i + 1]);
                return 2;
            }
            k->have_model = k->have_kv = 1;
        }
    return 0;
}

static int parse_args(cli_t *k, int argc, char *const argv[])
{
    int rc = apply_model(k, argc, argv);
    for (int i = 1; i < argc && rc == 0; i++) {
        const opt_t *o = find_opt(argv[i]);
        if (!o) {
            say(&k->err, "mlmem-budget: unknown option '%s' (see --help)\n", argv[i]);
            return 2;
        }
        if (o->kind != K_SWITCH && i + 1 >= argc) {
            say(&k->err, "mlmem-budget: %s needs a value (see --help)\n", o->flag);
            return 2;
        }
        rc = set_option(k, o, o->kind == K_SWITCH ? NULL : argv[i + 1]);
        i += o->kind != K_SWITCH;
    }
    if (rc == 0 && !k->have_kv)
        k->c.kv_heads = k->c.heads;
    return rc;
}

/* Flags that only make sense together. */
static int check_combination(cli_t *k)
{
    const char *why = NULL;
    int shape = k->have_model || k->shape_flags > 0;
    if (k->c.params == 0)
        why = "give the model's size: --params N or --model NAME";
    else if (k->shape_flags > 0 && !k->have_model && k->shape_flags < 4)
        why = "give all of --layers, --hidden, --heads and --seq (or --model)";
    else if (!shape && k->c.mode == MP_INFER)
        why = "--inference needs the model's shape: --model NAME, or --layers, --hidden, --heads "
              "and --seq";
    else if (k->c.arch == MP_ARCH_LLAMA && k->c.ffn_hidden < 1)
        why = "--arch llama needs the SwiGLU width: --ffn-hidden N (>= 1; Llama-2-7B: 11008), "
              "or a llama2 preset";
    else if (k->c.arch == MP_ARCH_GPT && k->have_ffn)
        why = "--ffn-hidden applies to --arch llama only (a GPT layer's MLP is 4 x hidden)";
    if (why)
        say(&k->err, "mlmem-budget: %s\n", why);
    return why ? 2 : 0;
}

/* ---- the report ---- */

static void describe(cli_t *k)
{
    const mp_config_t *c = &k->c;
    double p = (double)c->params;
    say(&k->out, "model: %.2f%s parameters", p >= 1e9 ? p / 1e9 : p / 1e6, p >= 1e9 ? "B" : "M");
    if (k->have_model || k->shape_flags)
        say(&k->out, ", %lld layers, hidden %lld, %lld heads (%lld kv), seq %lld",
            (long long)c->layers, (long long)c->hidden, (long long)c->heads,
            (long long)c->kv_heads, (long long)c->seq_len);
    const char *recipe = (unsigned)c->recipe < 4 ? recipe_names[c->recipe] : "?";
    if (c->mode == MP_INFER) {
        say(&k->out, "\ninference: %s weights, batch %lld, tp %lld\n\n", recipe,
            (long long)c->micro_batch, (long long)c->tp);
        return;
    }
    say(&k->out, "\ntraining: %s + %s, ZeRO stage %lld, %lld data-parallel rank%s, tp %lld%s, "
                 "micro-batch %lld, recompute %s", recipe,
        (unsigned)c->optimizer < 3 ? optimizer_names[c->optimizer] : "?",
        (long long)c->zero_stage, (long long)c->dp, c->dp == 1 ? "" : "s", (long long)c->tp,
        c->seq_parallel ? " + sequence parallel" : "", (long long)c->micro_batch,
        (unsigned)c->recompute < 3 ? recompute_names[c->recompute] : "?");
    if (k->have_model || k->shape_flags) {
        say(&k->out, "\nactivations: %s layer", (unsigned)c->arch < 2 ? arch_names[c->arch] : "?");
        if (c->arch == MP_ARCH_LLAMA)
            say(&k->out, " (SwiGLU width %lld)", (long long)c->ffn_hidden);
        say(&k->out, ", %s", c->flash ? "FlashAttention" : "eager attention");
    }
    say(&k->out, "\n\n");
}

/* An error of your budget functions, as an exit status. */
static int failed(cli_t *k, const char *fn, int rc)
{
    if (rc == -EINVAL) {
        say(&k->err, "mlmem-budget: invalid configuration (%s: %s): sizes must be >= 1, hidden a "
                     "multiple of heads, heads a multiple of --kv-heads and --tp, --zero 0-3\n",
            fn, strerror(EINVAL));
        return 2;
    }
    say(&k->err, "mlmem-budget: %s failed: %s%s\n", fn, strerror(rc < 0 ? -rc : EIO),
        rc == -ENOSYS ? " (not written yet? see src/budget.c)" : "");
    return 1;
}

static int compute(cli_t *k, mp_budget_t *b)
{
    if (k->have_model || k->shape_flags) {
        int rc = mp_budget(&k->c, b);
        return rc ? failed(k, "mp_budget", rc) : 0;
    }
    *b = (mp_budget_t){ 0 };
    int rc = mp_state_bytes(&k->c, &b->weights, &b->grads, &b->optimizer);
    if (rc != 0)
        return failed(k, "mp_state_bytes", rc);
    if (k->c.overhead < 0)
        return failed(k, "mp_state_bytes", -EINVAL);
    b->other = (uint64_t)k->c.overhead;
    if (__builtin_add_overflow(b->weights, b->grads, &b->total) ||
        __builtin_add_overflow(b->total, b->optimizer, &b->total) ||
        __builtin_add_overflow(b->total, b->other, &b->total))
        return failed(k, "mp_state_bytes", -EOVERFLOW);
    return 0;
}

static int report(cli_t *k, const mp_budget_t *b)
{
    size_t room = k->out.buf ? k->out.len - k->out.pos : 0; /* >= 1: say() keeps the NUL */
    int n = mp_format_breakdown(b, k->c.gpu_mem, room ? k->out.buf + k->out.pos : NULL, room);
    if (n < 0)
        return failed(k, "mp_format_breakdown", n);
    if (room)
        k->out.pos += (size_t)n < room ? (size_t)n : room - 1;
    if (!k->have_model && !k->shape_flags) {
        say(&k->out, "(activations not counted: give --model, or --layers, --hidden, --heads "
                     "and --seq)\n");
        return 0;
    }
    if (k->c.gpu_mem <= 0)
        return 0;
    int64_t best = 0;
    int rc = mp_max_micro_batch(&k->c, &best);
    const char *what = k->c.mode == MP_INFER ? "batch" : "micro-batch";
    if (rc == -ENOSPC)
        say(&k->out, "does not fit: not even a %s of 1 fits in %.2f GiB\n", what,
            (double)k->c.gpu_mem / 0x1p30);
    else if (rc == 0)
        say(&k->out, "largest %s that fits in %.2f GiB: %lld\n", what,
            (double)k->c.gpu_mem / 0x1p30, (long long)best);
    else
        return failed(k, "mp_max_micro_batch", rc);
    return 0;
}

static int wants_help(int argc, char *const argv[])
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return 1;
    return 0;
}

int mp_cli_run(int argc, char *const argv[], char *out, size_t outlen, char *err, size_t errlen)
{
    cli_t k = { .out = { outlen ? out : NULL, outlen, 0 },
                .err = { errlen ? err : NULL, errlen, 0 } };
    if (out && outlen)
        out[0] = '\0';
    if (err && errlen)
        err[0] = '\0';
    if (wants_help(argc, argv)) {
        say(&k.out, "%s", usage);
        return 0;
    }
    mp_config_init(&k.c);
    int rc = parse_args(&k, argc, argv);
    if (rc == 0)
        rc = check_combination(&k);
    mp_budget_t b;
    if (rc == 0)
        rc = compute(&k, &b);
    if (rc != 0)
        return rc;
    describe(&k);
    return report(&k, &b);
}
