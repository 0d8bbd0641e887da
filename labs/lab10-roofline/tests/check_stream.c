/* Lab 10 tests, Part B: STREAM's summary of a run: the first pass left out (made the fastest or
 * the slowest, so that counting it shows), avg / min / max over the rest, the best rate from the
 * minimum, and every argument that must be refused with the row left as it was. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include "support.h"

/* Asserts the row (what: the case, for the message). */
static void expect_row(const rl_stream_row_t *row, double best, double avg, double mn, double mx,
                       const char *what)
{
    MM_CHECK(row->min_s == mn && row->max_s == mx, "%s: min %.17g s, max %.17g s; expected "
             "%.17g, %.17g (the first pass is not counted)", what, row->min_s, row->max_s, mn,
             mx);
    MM_CHECK(tu_near(row->avg_s, avg), "%s: avg %.17g s, expected %.17g (over ntimes - 1 "
             "passes)", what, row->avg_s, avg);
    MM_CHECK(tu_near(row->best_mbs, best), "%s: best %.17g MB/s, expected %.17g (1e-6 bytes / "
             "min)", what, row->best_mbs, best);
}

MM_TEST(test_stream_summary)
{
    double secs[5] = { 1e-3, 0.5, 0.25, 0.75, 0.5 }; /* passes 1..4: avg 0.5, min 0.25 */
    const double first[] = { 1e-3, 9.0, NAN, 0.0, -1.0, INFINITY };
    const char *why[] = { "first pass fastest", "first pass slowest", "first pass NaN",
                          "first pass 0", "first pass -1", "first pass inf" };
    rl_stream_row_t row;
    for (size_t i = 0; i < sizeof first / sizeof first[0]; i++) {
        secs[0] = first[i];
        memset(&row, 0, sizeof row);
        MM_ASSERT_OK(rl_stream_summary(secs, 5, 24000000, &row));
        expect_row(&row, 96.0, 0.5, 0.25, 0.75, why[i]);
    }
    double two[2] = { NAN, 0.125 };
    MM_ASSERT_OK(rl_stream_summary(two, 2, 1000000, &row));
    expect_row(&row, 8.0, 0.125, 0.125, 0.125, "ntimes 2: one counted pass");

    mm_rng_t r = MM_RNG();
    for (int t = 0; t < 500; t++) {
        int n = (int)mm_rng_range(&r, 2, 100);
        double s[100], sum = 0.0, mn = INFINITY, mx = 0.0;
        uint64_t bytes = mm_rng_range(&r, 1, (uint64_t)1 << mm_rng_range(&r, 1, 50));
        for (int k = 1; k < n; k++) {
            s[k] = 1e-4 + 0.1 * mm_rng_unit(&r);
            sum += s[k];
            mn = fmin(mn, s[k]);
            mx = fmax(mx, s[k]);
        }
        s[0] = t % 2 ? mn / 2 : mx * 2;
        MM_CHECK_OK(rl_stream_summary(s, n, bytes, &row));
        expect_row(&row, 1e-6 * (double)bytes / mn, sum / (n - 1), mn, mx, "random passes");
    }
}
MM_END_TEST

MM_TEST(test_stream_summary_bad_args)
{
    const rl_stream_row_t keep = { 1.5, 2.5, 3.5, 4.5 };
    rl_stream_row_t row = keep;
    double secs[6] = { 0.1, 0.2, 0.3, 0.4, 0.5, 0.6 };
    const int bad_n[] = { 1, 0, -1, INT_MIN };
    const double bad_t[] = { 0.0, -0.0, -0.5, NAN, INFINITY, -INFINITY };
    MM_ASSERT_ERR(rl_stream_summary(NULL, 6, 1000, &row), -EINVAL);
    MM_ASSERT_ERR(rl_stream_summary(secs, 6, 1000, NULL), -EINVAL);
    MM_ASSERT_ERR(rl_stream_summary(secs, 6, 0, &row), -EINVAL);
    for (size_t i = 0; i < sizeof bad_n / sizeof bad_n[0]; i++)
        MM_ASSERT_ERR(rl_stream_summary(secs, bad_n[i], 1000, &row), -EINVAL);
    for (size_t i = 0; i < sizeof bad_t / sizeof bad_t[0]; i++)
        for (int at = 1; at < 6; at++) { /* a bad counted time anywhere, the last included */
            secs[at] = bad_t[i];
            MM_CHECK_ERR(rl_stream_summary(secs, 6, 1000, &row), -EINVAL);
            secs[at] = 0.1 * (at + 1);
        }
    ck_assert_msg(memcmp(&row, &keep, sizeof row) == 0,
                  "a failed rl_stream_summary changed the row (now %g %g %g %g)", row.best_mbs,
                  row.avg_s, row.min_s, row.max_s);
}
MM_END_TEST
