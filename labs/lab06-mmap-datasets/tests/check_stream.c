/* Lab 06 tests, part D: streaming a dataset larger than a memory budget. Your ds_stream runs in
 * your process with a consumer of the lab's (serve/pages.c) that hands each window over, a piece
 * at a time, to the test's consumer here: it checks each window (in order, each record once,
 * inside the dataset's mapping in your process) and its bytes, and reads your process's VmRSS
 * from outside after every MiB consumed, while the window is mapped. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../serve/ds_serve.h"
#include "mm_call.h"
#include "mm_check.h"
#include "reader.h"
#include "support.h"

#define MIB (1ull << 20)
#define PIECE MIB  /* the shared buffer each piece of a window comes through */
#define BROKEN 99  /* what the test's consumer answers once something is wrong: stop */

typedef struct {
    uint64_t rs, count, ino; /* the dataset */
    uint64_t next;           /* the record expected next */
    uint64_t calls, stop_at;
    uint64_t seed;
    int check_bytes;         /* compare every record with the pattern */
    uint64_t sum;            /* of every 8th byte of each record */
    uint64_t since_rss;      /* bytes consumed since VmRSS was last read */
    long long rss0, peak;    /* VmRSS at the start, the highest seen while consuming */
    const unsigned char *buf; /* shared: the piece */
    char error[400];         /* the first thing wrong (the consumer runs inside a call: it cannot
                              * fail the test; the test does once the stream returns) */
} consumer_t;

static int broken(consumer_t *c, const char *fmt, unsigned long long a, unsigned long long b)
{
    if (!c->error[0])
        snprintf(c->error, sizeof c->error, fmt, a, b);
    return BROKEN;
}

/* 1 if address p in your process maps byte `off` of the dataset (inode ino), read-only and
 * shared: the page cache's own pages, not a copy. */
static int maps_file_at(const void *p, uint64_t ino, uint64_t off)
{
    uintptr_t lo, hi;
    uint64_t at, got_ino;
    char perms[5];
    return tu_find_mapping(p, &lo, &hi, &at, &got_ino, perms) && got_ino == ino &&
           strcmp(perms, "r--s") == 0 && (uintptr_t)p - lo + at == off;
}

/* The first piece of a window: where it is, and that it comes next. */
static int new_window(consumer_t *c, const ds_chunk_t *k)
{
    const char *at = (const char *)(uintptr_t)k->records;
    if (k->first != c->next)
        return broken(c, "the stream gave record %llu where %llu was next (in order, each once)",
                      k->first, c->next);
    if (k->n < 1 || k->first + k->n > c->count)
        return broken(c, "a window of %llu records at %llu", k->n, k->first);
    if (!maps_file_at(at, c->ino, 4096 + k->first * c->rs) ||
        !maps_file_at(at + k->n * c->rs - 1, c->ino, 4096 + (k->first + k->n) * c->rs - 1))
        return broken(c, "the window of %llu records at %llu is not the dataset's own pages in "
                      "your mapping (ds_sample(first), read-only and shared)", k->n, k->first);
    c->calls++;
    return 0;
}

/* The piece's bytes: bytes [k0, k1) of record i at b. */
static int check_bytes(consumer_t *c, uint64_t i, uint64_t k0, uint64_t k1,
                       const unsigned char *b)
{
    for (uint64_t k = (k0 + 7) / 8 * 8; k < k1; k += 8)
        c->sum += b[k - k0];
    if (c->check_bytes)
        for (uint64_t k = k0; k < k1; k++)
            if (b[k - k0] != ds_base_pattern(c->seed, i, k))
                return broken(c, "record %llu is wrong at byte %llu", i, k);
    return 0;
}

