/* Lab 07 tests: stream-ordered reuse. A block belongs to its allocation stream; a block also
 * used on other streams returns to the pool only once the allocator has seen their work done. */
#include <errno.h>
#include "allocator.h"
#include "mm_check.h"
#include "support.h"

MM_TEST(test_streams_pools_separate)
{
    td_t t;
    td_open(&t, 16 * MIB);
    unsigned char *p = td_alloc(&t, 1000, 0);
    td_free(&t, p);
    unsigned char *q = td_alloc(&t, 1000, 1);
    ck_assert_msg(td_dev(&t).alloc_calls == 2 && (q >= p + 2 * MIB || q + 2 * MIB <= p),
                  "a block cached for stream 0 must not serve stream 1: stream 1 needs its own "
                  "segment");
    ck_assert_msg(td_alloc(&t, 1000, 0) == p, "stream 0 gets its own cached block back");
    ck_assert_msg(td_dev(&t).alloc_calls == 2, "no third segment");
    td_close(&t);
}
MM_END_TEST

MM_TEST(test_record_stream_defers_reuse)
{
    td_t t;
    td_open(&t, 64 * MIB);
    unsigned char *p = td_alloc(&t, 4 * MIB, 0);
    MM_ASSERT_OK(ca_record_stream(t.a, p, 1));
    MM_ASSERT_OK(ca_record_stream(t.a, p, 2));
    ca_simdev_launch(t.dev, 1); /* kernels on streams 1 and 2 still read p */
    ca_simdev_launch(t.dev, 2);
    MM_ASSERT_OK(ca_free(t.a, p));
    ca_stats_t s = td_stats(&t);
    ck_assert_msg(s.allocated_bytes[0].current == 0 && s.active_bytes[0].current == 4 * MIB,
                  "freed but waiting for streams 1 and 2: not allocated, still active");
    ck_assert_msg(td_dev(&t).live_events == 2, "one event per other stream that used the block");
    unsigned char *q = td_alloc(&t, 4 * MIB, 0);
    ck_assert_msg(q >= p + 4 * MIB, "p must not be reused while stream 1 may still read it");
    ca_simdev_complete(t.dev, 1);
    MM_ASSERT_OK(ca_process_events(t.a));
    ck_assert_msg(td_alloc(&t, 4 * MIB, 0) != p, "stream 2 has not finished: p still waits");
    ca_simdev_complete(t.dev, 2);
    ck_assert_msg(td_alloc(&t, 4 * MIB, 0) == p, "both streams done: the next ca_alloc sees it "
                  "(it processes events first) and p is the best fit");
    ck_assert_msg(td_dev(&t).live_events == 0, "every event is released once it is done");
    s = td_stats(&t);
    ck_assert_msg(s.active_bytes[0].current == s.allocated_bytes[0].current,
                  "nothing waits any more: active == allocated");
    td_close(&t);
}
MM_END_TEST

MM_TEST(test_record_stream_own_stream)
{
    td_t t;
    td_open(&t, 16 * MIB);
    unsigned char *p = td_alloc(&t, 3000, 1);
    MM_ASSERT_OK(ca_record_stream(t.a, p, 1));
    ca_simdev_launch(t.dev, 1);
    MM_ASSERT_ERR(ca_record_stream(t.a, p, CA_MAX_STREAMS), -EINVAL);
    MM_ASSERT_ERR(ca_record_stream(t.a, p + 512, 0), -EINVAL);
    td_free(&t, p);
    MM_ASSERT_ERR(ca_record_stream(t.a, p, 0), -EINVAL);
    ck_assert_msg(td_dev(&t).live_events == 0, "its own stream orders the reuse: no event needed");
    ck_assert_msg(td_alloc(&t, 3000, 1) == p, "so the block is reusable on stream 1 at once");
    td_close(&t);
}
MM_END_TEST

MM_TEST(test_empty_cache_synchronizes)
{
    td_t t;
    td_open(&t, 64 * MIB);
    unsigned char *p = td_alloc(&t, 3 * MIB, 0);
    MM_ASSERT_OK(ca_record_stream(t.a, p, 3));
    ca_simdev_launch(t.dev, 3);
    td_free(&t, p);
    MM_ASSERT_OK(ca_empty_cache(t.a));
    ca_simdev_stats_t d = td_dev(&t);
    ck_assert_msg(d.syncs >= 1, "empty_cache must synchronize first");
    ck_assert_msg(d.live_events == 0 && d.live_bytes == 0 && d.free_calls == 1,
                  "after the synchronize p's event is done, its segment is whole and released");
    ck_assert_msg(td_stats(&t).active_bytes[0].current == 0, "nothing is active any more");
    td_close(&t);
}
MM_END_TEST
