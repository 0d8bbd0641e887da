/* Lab 08 tests: whole `mlmem-budget` command lines, run through mp_cli_run (src/cli.c, given)
 * on top of your budget functions: the figures it prints and the errors it gives. */
#include <errno.h>
#include <stdio.h>
#include "mm_check.h"
#include "mp_cli.h"

typedef struct {
    int status;
    char out[8192], err[1024];
} run_t;

#define RUN(r, ...)                                                                   \
    do {                                                                              \
        char *argv_[] = { "mlmem-budget", __VA_ARGS__ };                              \
        (r)->status = mp_cli_run((int)(sizeof argv_ / sizeof argv_[0]), argv_,        \
                                 (r)->out, sizeof (r)->out, (r)->err, sizeof (r)->err); \
    } while (0)

MM_TEST(test_cli_llama2_inference)
{
    run_t r;
    RUN(&r, "--model", "llama2-7b", "--inference", "--seq", "2048", "--batch", "1", "--recipe",
        "amp-fp16", "--gpu-mem", "80GiB");
    ck_assert_msg(r.status == 0, "exit status %d: %s", r.status, r.err);
    ck_assert_msg(strstr(r.out, "kv cache           1.07       1.00") != NULL,
                  "the KV cache of Llama-2-7B at 2048 tokens is 1.07 GB = 1.00 GiB:\n%s", r.out);
    ck_assert_msg(strstr(r.out, "weights           13.48      12.55") != NULL,
                  "6738415616 fp16 weights are 13.48 GB:\n%s", r.out);
    ck_assert_msg(strstr(r.out, "largest batch that fits in 80.00 GiB: 67") != NULL,
                  "(80 GiB - 13.48 GB) / 1 GiB per sequence: 67 sequences of 2048 tokens:\n%s",
                  r.out);
    RUN(&r, "--params", "7.5e9", "--recipe", "amp-fp16", "--zero", "1", "--ranks", "64");
    ck_assert_msg(r.status == 0 && strstr(r.out, "total             31.41") != NULL,
                  "ZeRO-1 over 64 ranks: 31.4 GB per GPU (status %d):\n%s%s", r.status, r.out,
                  r.err);
}
MM_END_TEST

MM_TEST(test_cli_rejects_bad_input)
{
    static const struct { const char *flag, *value, *said; } bad[] = {
        { "--gpu-mem", "80G", "GiB" },        { "--gpu-mem", "-80GB", "not a size" },
        { "--layers", "-3", "whole number" }, { "--params", "1.5", "whole number" },
        { "--recipe", "fp8", "amp-bf16" },    { "--frobnicate", "1", "unknown option" },
    };
    run_t r;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        RUN(&r, "--model", "llama2-7b", (char *)bad[i].flag, (char *)bad[i].value);
        ck_assert_msg(r.status == 2 && strstr(r.err, bad[i].said),
                      "%s %s: want exit status 2 and a message saying '%s'; got %d: %s",
                      bad[i].flag, bad[i].value, bad[i].said, r.status, r.err);
    }
    /* Well-formed flags, impossible models: your mp_budget must reject them. */
    RUN(&r, "--params", "7e9", "--layers", "0", "--hidden", "4096", "--heads", "32", "--seq",
        "4096");
    ck_assert_msg(r.status == 2, "zero layers: want exit status 2, got %d: %s", r.status, r.err);
    RUN(&r, "--params", "7e9", "--layers", "32", "--hidden", "4096", "--heads", "7", "--seq",
        "4096");
    ck_assert_msg(r.status == 2, "7 heads do not divide a hidden size of 4096: want exit status 2, "
                  "got %d: %s", r.status, r.err);
    RUN(&r, "--model", "llama2-7b", "--zero", "4");
    ck_assert_msg(r.status == 2, "ZeRO has stages 0-3: want exit status 2, got %d", r.status);
    RUN(&r, "--model", "llama2-7b", "--zero", "3", "--ranks", "8", "--gpu-mem", "80GB");
    ck_assert_msg(r.status == 0, "a good command line: want exit status 0, got %d: %s", r.status,
                  r.err);
}
MM_END_TEST

/* The activations line of a report must show `bytes` as GB, as mp_format_breakdown prints it. */
static int shows_activations(const run_t *r, double bytes)
{
    char want[64];
    snprintf(want, sizeof want, "%-12s %10.2f", "activations", bytes / 1e9);
    return r->status == 0 && strstr(r->out, want) != NULL;
}

MM_TEST(test_cli_arch_flash)
{
    /* Llama-2-7B, s 4096, b 1, bf16, 32 layers, h 4096, a 32, f 11008: sbh = 4096 * 4096,
     * sbf = 4096 * 11008, as2b = 32 * 4096 * 4096 */
    double sbh = 4096.0 * 4096, sbf = 4096.0 * 11008, as2b = 32.0 * 4096 * 4096;
    run_t r;
    RUN(&r, "--model", "llama2-7b");
    ck_assert_msg(shows_activations(&r, 32 * (16 * sbh + 8 * sbf + 2 * as2b)),
                  "the llama2 preset is a Llama layer, eager: 32 (16sbh + 8sbf + 2as2b) = "
                  "54.49 GB:\n%s%s", r.out, r.err);
    RUN(&r, "--model", "llama2-7b", "--flash");
    ck_assert_msg(shows_activations(&r, 32 * (16 * sbh + 8 * sbf)),
                  "Llama with FlashAttention: 32 (16sbh + 8sbf) = 20.13 GB:\n%s%s", r.out, r.err);
    RUN(&r, "--model", "llama2-7b", "--arch", "gpt");
    ck_assert_msg(shows_activations(&r, 32 * (34 * sbh + 5 * as2b)),
                  "--arch gpt: Korthikanti's 32 sbh(34 + 5as/h) = 104.15 GB:\n%s%s", r.out, r.err);
    RUN(&r, "--params", "7e9", "--layers", "32", "--hidden", "4096", "--heads", "32", "--seq",
        "4096", "--arch", "llama", "--ffn-hidden", "11008", "--flash");
    ck_assert_msg(shows_activations(&r, 32 * (16 * sbh + 8 * sbf)),
                  "--arch llama --ffn-hidden 11008 --flash without a preset:\n%s%s", r.out, r.err);
    static const struct { const char *flag, *value, *said; } bad[] = {
        { "--arch", "mamba", "gpt llama" },       { "--ffn-hidden", "0", "--ffn-hidden N" },
        { "--ffn-hidden", "-1", "whole number" }, { "--arch", "", "gpt llama" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        RUN(&r, "--model", "llama2-7b", (char *)bad[i].flag, (char *)bad[i].value);
        ck_assert_msg(r.status == 2 && strstr(r.err, bad[i].said),
                      "%s '%s': want exit status 2 and a message saying '%s'; got %d: %s",
                      bad[i].flag, bad[i].value, bad[i].said, r.status, r.err);
    }
    RUN(&r, "--params", "7e9", "--layers", "32", "--hidden", "4096", "--heads", "32", "--seq",
        "4096", "--arch", "llama");
    ck_assert_msg(r.status == 2 && strstr(r.err, "--ffn-hidden"), "--arch llama without a width: "
                  "want status 2 naming --ffn-hidden; got %d: %s", r.status, r.err);
    RUN(&r, "--model", "gpt3-175b", "--ffn-hidden", "4096");
    ck_assert_msg(r.status == 2 && strstr(r.err, "llama only"), "--ffn-hidden with a GPT layer: "
                  "want status 2; got %d: %s", r.status, r.err);
}
MM_END_TEST
