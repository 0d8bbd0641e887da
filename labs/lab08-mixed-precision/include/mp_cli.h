/* Lab 08: the command-line front end `mlmem-budget` (given, in src/cli.c; main() is in
 * cli/mlmem_budget.c). It parses flags into an mp_config_t and prints what your budget functions
 * say. Parsing lives here, apart from main(), so that the tests can run whole command lines. */
#ifndef MP_CLI_H
#define MP_CLI_H
#include <stddef.h>
#include <stdint.h>
#include "mp_budget.h"

/* Parses a byte size: a number (decimal, optional fraction and exponent) with an optional unit
 * B, KB, MB, GB, TB (powers of 10^3) or KiB, MiB, GiB, TiB (powers of 2^10), any letter case:
 * "80GiB" = 85899345920, "80GB" = "80e9" = 80000000000. Rounds to a whole byte. Returns 0 and
 * sets *out;
 *   -EINVAL: anything else ("", "-1GB", "80G", "GB", "80 GiB");
 *   -ERANGE: above 2^63 - 1. */
int mp_parse_bytes(const char *s, int64_t *out);

/* Parses a count: a number with an optional K, M, B (10^9, as in "7B parameters") or T suffix:
 * "7e9" = "7B" = 7000000000, "6.74e9", "4096". Must come out a whole number >= 0. Returns 0 and
 * sets *out;
 *   -EINVAL: not a number, negative, fractional, unknown suffix;
 *   -ERANGE: too big. */
int mp_parse_count(const char *s, int64_t *out);

/* Fills the model fields of *c (params, layers, hidden, heads, kv_heads, seq_len, arch,
 * ffn_hidden) from a preset: "llama2-7b", "llama2-13b", "llama2-70b" (MP_ARCH_LLAMA, SwiGLU
 * widths 11008, 13824, 28672), "gpt3-175b" (MP_ARCH_GPT). Returns 0 or -ENOENT. */
int mp_preset(const char *name, mp_config_t *c);

/* Runs `mlmem-budget` on argv[1..argc): writes the report into out and any error message into
 * err (both NUL-terminated, cut to their lengths). Returns the exit status: 0 done (--help
 * included), 1 the budget functions failed, 2 a usage error or an invalid configuration. */
int mp_cli_run(int argc, char *const argv[], char *out, size_t outlen, char *err, size_t errlen);

#endif
