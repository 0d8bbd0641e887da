/* Lab 06 tests, part E: the pread loader. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "loader.h"
#include "mm_check.h"
#include "support.h"

MM_TEST_F(test_loader_round_trip, &tu_scratch)
{
    mm_rng_t r = MM_RNG();
    const char *dir = tu_dir();
    const char *p = tu_path(dir, "l.bin", 0);
    for (int round = 0; round < 5; round++) {
        uint64_t rs = mm_rng_range(&r, 1, 20000), n = mm_rng_range(&r, 1, 500);
        tu_make(p, rs, n, (uint64_t)round + 100);
        ds_loader_t *l = NULL;
        MM_ASSERT_OK(ds_loader_open(&l, p));
        const ds_header_t *h = ds_loader_header(l);
        ck_assert_msg(h && h->count == n && h->record_size == rs, "ds_loader_header is wrong");
        size_t b = (size_t)mm_rng_range(&r, 1, 64);
        uint64_t idx[64];
        unsigned char *dst = malloc(b * rs);
        ck_assert_ptr_nonnull(dst);
        for (size_t k = 0; k < b; k++)
            idx[k] = mm_rng_range(&r, 0, n - 1); /* repeats allowed */
        MM_ASSERT_OK(ds_loader_batch(l, idx, b, dst));
        for (size_t k = 0; k < b; k++)
            ck_assert_msg(tu_is_record(dst + k * rs, rs, (uint64_t)round + 100, idx[k]),
                          "batch slot %zu must hold record %llu", k, (unsigned long long)idx[k]);
        free(dst);
        ds_loader_close(l);
    }
}
MM_END_TEST

MM_TEST_F(test_loader_bad_index, &tu_scratch)
{
    const char *dir = tu_dir();
    const char *p = tu_path(dir, "l.bin", 0);
    tu_make(p, 16, 10, 1);
    ds_loader_t *l = NULL;
    MM_ASSERT_OK(ds_loader_open(&l, p));
    uint64_t idx[3] = { 1, 2, 10 };
    unsigned char dst[48];
    memset(dst, 0xAA, sizeof dst);
    MM_ASSERT_ERR(ds_loader_batch(l, idx, 3, dst), -ERANGE);
    for (size_t i = 0; i < sizeof dst; i++)
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

static void loader_fails(const char *path, int want, const char *what)
{
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
    const char *dir = tu_dir();
    const char *p = tu_path(dir, "bad.bin", 0);
    loader_fails(tu_path(dir, "missing.bin", 1), -ENOENT, "no such file");
    loader_fails(dir, -EISDIR, "a directory");
    tu_write_bytes(p, "", 0);
    loader_fails(p, -ENODATA, "an empty file");
    tu_make(p, 100, 100, 3);
    ck_assert(truncate(p, 4096 + 100 * 99) == 0);
    loader_fails(p, -EBADMSG, "a truncated dataset");
    static const char text[128] = "#!/bin/sh\necho this is not a dataset\n";
    tu_write_bytes(p, text, sizeof text);
    loader_fails(p, -EPROTO, "a shell script");
    MM_ASSERT_ERR(ds_loader_open(NULL, p), -EINVAL);
}
MM_END_TEST

MM_TEST_F(test_loader_file_shrank, &tu_scratch)
{
    const char *dir = tu_dir();
    const char *p = tu_path(dir, "l.bin", 0);
    tu_make(p, 1000, 100, 5);
    ds_loader_t *l = NULL;
    MM_ASSERT_OK(ds_loader_open(&l, p));
    ck_assert(truncate(p, 4096 + 1000 * 50 + 500) == 0); /* someone cuts the file in half */
    unsigned char dst[1000];
    uint64_t ok[1] = { 49 }, cut[1] = { 50 }, gone[1] = { 80 };
    MM_ASSERT_OK(ds_loader_batch(l, ok, 1, dst));
    ck_assert_msg(tu_is_record(dst, 1000, 5, 49), "record 49 is still whole");
    MM_ASSERT_ERR(ds_loader_batch(l, cut, 1, dst), -EIO);
    MM_ASSERT_ERR(ds_loader_batch(l, gone, 1, dst), -EIO);
    ds_loader_close(l);
}
MM_END_TEST
