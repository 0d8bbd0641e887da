/* Lab 06 tests, part E: the pread loader. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "loader.h"
#include "mm_call.h"
#include "mm_check.h"
#include "support.h"

/* The header ds_loader_header points to, read from your process (NULL: fails the test). */
static ds_header_t header_of(const ds_loader_t *l)
{
    const ds_header_t *h = ds_loader_header(l);
    ds_header_t copy;
    ck_assert_msg(h != NULL, "ds_loader_header of an open loader is NULL");
    tu_peek(h, &copy, sizeof copy, "ds_loader_header");
    return copy;
}

MM_TEST_F(test_loader_round_trip, &tu_scratch)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 5; round++) {
        uint64_t rs = mm_rng_range(&r, 1, 20000), n = mm_rng_range(&r, 1, 500);
        tu_make("l.bin", rs, n, (uint64_t)round + 100);
        ds_loader_t *l = NULL;
        MM_ASSERT_OK(ds_loader_open(&l, tu_path("l.bin", 0)));
        ds_header_t h = header_of(l);
        ck_assert_msg(h.count == n && h.record_size == rs, "ds_loader_header is wrong");
        size_t b = (size_t)mm_rng_range(&r, 1, 64);
        uint64_t idx[64];
        unsigned char *dst = mm_shared_alloc(b * rs); /* your code writes, the test reads */
        for (size_t k = 0; k < b; k++)
            idx[k] = mm_rng_range(&r, 0, n - 1); /* repeats allowed */
        MM_ASSERT_OK(ds_loader_batch(l, idx, b, dst));
        for (size_t k = 0; k < b; k++)
            ck_assert_msg(tu_is_record(dst + k * rs, rs, (uint64_t)round + 100, idx[k]),
                          "batch slot %zu must hold record %llu", k, (unsigned long long)idx[k]);
        mm_shared_free(dst);
        ds_loader_close(l);
    }
}
MM_END_TEST

MM_TEST_F(test_loader_bad_index, &tu_scratch)
{
    tu_make("l.bin", 16, 10, 1);
    ds_loader_t *l = NULL;
    MM_ASSERT_OK(ds_loader_open(&l, tu_path("l.bin", 0)));
    uint64_t idx[3] = { 1, 2, 10 };
    unsigned char *dst = mm_shared_alloc(48);
    memset(dst, 0xAA, 48);
    MM_ASSERT_ERR(ds_loader_batch(l, idx, 3, dst), -ERANGE);
    for (size_t i = 0; i < 48; i++)
        ck_assert_msg(dst[i] == 0xAA, "indices are checked before anything is read: byte %zu of "
                      "the batch was written", i);
    MM_ASSERT_ERR(ds_loader_batch(NULL, idx, 1, dst), -EINVAL);
    MM_ASSERT_ERR(ds_loader_batch(l, NULL, 1, dst), -EINVAL);
    MM_ASSERT_ERR(ds_loader_batch(l, idx, 1, NULL), -EINVAL);
    MM_ASSERT_OK(ds_loader_batch(l, NULL, 0, NULL));
    ck_assert_msg(ds_loader_header(NULL) == NULL, "header of NULL is NULL");
    ds_loader_close(l);
    ds_loader_close(NULL);
}
MM_END_TEST

static void loader_fails(const char *name, int want, const char *what)
{
    const char *path = tu_path(name, 0);
    int fds = tu_open_fds();
    ds_loader_t *l = NULL;
    int rc = ds_loader_open(&l, path);
    ck_assert_msg(rc == want, "%s: ds_loader_open returned %d (%s), expected %d (%s)", what, rc,
                  strerror(-rc), want, strerror(-want));
    ck_assert_msg(l == NULL, "%s: a failed open must not set *out", what);
    ck_assert_msg(tu_open_fds() == fds, "%s: a failed open leaked a file descriptor", what);
}

MM_TEST_F(test_loader_bad_files, &tu_scratch)
{
    const char *p = "bad.bin";
    loader_fails("missing.bin", -ENOENT, "no such file");
    loader_fails("", -EISDIR, "a directory");
    tu_write_bytes(p, "", 0);
    loader_fails(p, -ENODATA, "an empty file");
    tu_make(p, 100, 100, 3);
    tu_truncate(p, 4096 + 100 * 99);
    loader_fails(p, -EBADMSG, "a truncated dataset");
    static const char text[128] = "#!/bin/sh\necho this is not a dataset\n";
    tu_write_bytes(p, text, sizeof text);
    loader_fails(p, -EPROTO, "a shell script");
    MM_ASSERT_ERR(ds_loader_open(NULL, tu_path(p, 0)), -EINVAL);
}
MM_END_TEST

MM_TEST_F(test_loader_file_shrank, &tu_scratch)
{
    tu_make("l.bin", 1000, 100, 5);
    ds_loader_t *l = NULL;
    MM_ASSERT_OK(ds_loader_open(&l, tu_path("l.bin", 0)));
    tu_truncate("l.bin", 4096 + 1000 * 50 + 500); /* someone cuts the file in half */
    unsigned char *dst = mm_shared_alloc(1000);
    uint64_t ok[1] = { 49 }, cut[1] = { 50 }, gone[1] = { 80 };
    MM_ASSERT_OK(ds_loader_batch(l, ok, 1, dst));
    ck_assert_msg(tu_is_record(dst, 1000, 5, 49), "record 49 is still whole");
    MM_ASSERT_ERR(ds_loader_batch(l, cut, 1, dst), -EIO);
    MM_ASSERT_ERR(ds_loader_batch(l, gone, 1, dst), -EIO);
    ds_loader_close(l);
}
MM_END_TEST
