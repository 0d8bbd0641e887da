/* Lab 06 tests, part A: the header, its validation, and the writer. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "baseline.h"
#include "dsfile.h"
#include "mm_call.h"
#include "mm_check.h"
#include "support.h"

static uint64_t fnv1a(const unsigned char *b, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t le64(const unsigned char *b)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

/* A valid header for rs x count whose fields the caller then breaks; fix re-seals the checksum. */
static ds_header_t good(uint64_t rs, uint64_t count)
{
    ds_header_t h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, DS_MAGIC, 8);
    h.version = DS_VERSION;
    h.header_size = DS_HEADER_SIZE;
    h.record_size = rs;
    h.count = count;
    h.data_offset = DS_DATA_ALIGN;
    h.checksum = fnv1a((const unsigned char *)&h, DS_CHECKED_BYTES);
    return h;
}

static void fix(ds_header_t *h)
{
    h->checksum = fnv1a((const unsigned char *)h, DS_CHECKED_BYTES);
}

static uint64_t size_of(const ds_header_t *h)
{
    return h->data_offset + h->count * h->record_size;
}

MM_TEST(test_header_layout)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 50; round++) {
        uint64_t rs = mm_rng_range(&r, 1, 1u << 20), n = mm_rng_range(&r, 1, 1u << 30);
        unsigned char b[64];
        memset(b, 0xA5, sizeof b); /* ds_header_init must write every byte */
        ds_header_init((ds_header_t *)(void *)b, rs, n);
        ck_assert_msg(memcmp(b, "MLMEMDS", 8) == 0, "bytes 0..7 must be \"MLMEMDS\\0\"");
        ck_assert_msg(b[8] == 1 && b[9] == 0 && b[10] == 0 && b[11] == 0, "version: 1 (LE u32)");
        ck_assert_msg(b[12] == 64 && b[13] == 0, "header_size at byte 12: 64");
        ck_assert_msg(le64(b + 16) == rs && le64(b + 24) == n,
                      "record_size at 16 and count at 24 (little-endian u64)");
        ck_assert_msg(le64(b + 32) == 4096, "data_offset at 32 must be 4096, got %llu",
                      (unsigned long long)le64(b + 32));
        ck_assert_msg(le64(b + 40) == fnv1a(b, 40), "checksum at 40: FNV-1a of bytes 0..39");
        for (int i = 48; i < 64; i++)
            ck_assert_msg(b[i] == 0, "reserved byte %d is %#x, not 0", i, b[i]);
    }
}
MM_END_TEST

MM_TEST(test_header_check_valid)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 100; round++) {
        ds_header_t h = good(mm_rng_range(&r, 1, 1u << 16), mm_rng_range(&r, 1, 1u << 24));
        ck_assert_msg(ds_header_check(&h, size_of(&h)) == 0,
                      "a valid header (record_size %llu, count %llu) was rejected: %d",
                      (unsigned long long)h.record_size, (unsigned long long)h.count,
                      ds_header_check(&h, size_of(&h)));
        h.data_offset = 3 * DS_DATA_ALIGN; /* any multiple of 4096 is fine for readers */
        fix(&h);
        MM_ASSERT_OK(ds_header_check(&h, size_of(&h)));
    }
    MM_ASSERT_ERR(ds_header_check(NULL, 4096), -EINVAL);
}
MM_END_TEST

MM_TEST(test_header_check_magic_version)
{
    mm_rng_t r = MM_RNG();
    ds_header_t h = good(100, 10);
    h.magic[mm_rng_range(&r, 0, 7)] ^= (char)(1 << mm_rng_range(&r, 0, 7));
    fix(&h);
    MM_ASSERT_ERR(ds_header_check(&h, size_of(&h)), -EPROTO);
    h = good(100, 10);
    h.version = (uint32_t)mm_rng_range(&r, 2, 1000);
    fix(&h);
    MM_ASSERT_ERR(ds_header_check(&h, size_of(&h)), -EPROTONOSUPPORT);
    h.version = 0;
    MM_ASSERT_ERR(ds_header_check(&h, size_of(&h)), -EPROTONOSUPPORT);
}
MM_END_TEST