static void on_chunk(const void *args, size_t len, void *ret, void *ctx)
{
    consumer_t *c = ctx;
    ds_chunk_t k;
    int32_t answer = c->error[0] ? BROKEN : 0;
    if (len != sizeof k || answer) {
        answer = broken(c, "the stream's consumer sent %llu bytes, not %llu", len, sizeof k);
        memcpy(ret, &answer, sizeof answer);
        return;
    }
    memcpy(&k, args, sizeof k);
    if (k.offset == 0)
        answer = new_window(c, &k);
    if (!answer && (k.len > PIECE || k.offset + k.len > k.n * c->rs))
        answer = broken(c, "a piece of %llu bytes at %llu", k.len, k.offset);
    for (uint64_t at = k.offset; !answer && at < k.offset + k.len;) {
        uint64_t i = at / c->rs, k0 = at % c->rs;
        uint64_t k1 = c->rs - k0 < k.offset + k.len - at ? c->rs : k0 + (k.offset + k.len - at);
        answer = check_bytes(c, k.first + i, k0, k1, c->buf + (at - k.offset));
        at += k1 - k0;
    }
    c->since_rss += k.len;
    if (c->since_rss >= MIB) {
        long long now = ds_base_rss_of((int)mm_student_pid(), 0);
        c->peak = now > c->peak ? now : c->peak;
        c->since_rss = 0;
    }
    if (!answer && k.offset + k.len == k.n * c->rs) {
        c->next = k.first + k.n;
        answer = c->calls == c->stop_at ? 7 : 0;
    }
    memcpy(ret, &answer, sizeof answer);
}

static void on_begin(const void *args, size_t len, void *ret, void *ctx)
{
    consumer_t *c = ctx;
    (void)args, (void)len, (void)ret;
    c->rss0 = c->peak = ds_base_rss_of((int)mm_student_pid(), 0);
}

/* A consumer for the dataset `name` (rs, seed) your reader rd has open. */
static consumer_t *consumer(const char *name, const ds_reader_t *rd, uint64_t rs, uint64_t seed)
{
    static consumer_t c;
    struct stat st;
    int fd = tu_open(name, O_RDONLY);
    ck_assert(fstat(fd, &st) == 0);
    close(fd);
    c = (consumer_t){ .rs = rs, .count = ds_count(rd), .ino = (uint64_t)st.st_ino,
                      .seed = seed, .buf = mm_shared_alloc(PIECE) };
    mm_call_on_callback("ds.chunk", on_chunk, &c);
    mm_call_on_callback("ds.begin", on_begin, &c);
    return &c;
}

/* ds_stream(rd, budget, the lab's consumer or NULL, ...) in your process; its result. */
static int stream(ds_reader_t *rd, uint64_t budget, consumer_t *c, int no_consumer)
{
    ds_stream_in_t in = { rd, budget, c->rs, (void *)c->buf, PIECE, no_consumer };
    int rc = mm_call_work("stream", &in, sizeof in, NULL, 0);
    ck_assert_msg(!c->error[0], "%s", c->error);
    return rc;
}

MM_TEST_F(test_stream_visits_all_in_order, &tu_scratch)
{
    mm_rng_t r = MM_RNG();
    const char *p = "s.bin";
    for (int round = 0; round < 3; round++) {
        uint64_t rs = mm_rng_range(&r, 1, 100000), n = mm_rng_range(&r, 1, 12 * MIB / rs + 1);
        tu_make(p, rs, n, (uint64_t)round);
        ds_reader_t *rd = NULL;
        MM_ASSERT_OK(ds_open(&rd, tu_path(p, 0)));
        consumer_t *c = consumer(p, rd, rs, (uint64_t)round);
        c->check_bytes = 1;
        MM_ASSERT_OK(stream(rd, 4 * MIB, c, 0));
        ck_assert_msg(c->next == n, "the stream ended after %llu of %llu records",
                      (unsigned long long)c->next, (unsigned long long)n);
        ds_close(rd);
    }
}
MM_END_TEST

