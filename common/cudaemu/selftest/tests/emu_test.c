/* The helpers of emu_test.h. */
#include <unistd.h>
#include "emu_test.h"
#include "mm_check.h"

mm_emu_config_t et_config(void)
{
    mm_emu_config_t c;
    mm_emu_config_get(&c);
    c.pace = 1;
    c.race = 0;
    return c;
}

void et_apply(const mm_emu_config_t *c)
{
    ck_assert_int_eq(mm_emu_configure(c), cudaSuccess);
}

void et_race_mode(uint64_t seed)
{
    mm_emu_config_t c = et_config();
    c.race = 1;
    c.race_seed = seed;
    et_apply(&c);
}

static void et_shutdown(void)
{
    mm_emu_shutdown();
}

const mm_fixture_t et_device = { .teardown = et_shutdown, .timeout_s = 60 };
const mm_fixture_t et_pipeline = { .teardown = et_shutdown, .timeout_s = 120 };

typedef struct {
    uint8_t *dev;
    size_t n;
    int add;
    unsigned sleep_us;
} bump_arg_t;

static int bump(void *arg)
{
    const bump_arg_t *a = arg;
    uint8_t *v = mm_emu_view(a->dev, a->n);
    if (!v)
        return 1;
    if (a->sleep_us)
        usleep(a->sleep_us);
    for (size_t i = 0; i < a->n; i++)
        v[i] = (uint8_t)(v[i] + a->add);
    return 0;
}

cudaError_t et_bump(cudaStream_t stream, void *dev, size_t n, int add, unsigned sleep_us,
                    double model_ns)
{
    bump_arg_t a = { dev, n, add, sleep_us };
    mm_emu_span_t span = { dev, n, 1 };
    mm_emu_kernel_t k = { bump, &a, sizeof a, &span, 1, model_ns };
    return mm_emu_launch_kernel(stream, &k);
}