MM_TEST(test_header_check_corrupt)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 100; round++) { /* one flipped bit in bytes 12..47 */
        ds_header_t h = good(mm_rng_range(&r, 1, 9999), mm_rng_range(&r, 1, 9999));
        uint64_t size = size_of(&h), byte = mm_rng_range(&r, 12, 47);
        ((unsigned char *)&h)[byte] ^= (unsigned char)(1 << mm_rng_range(&r, 0, 7));
        ck_assert_msg(ds_header_check(&h, size) == -EPROTO,
                      "a header with a bit flipped in byte %llu must give -EPROTO, got %d",
                      (unsigned long long)byte, ds_header_check(&h, size));
    }
    ds_header_t h = good(100, 10);
    h.record_size = 0, fix(&h);
    MM_ASSERT_ERR(ds_header_check(&h, 4096), -EPROTO);
    h = good(100, 10), h.header_size = 32, fix(&h);
    MM_ASSERT_ERR(ds_header_check(&h, 5096), -EPROTO);
    h = good(100, 10), h.data_offset = 100, fix(&h);
    MM_ASSERT_ERR(ds_header_check(&h, 1100), -EPROTO);
    h = good(100, 10), h.data_offset = 0, fix(&h);
    MM_ASSERT_ERR(ds_header_check(&h, 1000), -EPROTO);
    h = good(100, 10), h.reserved[mm_rng_range(&r, 0, 15)] = 1, fix(&h);
    MM_ASSERT_ERR(ds_header_check(&h, 5096), -EPROTO);
    h = good(100, 0);
    MM_ASSERT_ERR(ds_header_check(&h, 4096), -ENODATA);
}
MM_END_TEST

MM_TEST(test_header_check_sizes)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 100; round++) {
        ds_header_t h = good(mm_rng_range(&r, 1, 1u << 20), mm_rng_range(&r, 1, 1u << 20));
        uint64_t size = size_of(&h), d = mm_rng_range(&r, 1, size);
        MM_ASSERT_ERR(ds_header_check(&h, size - d), -EBADMSG);
        MM_ASSERT_ERR(ds_header_check(&h, size + d), -EMSGSIZE);
    }
    /* count * record_size wraps around to 2^32: the "right" file size must not fool you */
    ds_header_t h = good(1ull << 32, (1ull << 32) + 1);
    MM_ASSERT_ERR(ds_header_check(&h, 4096 + (1ull << 32)), -EPROTO);
    h = good(1, UINT64_MAX - 100); /* data_offset + count overflows */
    MM_ASSERT_ERR(ds_header_check(&h, UINT64_MAX), -EPROTO);
}
MM_END_TEST

/* ds_validate of `name` through a descriptor of your process, whose offset must not move. */
static int validate_file(const char *name)
{
    int fd = tu_fd_open(name);
    ds_header_t h;
    int rc = ds_validate(fd, &h);
    long long pos = tu_fd_pos(fd);
    tu_fd_close(fd);
    ck_assert_msg(pos == 0, "ds_validate moved the file offset to %lld: use pread", pos);
    return rc;
}

MM_TEST_F(test_validate_bad_files, &tu_scratch)
{
    const char *p = "d.bin";
    tu_write_bytes(p, "", 0);
    MM_ASSERT_ERR(validate_file(p), -ENODATA);
    tu_write_bytes(p, "0123456789", 10);
    MM_ASSERT_ERR(validate_file(p), -EBADMSG);
    static const char text[] = "this is a text file, not a dataset; it is long enough to "
                               "hold a header, but its first 8 bytes are no magic...";
    tu_write_bytes(p, text, sizeof text);
    MM_ASSERT_ERR(validate_file(p), -EPROTO);
    tu_make(p, 1000, 50, 1);
    MM_ASSERT_OK(validate_file(p));
    tu_truncate(p, 4096 + 49 * 1000 + 999);
    MM_ASSERT_ERR(validate_file(p), -EBADMSG);
    tu_truncate(p, 4096 + 50 * 1000 + 1);
    MM_ASSERT_ERR(validate_file(p), -EMSGSIZE);
    MM_ASSERT_ERR(validate_file(""), -EISDIR);
    MM_ASSERT_ERR(ds_validate(-1, NULL), -EBADF);
}
MM_END_TEST

