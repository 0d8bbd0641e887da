/* Lab 10 tests, Part A: the rl_cost_* counts and STREAM's bytes, to the unit: small shapes worked
 * out by hand, random shapes against the oracle (tests/support.c), every -EINVAL, and
 * -EOVERFLOW at and just past the largest shape whose counts fit in 64 bits. */
#include <errno.h>
#include "support.h"

#define ALL_KINDS for (tu_kind_t k = TU_EMB; k <= TU_LAYERNORM; k = (tu_kind_t)(k + 1))

/* Asserts rc == 0 and the exact counts (what: the call, for the message). */
static void expect_counts(int rc, rl_cost_t c, uint64_t flops, uint64_t bytes, const char *what)
{
    ck_assert_msg(rc == 0, "%s returned %d, expected 0", what, rc);
    ck_assert_msg(c.flops == flops && c.bytes == bytes,
                  "%s: %llu FLOPs, %llu bytes; expected %llu FLOPs, %llu bytes", what,
                  (unsigned long long)c.flops, (unsigned long long)c.bytes,
                  (unsigned long long)flops, (unsigned long long)bytes);
}

MM_TEST(test_cost_small_shapes)
{
    rl_cost_t c;
    int rc = rl_cost_embedding_bag(2, 3, 4, &c);
    expect_counts(rc, c, 24, 4 * (6 + 6 * 4 + 2 * 4),
                  "embedding bag, 2 bags of 3 rows of 4 (6 indices, 6 rows, 8 outputs)");
    rc = rl_cost_embedding_bag(1, 1, 1, &c);
    expect_counts(rc, c, 1, 12, "embedding bag 1 x 1 x 1");
    rc = rl_cost_gemv(2, 3, &c);
    expect_counts(rc, c, 12, 4 * (6 + 3 + 2), "gemv 2 x 3 (A, x, y)");
    rc = rl_cost_gemv(1, 1, &c);
    expect_counts(rc, c, 2, 12, "gemv 1 x 1");
    rc = rl_cost_softmax(2, 3, &c);
    expect_counts(rc, c, 5 * 6 + 2, 4 * 12, "softmax 2 x 3 (5 per element, 1 per row)");
    rc = rl_cost_softmax(1, 1, &c);
    expect_counts(rc, c, 6, 8, "softmax 1 x 1");
    rc = rl_cost_layernorm(2, 3, &c);
    expect_counts(rc, c, 7 * 6 + 7 * 2, 4 * (12 + 6),
                  "layernorm 2 x 3 (7 per element, 7 per row; x, y, gamma, beta)");
    rc = rl_cost_layernorm(1, 1, &c);
    expect_counts(rc, c, 14, 16, "layernorm 1 x 1");
}
MM_END_TEST

MM_TEST(test_cost_random_shapes)
{
    mm_rng_t r = MM_RNG();
    ALL_KINDS {
        int fit = 0;
        for (int t = 0; t < 3000; t++) { /* dimensions up to 2^20, then up to 2^40 */
            size_t d[3];
            for (int i = 0; i < 3; i++)
                d[i] = tu_dim(&r, t < 2000 ? 20 : 40);
            fit += tu_expect_cost(k, d) == 0;
        }
        ck_assert_msg(fit > 1500, "%s: only %d random shapes fit: the test is broken",
                      tu_cost_name(k), fit);
    }
}
MM_END_TEST

MM_TEST(test_cost_bad_args)
{
    ALL_KINDS {
        const size_t ok[3] = { 3, 5, 7 };
        rl_cost_t c = { 11, 13 };
        int rc = tu_call_cost(k, ok, NULL);
        ck_assert_msg(rc == -EINVAL, "%s with c NULL returned %d, expected -EINVAL",
                      tu_cost_name(k), rc);
        for (int i = 0; i < tu_cost_dims(k); i++) {
            size_t small[3] = { 3, 5, 7 }, big[3] = { SIZE_MAX, SIZE_MAX, SIZE_MAX };
            small[i] = big[i] = 0; /* a zero dimension is refused, whatever the others */
            rc = tu_call_cost(k, small, &c);
            MM_CHECK(rc == -EINVAL, "%s with dimension %d zero returned %d, expected -EINVAL",
                     tu_cost_name(k), i, rc);
            rc = tu_call_cost(k, big, &c);
            MM_CHECK(rc == -EINVAL, "%s with dimension %d zero, the others SIZE_MAX, returned "
                     "%d, expected -EINVAL (not -EOVERFLOW)", tu_cost_name(k), i, rc);
            MM_CHECK(c.flops == 11 && c.bytes == 13, "%s: a failed call changed *c",
                     tu_cost_name(k));
        }
    }
}
MM_END_TEST

