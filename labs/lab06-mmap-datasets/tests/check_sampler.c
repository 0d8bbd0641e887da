/* Lab 06 tests, part C: the shuffled batch sampler. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "mm_call.h"
#include "mm_check.h"
#include "sampler.h"

/* The order of `epoch` as sampler.h defines it. */
static uint64_t *oracle(uint64_t n, uint64_t seed, uint64_t epoch)
{
    uint64_t *p = malloc(n * sizeof *p);
    ck_assert_ptr_nonnull(p);
    mm_rng_t r = mm_rng_new(seed + epoch * DS_EPOCH_STRIDE);
    for (uint64_t i = 0; i < n; i++)
        p[i] = i;
    for (uint64_t i = n - 1; i >= 1; i--) {
        uint64_t j = mm_rng_range(&r, 0, i), t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
    return p;
}

/* One epoch's batches, concatenated; sizes checked against batch/drop_last. Returns the count.
 * Your code writes each batch to shared memory, which the test reads. */
static uint64_t run_epoch(ds_sampler_t *s, uint64_t n, uint64_t batch, int drop_last,
                          uint64_t *out)
{
    uint64_t *idx = mm_shared_alloc(batch * sizeof *idx), got = 0, batches = 0;
    size_t k;
    while ((k = ds_sampler_next(s, idx)) > 0) {
        ck_assert_msg(k <= batch, "a batch of %zu indices, more than batch = %llu", k,
                      (unsigned long long)batch);
        ck_assert_msg(got + k <= n, "an epoch over %llu indices gave more than %llu",
                      (unsigned long long)n, (unsigned long long)n);
        ck_assert_msg(k == batch || (!drop_last && got + k == n),
                      "only the last batch may be short (and none with drop_last): got %zu of %llu",
                      k, (unsigned long long)batch);
        memcpy(out + got, idx, k * sizeof *idx);
        got += k;
        batches++;
    }
    ck_assert_msg(batches == ds_sampler_batches(s), "the epoch had %llu batches, "
                  "ds_sampler_batches says %llu", (unsigned long long)batches,
                  (unsigned long long)ds_sampler_batches(s));
    mm_shared_free(idx);
    return got;
}

MM_TEST(test_sampler_epoch_is_permutation)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 30; round++) {
        uint64_t n = mm_rng_range(&r, 1, 5000), batch = mm_rng_range(&r, 1, n + 5);
        ds_sampler_t *s = NULL;
        MM_ASSERT_OK(ds_sampler_create(&s, n, batch, 0, mm_rng_next(&r)));
        uint64_t *all = malloc(n * sizeof *all);
        char *seen = calloc(n, 1);
        ck_assert(all && seen);
        for (int e = 0; e < 2; e++) {
            memset(seen, 0, n);
            ck_assert_msg(run_epoch(s, n, batch, 0, all) == n, "an epoch must visit all %llu "
                          "indices", (unsigned long long)n);
            for (uint64_t i = 0; i < n; i++) {
                MM_CHECK(all[i] < n && !seen[all[i]], "index %llu is out of range or "
                         "repeated within an epoch", (unsigned long long)all[i]);
                seen[all[i]] = 1;
            }
        }
        ck_assert_msg(ds_sampler_epoch(s) == 2, "after two epochs the epoch is 2, not %llu",
                      (unsigned long long)ds_sampler_epoch(s));
        free(all);
        free(seen);
        ds_sampler_destroy(s);
    }
}
MM_END_TEST

MM_TEST(test_sampler_exact_order)
{
    mm_rng_t r = MM_RNG();
    uint64_t n = mm_rng_range(&r, 2, 3000), batch = mm_rng_range(&r, 1, 64);
    uint64_t seed = mm_rng_next(&r), *all = malloc(n * sizeof *all);
    ck_assert_ptr_nonnull(all);
    ds_sampler_t *s = NULL;
    MM_ASSERT_OK(ds_sampler_create(&s, n, batch, 0, seed));
    for (uint64_t e = 0; e < 3; e++) {
        uint64_t *want = oracle(n, seed, e);
        run_epoch(s, n, batch, 0, all);
        for (uint64_t i = 0; i < n; i++)
            ck_assert_msg(all[i] == want[i], "epoch %llu, position %llu: %llu, but the Fisher-Yates "
                          "of sampler.h gives %llu", (unsigned long long)e, (unsigned long long)i,
                          (unsigned long long)all[i], (unsigned long long)want[i]);
        free(want);
    }
    free(all);
    ds_sampler_destroy(s);
}
MM_END_TEST

MM_TEST(test_sampler_drop_last)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 30; round++) {
        uint64_t n = mm_rng_range(&r, 1, 3000), batch = mm_rng_range(&r, 1, n);
        uint64_t seed = mm_rng_next(&r), *all = malloc(n * sizeof *all);
        ck_assert_ptr_nonnull(all);
        ds_sampler_t *s = NULL;
        MM_ASSERT_OK(ds_sampler_create(&s, n, batch, 1, seed));
        uint64_t got = run_epoch(s, n, batch, 1, all), *want = oracle(n, seed, 0);
        ck_assert_msg(got == n / batch * batch, "drop_last: %llu indices, expected %llu",
                      (unsigned long long)got, (unsigned long long)(n / batch * batch));
        ck_assert_msg(memcmp(all, want, got * sizeof *all) == 0,
                      "drop_last keeps the epoch's order and drops only its tail");
        free(want);
        free(all);
        ds_sampler_destroy(s);
    }
}
MM_END_TEST