MM_TEST_F(test_validate_header_out, &tu_scratch)
{
    const char *p = "d.bin";
    mm_rng_t r = MM_RNG();
    uint64_t rs = mm_rng_range(&r, 1, 5000), n = mm_rng_range(&r, 1, 500);
    tu_make(p, rs, n, 9);
    int fd = tu_fd_open(p);
    ds_header_t h;
    memset(&h, 0, sizeof h);
    MM_ASSERT_OK(ds_validate(fd, &h));
    ck_assert_msg(h.record_size == rs && h.count == n && h.data_offset == 4096,
                  "ds_validate must fill *out with the file's header");
    MM_ASSERT_OK(ds_validate(fd, NULL));
    tu_fd_close(fd);
}
MM_END_TEST

/* Writes n records of rs bytes (pattern, seed) at `name` with the writer, in random chunks. */
static int write_with_writer(mm_rng_t *r, const char *name, uint64_t rs, uint64_t n,
                             uint64_t seed, ds_writer_t **keep)
{
    ds_writer_t *w = NULL;
    MM_ASSERT_OK(ds_writer_open(&w, tu_path(name, 0), rs));
    ck_assert_ptr_nonnull(w);
    unsigned char *buf = mm_shared_alloc(rs * 64); /* your code reads it from its process */
    for (uint64_t i = 0; i < n;) {
        uint64_t m = mm_rng_range(r, 1, 64);
        m = m > n - i ? n - i : m;
        for (uint64_t k = 0; k < m; k++)
            ds_base_pattern_fill(&seed, i + k, buf + k * rs, rs);
        MM_ASSERT_OK(ds_writer_append(w, buf, m));
        i += m;
    }
    mm_shared_free(buf);
    if (keep) {
        *keep = w;
        return 0;
    }
    return ds_writer_commit(w);
}

MM_TEST_F(test_writer_round_trip, &tu_scratch)
{
    mm_rng_t r = MM_RNG();
    const char *p = "w.bin";
    for (int round = 0; round < 5; round++) {
        uint64_t rs = mm_rng_range(&r, 1, 5000), n = mm_rng_range(&r, 1, 2000);
        MM_ASSERT_OK(write_with_writer(&r, p, rs, n, (uint64_t)round, NULL));
        ck_assert_msg(tu_file_size(p) == 4096 + rs * n, "file is %llu bytes, expected %llu",
                      (unsigned long long)tu_file_size(p), (unsigned long long)(4096 + rs * n));
        int sfd = tu_fd_open(p);
        ds_header_t h;
        MM_ASSERT_OK(ds_validate(sfd, &h));
        tu_fd_close(sfd);
        int fd = tu_open(p, O_RDONLY);
        unsigned char *rec = malloc(rs);
        ck_assert_ptr_nonnull(rec);
        for (uint64_t i = 0; i < n; i++) {
            MM_CHECK(pread(fd, rec, rs, (off_t)(4096 + i * rs)) == (ssize_t)rs,
                     "pread of record %llu failed", (unsigned long long)i);
            MM_CHECK(tu_is_record(rec, rs, (uint64_t)round, i),
                          "record %llu of %llu (record_size %llu) reads back wrong",
                          (unsigned long long)i, (unsigned long long)n, (unsigned long long)rs);
        }
        free(rec);
        close(fd);
        ck_assert_msg(tu_count_entries() == 1, "after commit the folder must hold only the "
                      "dataset (is a temporary file left behind?)");
    }
}
MM_END_TEST

