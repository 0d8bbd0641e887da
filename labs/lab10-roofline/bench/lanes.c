/* Lab 10 benchmark: the simd_reductions metric (see lanes.h). */
#include <stdio.h>
#include <string.h>
#include "lanes.h"
#include "mm_embed.h"
#include "simdscan.h"

/* `objdump -dr --no-show-raw-insn` of the library your files were linked into (lab.mk). */
MM_EMBED(rl_listing, RL_LISTING);

static const char *const KERNELS[] = { "rl_gemv", "rl_softmax", "rl_layernorm" };
#define NK (sizeof KERNELS / sizeof *KERNELS)

/* One kernel's finding, appended to detail (of capacity cap). */
static void say(char *detail, size_t cap, const char *fn, const ss_kernel_t *r)
{
    size_t len = strlen(detail);
    if (!r->found)
        snprintf(detail + len, cap - len, "%s: not in your object; ", fn);
    else if (r->add_loops)
        snprintf(detail + len, cap - len, "%s: yes, %d loop%s adding into packed registers "
                 "carried from one iteration to the next (%s); ", fn, r->add_loops,
                 r->add_loops == 1 ? "" : "s", r->example);
    else
        snprintf(detail + len, cap - len, "%s: no loop of it (or of the %d function%s it "
                 "calls) adds into a packed register carried across iterations: its sums run "
                 "one element at a time; ", fn, r->functions - 1,
                 r->functions == 2 ? "" : "s");
}

void sl_report(mm_json_t *j)
{
    char detail[1200] = "";
    int ok = 0;
    for (size_t k = 0; k < NK; k++) {
        ss_kernel_t r;
        if (ss_scan(rl_listing, KERNELS[k], &r) != 0) {
            mm_bench_fail(j, "simd_reductions", "out of memory to read the listing");
            return;
        }
        ok += r.found && r.add_loops > 0;
        say(detail, sizeof detail, KERNELS[k], &r);
    }
    size_t len = strlen(detail);
    snprintf(detail + len, sizeof detail - len, "read from objdump's listing of your compiled "
             "code (%zu bytes)", MM_EMBED_LEN(rl_listing));
    mm_bench_metric(j, "simd_reductions", ok, " kernels", detail);
}