MM_TEST(test_sampler_seeds)
{
    mm_rng_t r = MM_RNG();
    uint64_t n = 1000, seed = mm_rng_next(&r);
    uint64_t *a = malloc(n * 8), *b = malloc(n * 8), *c = malloc(n * 8);
    ck_assert(a && b && c);
    ds_sampler_t *s1 = NULL, *s2 = NULL, *s3 = NULL;
    MM_ASSERT_OK(ds_sampler_create(&s1, n, 32, 0, seed));
    MM_ASSERT_OK(ds_sampler_create(&s2, n, 32, 0, seed));
    MM_ASSERT_OK(ds_sampler_create(&s3, n, 32, 0, seed + 1));
    run_epoch(s1, n, 32, 0, a);
    run_epoch(s2, n, 32, 0, b);
    run_epoch(s3, n, 32, 0, c);
    ck_assert_msg(memcmp(a, b, n * 8) == 0, "the same seed must give the same order");
    ck_assert_msg(memcmp(a, c, n * 8) != 0, "seeds %llu and %llu gave the same order",
                  (unsigned long long)seed, (unsigned long long)(seed + 1));
    run_epoch(s1, n, 32, 0, b);
    ck_assert_msg(memcmp(a, b, n * 8) != 0, "epochs 0 and 1 must be shuffled differently");
    ds_sampler_destroy(s1);
    ds_sampler_destroy(s2);
    ds_sampler_destroy(s3);
    free(a);
    free(b);
    free(c);
}
MM_END_TEST

MM_TEST(test_sampler_set_epoch)
{
    mm_rng_t r = MM_RNG();
    uint64_t n = mm_rng_range(&r, 2, 2000), batch = mm_rng_range(&r, 1, 100);
    uint64_t seed = mm_rng_next(&r), e = mm_rng_range(&r, 1, 1000000);
    uint64_t *all = malloc(n * 8), *idx = mm_shared_alloc(100 * sizeof *idx);
    ck_assert_ptr_nonnull(all);
    ds_sampler_t *s = NULL;
    MM_ASSERT_OK(ds_sampler_create(&s, n, batch, 0, seed));
    ck_assert_msg(ds_sampler_next(s, idx) > 0, "the first batch");
    ds_sampler_set_epoch(s, e); /* mid-epoch: restarts at the beginning of epoch e */
    ck_assert_msg(ds_sampler_epoch(s) == e, "set_epoch(%llu) then epoch() = %llu",
                  (unsigned long long)e, (unsigned long long)ds_sampler_epoch(s));
    uint64_t *want = oracle(n, seed, e);
    ck_assert_msg(run_epoch(s, n, batch, 0, all) == n, "a whole epoch after set_epoch");
    ck_assert_msg(memcmp(all, want, n * 8) == 0, "after set_epoch(%llu) the order must be epoch "
                  "%llu's (a resumed run sees the same batches)", (unsigned long long)e,
                  (unsigned long long)e);
    ck_assert_msg(ds_sampler_epoch(s) == e + 1, "after the epoch ends, epoch() is e + 1");
    free(want);
    free(all);
    ds_sampler_destroy(s);
}
MM_END_TEST

MM_TEST(test_sampler_bad_args)
{
    ds_sampler_t *s = NULL;
    uint64_t *idx = mm_shared_alloc(4 * sizeof *idx);
    MM_ASSERT_ERR(ds_sampler_create(NULL, 10, 2, 0, 1), -EINVAL);
    MM_ASSERT_ERR(ds_sampler_create(&s, 0, 2, 0, 1), -EINVAL);
    MM_ASSERT_ERR(ds_sampler_create(&s, 10, 0, 0, 1), -EINVAL);
    MM_ASSERT_ERR(ds_sampler_create(&s, 3, 4, 1, 1), -EINVAL);
    ck_assert_msg(s == NULL, "a failed create must not set *out");
    ck_assert_msg(ds_sampler_next(NULL, idx) == 0 && ds_sampler_batches(NULL) == 0 &&
                  ds_sampler_epoch(NULL) == 0, "NULL sampler: 0 everywhere");
    MM_ASSERT_OK(ds_sampler_create(&s, 3, 4, 0, 1));
    ck_assert_msg(ds_sampler_next(s, idx) == 3 && ds_sampler_next(s, idx) == 0,
                  "n = 3, batch = 4: one batch of 3, then the end of the epoch");
    ck_assert_msg(ds_sampler_next(s, NULL) == 0, "NULL idx gives 0");
    ds_sampler_set_epoch(NULL, 1);
    ds_sampler_destroy(s);
    ds_sampler_destroy(NULL);
}
MM_END_TEST
