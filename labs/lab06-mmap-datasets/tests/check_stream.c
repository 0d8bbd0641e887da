/* Lab 06 tests, part D: streaming a dataset larger than a memory budget. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "mm_check.h"
#include "reader.h"
#include "support.h"

#define MIB (1ull << 20)

typedef struct {
    const ds_reader_t *rd;
    uint64_t next;        /* the record expected next */
    uint64_t calls, stop_at;
    uint64_t seed;
    int check_bytes;      /* compare every record with the pattern */
    uint64_t sum;         /* of every 8th byte: the consumer reads what it is given */
    uint64_t since_rss;   /* bytes consumed since VmRSS was last read */
    long long rss0, peak; /* VmRSS at the start, the highest seen while consuming */
} consumer_t;

static void sample_rss(consumer_t *c)
{
    long long now = ds_base_rss();
    if (now > c->peak)
        c->peak = now;
    c->since_rss = 0;
}

static int consume(void *arg, uint64_t first, const void *records, uint64_t n)
{
    consumer_t *c = arg;
    uint64_t rs = ds_record_size(c->rd);
    ck_assert_msg(first == c->next, "the stream gave record %llu where %llu was next (in order, "
                  "each once)", (unsigned long long)first, (unsigned long long)c->next);
    ck_assert_msg(n >= 1 && first + n <= ds_count(c->rd), "a window of %llu records at %llu",
                  (unsigned long long)n, (unsigned long long)first);
    ck_assert_msg(records == ds_sample(c->rd, first), "the window must point into the mapping, "
                  "at ds_sample(first)");
    const unsigned char *b = records;
    for (uint64_t i = 0; i < n; i++, b += rs) {
        if (c->check_bytes)
            ck_assert_msg(tu_is_record(b, rs, c->seed, first + i), "record %llu is wrong",
                          (unsigned long long)(first + i));
        for (uint64_t k = 0; k < rs; k += 8)
            c->sum += b[k];
        c->since_rss += rs;
        if (c->since_rss >= MIB)
            sample_rss(c);
    }
    c->next = first + n;
    c->calls++;
    return c->calls == c->stop_at ? 7 : 0;
}

MM_TEST_F(test_stream_visits_all_in_order, &tu_scratch)
{
    mm_rng_t r = MM_RNG();
    const char *dir = tu_dir();
    const char *p = tu_path(dir, "s.bin", 0);
    for (int round = 0; round < 3; round++) {
        uint64_t rs = mm_rng_range(&r, 1, 100000), n = mm_rng_range(&r, 1, 12 * MIB / rs + 1);
        tu_make(p, rs, n, (uint64_t)round);
        ds_reader_t *rd = NULL;
        MM_ASSERT_OK(ds_open(&rd, p));
        consumer_t c = { .rd = rd, .seed = (uint64_t)round, .check_bytes = 1 };
        MM_ASSERT_OK(ds_stream(rd, 4 * MIB, consume, &c));
        ck_assert_msg(c.next == n, "the stream ended after %llu of %llu records",
                      (unsigned long long)c.next, (unsigned long long)n);
        ds_close(rd);
    }
}
MM_END_TEST

/* The naive way, in a mapping of the test's own: touch it all, keep it all. Returns the sum of
 * every 8th byte of every record (as consume() adds it) and the growth of VmRSS. */
static uint64_t naive_pass(const char *path, uint64_t rs, uint64_t n, long long *growth)
{
    size_t len = (size_t)(4096 + rs * n);
    int fd = open(path, O_RDONLY);
    ck_assert_msg(fd >= 0, "cannot open %s", path);
    const unsigned char *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    ck_assert_msg(m != MAP_FAILED, "cannot map %s", path);
    long long rss0 = ds_base_rss();
    uint64_t s = 0;
    for (uint64_t i = 0; i < n; i++)
        for (uint64_t k = 0; k < rs; k += 8)
            s += m[4096 + i * rs + k];
    *growth = ds_base_rss() - rss0;
    munmap((void *)m, len);
    return s;
}

MM_TEST_F(test_stream_rss_under_budget, &tu_scratch)
{
    TU_SKIP_WITHOUT_MADVISE();
    mm_rng_t r = MM_RNG();
    const char *dir = tu_dir();
    const char *p = tu_path(dir, "big.bin", 0);
    uint64_t rs = mm_rng_range(&r, 1000, 70000), n = 160 * MIB / rs, budget = 32 * MIB;
    tu_make(p, rs, n, 11);
    long long naive;
    uint64_t want = naive_pass(p, rs, n, &naive);
    if (naive < (long long)(2 * budget)) {
        MM_SKIP("VmRSS grew by only %lld KiB when 160 MiB were touched: this kernel cannot show "
                "the budget", naive / 1024);
    }
    ds_reader_t *rd = NULL;
    MM_ASSERT_OK(ds_open(&rd, p));
    consumer_t c = { .rd = rd, .rss0 = ds_base_rss() };
    c.peak = c.rss0;
    MM_ASSERT_OK(ds_stream(rd, budget, consume, &c));
    ck_assert_msg(c.next == n && c.sum == want, "the stream must deliver every record once");
    ck_assert_msg(c.peak - c.rss0 <= (long long)budget, "VmRSS grew by %lld MiB while streaming "
                  "%llu MiB with a budget of %llu MiB (touching it all without releasing: "
                  "%lld MiB)", (c.peak - c.rss0) >> 20, (unsigned long long)((n * rs) >> 20),
                  (unsigned long long)(budget >> 20), naive >> 20);
    ds_close(rd);
}
MM_END_TEST

MM_TEST_F(test_stream_stops_on_callback_error, &tu_scratch)
{
    const char *dir = tu_dir();
    const char *p = tu_path(dir, "s.bin", 0);
    tu_make(p, 4096, 8192, 3); /* 32 MiB: several windows of a 4 MiB budget */
    ds_reader_t *rd = NULL;
    MM_ASSERT_OK(ds_open(&rd, p));
    consumer_t c = { .rd = rd, .stop_at = 2 };
    int rc = ds_stream(rd, 4 * MIB, consume, &c);
    ck_assert_msg(rc == 7, "the callback returned 7: ds_stream must stop and return 7, not %d", rc);
    ck_assert_msg(c.calls == 2, "the callback was called %llu times after asking to stop at 2",
                  (unsigned long long)c.calls);
    ds_close(rd);
}
MM_END_TEST

MM_TEST_F(test_stream_bad_args, &tu_scratch)
{
    const char *dir = tu_dir();
    const char *p = tu_path(dir, "s.bin", 0);
    tu_make(p, 2 * MIB, 3, 3);
    ds_reader_t *rd = NULL;
    MM_ASSERT_OK(ds_open(&rd, p));
    consumer_t c = { .rd = rd };
    MM_ASSERT_ERR(ds_stream(NULL, 64 * MIB, consume, &c), -EINVAL);
    MM_ASSERT_ERR(ds_stream(rd, 64 * MIB, NULL, &c), -EINVAL);
    MM_ASSERT_ERR(ds_stream(rd, 4 * MIB - 1, consume, &c), -EINVAL);
    MM_ASSERT_ERR(ds_stream(rd, 8 * MIB - 1, consume, &c), -EINVAL); /* < 4 records */
    ck_assert_msg(c.calls == 0, "a rejected stream must not call the consumer");
    MM_ASSERT_OK(ds_stream(rd, 8 * MIB, consume, &c));
    ck_assert_msg(c.next == 3, "3 records of 2 MiB with a budget of 8 MiB");
    ds_close(rd);
}
MM_END_TEST
