/* Lab 07 tests: a full device (release cached segments, retry once, then a clean -ENOMEM),
 * back-end errors, empty_cache and destroy. */
#include <errno.h>
#include "allocator.h"
#include "mm_check.h"
#include "support.h"

MM_TEST(test_oom_retry_then_success)
{
    td_t t;
    td_open(&t, 24 * MIB);
    unsigned char *a = td_alloc(&t, 1024, 0), *b = td_alloc(&t, 3 * MIB, 0); /* 2 + 20 MiB */
    td_fill(&t, a, 1024, 1);
    td_free(&t, b);
    unsigned char *c = td_alloc(&t, 3 * MIB, 1); /* stream 1: needs 20 MiB more, 2 MiB free */
    ca_stats_t s = td_stats(&t);
    ca_simdev_stats_t d = td_dev(&t);
    ck_assert_msg(d.alloc_fails == 1 && d.free_calls == 1 && d.alloc_calls == 4,
                  "want: raw_alloc fails, b's cached segment is released, raw_alloc succeeds");
    ck_assert_msg(s.num_alloc_retries == 1 && s.num_ooms == 0 && s.raw_allocs == 4 &&
                  s.raw_frees == 1, "stats: one retry, no OOM, 4 raw_allocs, 1 raw_free");
    ck_assert_msg(s.reserved_bytes[0].current == 22 * MIB && d.live_bytes == 22 * MIB,
                  "reserved: a's 2 MiB segment and c's 20 MiB one");
    ck_assert_msg(td_intact(&t, a, 1024, 1),
                  "the live block a is untouched (its segment stays)");
    (void)c;
    td_close(&t);
}
MM_END_TEST

MM_TEST(test_oom_clean_error)
{
    td_t t;
    td_open(&t, 24 * MIB);
    unsigned char *a = td_alloc(&t, 1024, 0), *b = td_alloc(&t, 3 * MIB, 0);
    td_fill(&t, a, 1024, 1);
    td_fill(&t, b, 3 * MIB, 2);
    void *c = &t;
    MM_ASSERT_ERR(ca_alloc(t.a, 3 * MIB, 1, &c), -ENOMEM);
    ca_stats_t s = td_stats(&t);
    ck_assert_msg(c == (void *)&t, "a failed ca_alloc leaves *out untouched");
    ck_assert_msg(s.num_alloc_retries == 1 && s.num_ooms == 1 && s.raw_allocs == 4 &&
                  s.raw_frees == 0, "one retry (nothing to release), then one OOM");
    ck_assert_msg(s.allocated_bytes[0].current == 1024 + 3 * MIB && s.allocations.current == 2,
                  "an OOM changes no allocation");
    ck_assert_msg(td_intact(&t, a, 1024, 1) && td_intact(&t, b, 3 * MIB, 2),
                  "live blocks intact");
    MM_ASSERT_ERR(ca_alloc(t.a, 100 * MIB, 0, &c), -ENOMEM);
    td_free(&t, b);
    td_alloc(&t, 3 * MIB, 1); /* now b's segment can be released for it */
    s = td_stats(&t);
    ck_assert_msg(s.num_alloc_retries == 3 && s.num_ooms == 2,
                  "retries 3 and OOMs 2 after: OOM, OOM, retry that succeeds");
    td_close(&t);
}
MM_END_TEST

MM_TEST(test_backend_error_passthrough)
{
    td_t t;
    td_open(&t, 24 * MIB);
    void *p = &t;
    ca_simdev_fail_next_alloc(t.dev, -EIO);
    MM_ASSERT_ERR(ca_alloc(t.a, 5000, 0, &p), -EIO);
    ca_stats_t s = td_stats(&t);
    ck_assert_msg(p == (void *)&t && s.num_alloc_retries == 0 && s.num_ooms == 0,
                  "an error other than -ENOMEM is returned as is: no retry, not an OOM");
    ck_assert_msg(s.reserved_bytes[0].current == 0 && s.segments.current == 0,
                  "nothing reserved after a failed raw_alloc");
    td_alloc(&t, 5000, 0);
    td_close(&t);
}
MM_END_TEST

MM_TEST(test_empty_cache_exact)
{
    td_t t;
    td_open(&t, 64 * MIB);
    unsigned char *p1 = td_alloc(&t, 1000, 0), *p2 = td_alloc(&t, 2000, 0); /* small segment */
    unsigned char *q2 = td_alloc(&t, 12 * MIB, 0);                         /* its own segment */
    unsigned char *q1 = td_alloc(&t, 3 * MIB, 0);                          /* 20 MiB segment */
    unsigned char *q3 = td_alloc(&t, 18 * MIB, 0); /* does not fit q1's 17 MiB rest: own one */
    unsigned char *r = td_alloc(&t, 512, 1); /* a small segment of stream 1 */
    td_fill(&t, p1, 1000, 1);
    td_fill(&t, q2, 12 * MIB, 2);
    td_free(&t, p2);
    td_free(&t, q1);
    td_free(&t, q3);
    td_free(&t, r);
    MM_ASSERT_OK(ca_empty_cache(t.a));
    ca_simdev_stats_t d = td_dev(&t);
    ca_stats_t s = td_stats(&t);
    ck_assert_msg(d.free_calls == 3 && d.live_bytes == 14 * MIB,
                  "exactly the three unused segments (20, 18 and stream 1's 2 MiB) go back; "
                  "the two with live blocks (2 + 12 MiB) stay");
    ck_assert_msg(s.reserved_bytes[0].current == 14 * MIB && s.segments.current == 2 &&
                  s.raw_frees == 3, "stats follow: 14 MiB reserved in 2 segments");
    ck_assert_msg(td_intact(&t, p1, 1000, 1) && td_intact(&t, q2, 12 * MIB, 2),
                  "live blocks intact");
    MM_ASSERT_OK(ca_empty_cache(t.a));
    ck_assert_msg(td_dev(&t).free_calls == 3, "a second empty_cache has nothing to release");
    td_free(&t, p1);
    td_free(&t, q2);
    MM_ASSERT_OK(ca_empty_cache(t.a));
    ck_assert_msg(td_dev(&t).live_bytes == 0 && td_stats(&t).reserved_bytes[0].current == 0,
                  "all freed: empty_cache leaves nothing reserved");
    td_close(&t);
}
MM_END_TEST

MM_TEST(test_destroy_releases_everything)
{
    td_t t;
    td_open(&t, 64 * MIB);
    void *p[6];
    for (int i = 0; i < 6; i++)
        MM_ASSERT_OK(ca_alloc(t.a, (size_t)1 << (4 * i + 2), (ca_stream_t)(i % 2), &p[i]));
    MM_ASSERT_OK(ca_record_stream(t.a, p[2], 5));
    ca_simdev_launch(t.dev, 5);
    MM_ASSERT_OK(ca_free(t.a, p[2])); /* pending */
    MM_ASSERT_OK(ca_free(t.a, p[3])); /* cached */
    ca_destroy(t.a);
    ca_destroy(NULL);
    t.a = NULL;
    ca_simdev_stats_t d = td_dev(&t);
    ck_assert_msg(d.live_bytes == 0 && d.live_regions == 0 && d.free_errors == 0,
                  "ca_destroy returns every segment, live blocks' too, once each");
    ck_assert_msg(d.live_events == 0, "ca_destroy releases the events it still waits for");
    td_close(&t);
}
MM_END_TEST