/* The naive way, in a mapping of the test's own: touch it all, keep it all. Returns the sum of
 * every 8th byte of every record (as the consumer adds it) and the growth of VmRSS. */
static uint64_t naive_pass(const char *name, uint64_t rs, uint64_t n, long long *growth)
{
    size_t len = (size_t)(4096 + rs * n);
    int fd = tu_open(name, O_RDONLY);
    const unsigned char *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    ck_assert_msg(m != MAP_FAILED, "cannot map %s", name);
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
    const char *p = "big.bin";
    uint64_t rs = mm_rng_range(&r, 1000, 70000), n = 160 * MIB / rs, budget = 32 * MIB;
    tu_make(p, rs, n, 11);
    long long naive;
    uint64_t want = naive_pass(p, rs, n, &naive);
    if (naive < (long long)(2 * budget)) {
        MM_SKIP("VmRSS grew by only %lld KiB when 160 MiB were touched: this kernel cannot show "
                "the budget", naive / 1024);
    }
    ds_reader_t *rd = NULL;
    MM_ASSERT_OK(ds_open(&rd, tu_path(p, 0)));
    consumer_t *c = consumer(p, rd, rs, 11);
    MM_ASSERT_OK(stream(rd, budget, c, 0));
    long long hwm = ds_base_rss_of((int)mm_student_pid(), 1); /* the peak between the reads */
    c->peak = hwm > c->peak ? hwm : c->peak;
    ck_assert_msg(c->next == n && c->sum == want, "the stream must deliver every record once");
    ck_assert_msg(c->peak - c->rss0 <= (long long)budget, "VmRSS grew by %lld MiB while "
                  "streaming %llu MiB with a budget of %llu MiB (touching it all without "
                  "releasing: %lld MiB)", (c->peak - c->rss0) >> 20,
                  (unsigned long long)((n * rs) >> 20), (unsigned long long)(budget >> 20),
                  naive >> 20);
    ds_close(rd);
}
MM_END_TEST

MM_TEST_F(test_stream_stops_on_callback_error, &tu_scratch)
{
    tu_make("s.bin", 4096, 8192, 3); /* 32 MiB: several windows of a 4 MiB budget */
    ds_reader_t *rd = NULL;
    MM_ASSERT_OK(ds_open(&rd, tu_path("s.bin", 0)));
    consumer_t *c = consumer("s.bin", rd, 4096, 3);
    c->stop_at = 2;
    int rc = stream(rd, 4 * MIB, c, 0);
    ck_assert_msg(rc == 7, "the callback returned 7: ds_stream must stop and return 7, not %d", rc);
    ck_assert_msg(c->calls == 2, "the callback was called %llu times after asking to stop at 2",
                  (unsigned long long)c->calls);
    ds_close(rd);
}
MM_END_TEST

MM_TEST_F(test_stream_bad_args, &tu_scratch)
{
    tu_make("s.bin", 2 * MIB, 3, 3);
    ds_reader_t *rd = NULL;
    MM_ASSERT_OK(ds_open(&rd, tu_path("s.bin", 0)));
    consumer_t *c = consumer("s.bin", rd, 2 * MIB, 3);
    MM_ASSERT_ERR(stream(NULL, 64 * MIB, c, 0), -EINVAL);
    MM_ASSERT_ERR(stream(rd, 64 * MIB, c, 1), -EINVAL); /* no consumer */
    MM_ASSERT_ERR(stream(rd, 4 * MIB - 1, c, 0), -EINVAL);
    MM_ASSERT_ERR(stream(rd, 8 * MIB - 1, c, 0), -EINVAL); /* < 4 records */
    ck_assert_msg(c->calls == 0, "a rejected stream must not call the consumer");
    MM_ASSERT_OK(stream(rd, 8 * MIB, c, 0));
    ck_assert_msg(c->next == 3, "3 records of 2 MiB with a budget of 8 MiB");
    ds_close(rd);
}
MM_END_TEST