MM_TEST(test_cost_overflow)
{
    rl_cost_t c;
    int rc;
    ALL_KINDS { /* SIZE_MAX anywhere, and everywhere */
        for (int i = 0; i <= tu_cost_dims(k); i++) {
            size_t d[3];
            for (int j = 0; j < 3; j++)
                d[j] = i == tu_cost_dims(k) || j == i ? SIZE_MAX : 1;
            MM_CHECK(tu_expect_cost(k, d) == -EOVERFLOW, "the oracle let SIZE_MAX fit");
        }
    }
    /* The last add is the one that passes 2^64; a wrapped count would be a small number. */
    rc = rl_cost_gemv(1, 2305843009213693951u, &c); /* 2^61 - 1 */
    expect_counts(rc, c, 4611686018427387902u, 18446744073709551612u, "gemv 1 x (2^61 - 1)");
    c = (rl_cost_t){ 1, 2 };
    MM_ASSERT_ERR(rl_cost_gemv(1, 2305843009213693952u, &c), -EOVERFLOW); /* 2^61 */
    ck_assert_msg(c.flops == 1 && c.bytes == 2, "a failed rl_cost_gemv changed *c");
    rc = rl_cost_embedding_bag(1, 1, 2305843009213693951u, &c);
    expect_counts(rc, c, 2305843009213693951u, 18446744073709551612u,
                  "embedding bag 1 x 1 x (2^61 - 1)");
    MM_ASSERT_ERR(rl_cost_embedding_bag(1, 1, 2305843009213693952u, &c), -EOVERFLOW);
    MM_ASSERT_ERR(rl_cost_embedding_bag(4294967296u, 4294967296u, 1, &c), -EOVERFLOW);
    rc = rl_cost_softmax(1, 2305843009213693951u, &c);
    expect_counts(rc, c, 11529215046068469756u, 18446744073709551608u,
                  "softmax 1 x (2^61 - 1)");
    MM_ASSERT_ERR(rl_cost_softmax(1, 2305843009213693952u, &c), -EOVERFLOW);
    /* LayerNorm with 1 column: the FLOPs (14 per row) overflow before the bytes. */
    rc = rl_cost_layernorm(1317624576693539401u, 1, &c);
    expect_counts(rc, c, 18446744073709551614u, 10540996613548315216u,
                  "layernorm (floor(UINT64_MAX / 14)) x 1");
    MM_ASSERT_ERR(rl_cost_layernorm(1317624576693539402u, 1, &c), -EOVERFLOW);
    ck_assert_msg(c.flops == 18446744073709551614u, "a failed rl_cost_layernorm changed *c");
}
MM_END_TEST