MM_TEST_F(test_writer_atomic_replace, &tu_scratch)
{
    mm_rng_t r = MM_RNG();
    const char *p = "w.bin";
    tu_make(p, 100, 10, 1);
    ds_writer_t *w = NULL;
    MM_ASSERT_OK(write_with_writer(&r, p, 300, 1000, 2, &w));
    ck_assert_msg(tu_file_size(p) == 4096 + 100 * 10,
                  "before commit the old dataset at the path must be untouched");
    int fd_old = tu_fd_open(p);
    MM_ASSERT_OK(ds_writer_commit(w));
    ck_assert_msg(tu_file_size(p) == 4096 + 300 * 1000, "after commit the path holds the new one");
    ds_header_t h;
    MM_ASSERT_OK(ds_validate(fd_old, &h));
    ck_assert_msg(h.count == 10, "a reader that opened the old file keeps reading the old file "
                  "(rename, not rewrite in place)");
    tu_fd_close(fd_old);
    MM_ASSERT_OK(write_with_writer(&r, p, 50, 20, 3, &w));
    ds_writer_abort(w);
    ck_assert_msg(tu_file_size(p) == 4096 + 300 * 1000, "abort must leave the path as it was");
    ck_assert_msg(tu_count_entries() == 1, "abort must remove the temporary file");
    ds_writer_abort(NULL);
}
MM_END_TEST

/* Your process's file-size limit, set by a workload in it (SIGXFSZ ignored there: a write past
 * it fails with EFBIG) and read back from /proc/<pid>/limits. */
static void set_file_limit(uint64_t bytes)
{
    uint64_t old;
    MM_ASSERT_OK(mm_call_work("file_limit", &bytes, sizeof bytes, &old, sizeof old));
    ck_assert_msg(tu_file_limit() == bytes, "your process's file-size limit is not %llu bytes",
                  (unsigned long long)bytes);
}

MM_TEST_F(test_writer_errors, &tu_scratch)
{
    ds_writer_t *w = NULL;
    MM_ASSERT_ERR(ds_writer_open(&w, tu_path("x", 0), 0), -EINVAL);
    MM_ASSERT_ERR(ds_writer_open(NULL, tu_path("x", 0), 8), -EINVAL);
    MM_ASSERT_ERR(ds_writer_open(&w, NULL, 8), -EINVAL);
    MM_ASSERT_ERR(ds_writer_open(&w, tu_path("no/such/dir/x", 0), 8), -ENOENT);
    ck_assert_msg(w == NULL, "a failed open must not set *out");
    MM_ASSERT_OK(ds_writer_open(&w, tu_path("x", 0), 8));
    MM_ASSERT_ERR(ds_writer_append(w, NULL, 1), -EINVAL);
    MM_ASSERT_ERR(ds_writer_commit(w), -ENODATA);
    ck_assert_msg(tu_count_entries() == 0, "a dataset of no records must leave nothing");
}
MM_END_TEST

MM_TEST_F(test_writer_failure_leaves_nothing, &tu_scratch)
{
    set_file_limit(256 * 1024); /* your process's files may not grow past 256 KiB */
    ds_writer_t *w = NULL;
    const char *p = "big.bin";
    MM_ASSERT_OK(ds_writer_open(&w, tu_path(p, 0), 4096));
    unsigned char *rec = mm_shared_alloc(64 * 4096);
    MM_ASSERT_OK(ds_writer_append(w, rec, 32));
    int rc = ds_writer_append(w, rec, 64);
    ck_assert_msg(rc == -EFBIG, "a write past the file-size limit must give -EFBIG, got %d", rc);
    MM_ASSERT_ERR(ds_writer_append(w, rec, 1), -EFBIG);
    MM_ASSERT_ERR(ds_writer_commit(w), -EFBIG);
    ck_assert_msg(!tu_exists(p), "a failed dataset must not appear at its path");
    ck_assert_msg(tu_count_entries() == 0, "a failed write must not leave a temporary file");
}
MM_END_TEST