/* The largest value of dimension i, the others as in d, whose counts fit (0: none fits). */
static size_t largest_fitting(tu_kind_t k, size_t d[3], int i)
{
    rl_cost_t c;
    size_t lo = 0, hi = SIZE_MAX;
    while (lo < hi) { /* invariant: lo fits (or is 0); everything above hi overflows */
        size_t mid = lo + (hi - lo) / 2 + 1;
        d[i] = mid;
        if (tu_cost_oracle(k, d, &c) == 0)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

MM_TEST(test_cost_overflow_boundary)
{
    mm_rng_t r = MM_RNG();
    int tried = 0;
    ALL_KINDS {
        for (int i = 0; i < tu_cost_dims(k); i++)
            for (int t = 0; t < 40; t++) {
                size_t d[3];
                for (int j = 0; j < 3; j++)
                    d[j] = tu_dim(&r, 36);
                size_t v = largest_fitting(k, d, i);
                if (v == 0)
                    continue;
                size_t at[4] = { v, v - 1 ? v - 1 : 1, v / 2 ? v / 2 : 1, v + 1 };
                for (int a = 0; a < (v < SIZE_MAX ? 4 : 3); a++) {
                    d[i] = at[a];
                    tu_expect_cost(k, d); /* fits up to v, -EOVERFLOW at v + 1 */
                }
                tried++;
            }
    }
    ck_assert_msg(tried > 100, "only %d boundaries found: the test is broken", tried);
}
MM_END_TEST

MM_TEST(test_stream_bytes)
{
    static const char *names[] = { "copy", "scale", "add", "triad" };
    const uint64_t want[] = { 16000, 16000, 24000, 24000 };
    mm_rng_t r = MM_RNG();
    for (rl_stream_op_t op = RL_COPY; op <= RL_TRIAD; op = (rl_stream_op_t)(op + 1)) {
        uint64_t b = 0;
        MM_ASSERT_OK(rl_stream_bytes(op, 1000, 8, &b));
        ck_assert_msg(b == want[op], "%s of 1000 doubles: %llu bytes, expected %llu", names[op],
                      (unsigned long long)b, (unsigned long long)want[op]);
        for (int t = 0; t < 1000; t++)
            tu_expect_stream_bytes(op, tu_dim(&r, t < 800 ? 32 : 64), tu_dim(&r, 6));
    }
}
MM_END_TEST

MM_TEST(test_stream_bytes_bad_args)
{
    const rl_stream_op_t bad[] = { (rl_stream_op_t)4, (rl_stream_op_t)7, (rl_stream_op_t)-1 };
    uint64_t b = 42;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        MM_ASSERT_ERR(rl_stream_bytes(bad[i], 1000, 8, &b), -EINVAL);
    for (rl_stream_op_t op = RL_COPY; op <= RL_TRIAD; op = (rl_stream_op_t)(op + 1)) {
        MM_CHECK_ERR(rl_stream_bytes(op, 1000, 8, NULL), -EINVAL);
        MM_CHECK_ERR(rl_stream_bytes(op, 0, 8, &b), -EINVAL);
        MM_CHECK_ERR(rl_stream_bytes(op, 1000, 0, &b), -EINVAL);
        MM_CHECK_ERR(rl_stream_bytes(op, SIZE_MAX, 1, &b), -EOVERFLOW);
        MM_CHECK_ERR(rl_stream_bytes(op, 1, SIZE_MAX, &b), -EOVERFLOW);
        MM_CHECK_ERR(rl_stream_bytes(op, (size_t)1 << 32, (size_t)1 << 32, &b), -EOVERFLOW);
    }
    ck_assert_msg(b == 42, "a failed rl_stream_bytes changed *bytes (now %llu)",
                  (unsigned long long)b);
    /* Just past the limit: the multiply by the array count is the one that overflows. */
    MM_ASSERT_ERR(rl_stream_bytes(RL_COPY, (size_t)1 << 61, 4, &b), -EOVERFLOW);
    MM_ASSERT_OK(rl_stream_bytes(RL_COPY, ((size_t)1 << 61) - 1, 4, &b));
    ck_assert_msg(b == 18446744073709551608u, "copy of 2^61 - 1 floats: %llu bytes",
                  (unsigned long long)b);
    MM_ASSERT_OK(rl_stream_bytes(RL_TRIAD, 768614336404564650u, 8, &b)); /* UINT64_MAX / 24 */
    ck_assert_msg(b == 18446744073709551600u, "triad of floor(UINT64_MAX / 24) doubles: %llu",
                  (unsigned long long)b);
    MM_ASSERT_ERR(rl_stream_bytes(RL_TRIAD, 768614336404564651u, 8, &b), -EOVERFLOW);
    MM_ASSERT_ERR(rl_stream_bytes(RL_ADD, 768614336404564651u, 8, &b), -EOVERFLOW);
    ck_assert_msg(b == 18446744073709551600u, "a failed rl_stream_bytes changed *bytes");
}
MM_END_TEST
