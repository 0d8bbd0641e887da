/* Lab 06 tests, part B: the mmap reader: round trip, bad files, pointers into the mapping, and
 * what demand paging and madvise do to faults, the page cache and VmRSS. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "loader.h"
#include "mm_check.h"
#include "reader.h"
#include "support.h"

#define MIB (1ull << 20)

MM_TEST_F(test_open_round_trip, &tu_scratch)
{
    mm_rng_t r = MM_RNG();
    const char *p = "d.bin";
    for (int round = 0; round < 5; round++) {
        uint64_t rs = mm_rng_range(&r, 1, 9000), n = mm_rng_range(&r, 1, 3000);
        tu_make(p, rs, n, (uint64_t)round + 40);
        ds_reader_t *rd = NULL;
        MM_ASSERT_OK(ds_open(&rd, tu_path(p, 0)));
        ck_assert_msg(ds_count(rd) == n && ds_record_size(rd) == rs,
                      "count %llu / record_size %llu, expected %llu / %llu",
                      (unsigned long long)ds_count(rd), (unsigned long long)ds_record_size(rd),
                      (unsigned long long)n, (unsigned long long)rs);
        for (uint64_t i = 0; i < n; i++)
            MM_CHECK(tu_sample_is(rd, i, rs, (uint64_t)round + 40),
                     "sample %llu of %llu (record_size %llu) is wrong", (unsigned long long)i,
                     (unsigned long long)n, (unsigned long long)rs);
        ds_close(rd);
    }
}
MM_END_TEST

MM_TEST_F(test_sample_bounds, &tu_scratch)
{
    const char *p = tu_path("d.bin", 0);
    tu_make("d.bin", 24, 7, 1);
    ds_reader_t *rd = NULL;
    MM_ASSERT_OK(ds_open(&rd, p));
    ck_assert_msg(ds_sample(rd, 6) != NULL, "sample count-1 exists");
    ck_assert_msg(ds_sample(rd, 7) == NULL, "sample count must be NULL");
    ck_assert_msg(ds_sample(rd, UINT64_MAX) == NULL, "sample UINT64_MAX must be NULL");
    ck_assert_msg(ds_sample(NULL, 0) == NULL && ds_count(NULL) == 0 && ds_record_size(NULL) == 0,
                  "NULL reader: NULL sample, count 0, record_size 0");
    ds_close(rd);
    ds_close(NULL);
    MM_ASSERT_ERR(ds_open(NULL, p), -EINVAL);
    MM_ASSERT_ERR(ds_open(&rd, NULL), -EINVAL);
}
MM_END_TEST

/* Sample i at s must lie in a read-only shared mapping of inode ino, at its file offset. */
static void assert_in_mapping(const unsigned char *s, uint64_t i, uint64_t rs, uint64_t ino)
{
    uint64_t off, got_ino;
    uintptr_t lo, hi;
    char perms[5];
    ck_assert_msg(s && tu_find_mapping(s, &lo, &hi, &off, &got_ino, perms),
                  "sample %llu at %p is not in any mapping of this process",
                  (unsigned long long)i, (const void *)s);
    ck_assert_msg(got_ino == ino, "sample %llu points into a mapping of another file (inode "
                  "%llu, not the dataset's %llu): a copy is not zero-copy", (unsigned long long)i,
                  (unsigned long long)got_ino, (unsigned long long)ino);
    ck_assert_msg(strcmp(perms, "r--s") == 0, "the mapping is %s; expected r--s (read-only, "
                  "shared: the page cache's own pages)", perms);
    ck_assert_msg((uintptr_t)s + rs <= hi, "sample %llu runs past the end of its mapping",
                  (unsigned long long)i);
    ck_assert_msg((uint64_t)((uintptr_t)s - lo) + off == 4096 + i * rs,
                  "sample %llu maps file offset %llu, expected data_offset + i * record_size "
                  "= %llu", (unsigned long long)i, (unsigned long long)((uintptr_t)s - lo + off),
                  (unsigned long long)(4096 + i * rs));
}

MM_TEST_F(test_samples_inside_mapping, &tu_scratch)
{
    mm_rng_t r = MM_RNG();
    uint64_t rs = mm_rng_range(&r, 1, 10000), n = mm_rng_range(&r, 2, 2000);
    tu_make("d.bin", rs, n, 5);
    struct stat st;
    int fd = tu_open("d.bin", O_RDONLY);
    ck_assert(fstat(fd, &st) == 0);
    close(fd);
    ds_reader_t *rd = NULL;
    MM_ASSERT_OK(ds_open(&rd, tu_path("d.bin", 0)));
    for (int k = 0; k < 50; k++) {
        uint64_t i = mm_rng_range(&r, 0, n - 1);
        assert_in_mapping(ds_sample(rd, i), i, rs, (uint64_t)st.st_ino);
    }
    ds_close(rd);
}
MM_END_TEST

/* ds_open of `name` must fail with `want`, leaking no descriptor and no mapping. */
static void open_fails(const char *name, int want, const char *what)
{
    const char *path = tu_path(name, 0);
    int fds = tu_open_fds();
    ds_reader_t *rd = (ds_reader_t *)(uintptr_t)0x1;
    int rc = ds_open(&rd, path);
    ck_assert_msg(rc == want, "%s: ds_open returned %d (%s), expected %d (%s)", what, rc,
                  strerror(-rc), want, strerror(-want));
    ck_assert_msg(rd == (ds_reader_t *)(uintptr_t)0x1, "%s: a failed open must not set *out", what);
    ck_assert_msg(tu_open_fds() == fds, "%s: a failed open leaked a file descriptor", what);
    ck_assert_msg(tu_mappings_of(path) == 0, "%s: a failed open left a mapping", what);
}

MM_TEST_F(test_open_bad_files, &tu_scratch)
{
    const char *p = "bad.bin";
    open_fails("missing.bin", -ENOENT, "no such file");
    open_fails("", -EISDIR, "a directory");
    tu_write_bytes(p, "", 0);
    open_fails(p, -ENODATA, "an empty file");
    tu_write_bytes(p, "MLMEMDS", 8);
    open_fails(p, -EBADMSG, "8 bytes: a header cut short");
    tu_make(p, 512, 100, 3);
    tu_truncate(p, 4096 + 512 * 100 - 1);
    open_fails(p, -EBADMSG, "a truncated dataset");
    tu_truncate(p, 4096 + 512 * 100 + 4096);
    open_fails(p, -EMSGSIZE, "a dataset with trailing bytes");
    int fd = tu_open(p, O_WRONLY);
    ck_assert(pwrite(fd, "MLMEMDZ", 7, 0) == 7);
    open_fails(p, -EPROTO, "wrong magic");
    unsigned char v2[4] = { 2, 0, 0, 0 };
    ck_assert(pwrite(fd, "MLMEMDS", 7, 0) == 7 && pwrite(fd, v2, 4, 8) == 4);
    open_fails(p, -EPROTONOSUPPORT, "version 2");
    close(fd);
}
MM_END_TEST

MM_TEST_F(test_open_no_permission, &tu_scratch)
{
    const char *p = "secret.bin";
    tu_make(p, 64, 10, 1);
    int fd = tu_open(p, O_RDONLY);
    ck_assert(fchmod(fd, 0) == 0);
    close(fd);
    if (tu_reads_anything()) {
        MM_SKIP("your process may read a file of mode 000 (it runs as root): no-permission "
                "cannot be tested here; the grader runs tests as an ordinary user");
    }
    open_fails(p, -EACCES, "a file of mode 000");
    ds_loader_t *l = NULL;
    MM_ASSERT_ERR(ds_loader_open(&l, tu_path(p, 0)), -EACCES);
}
MM_END_TEST

MM_TEST_F(test_open_is_lazy, &tu_scratch)
{
    tu_make("big.bin", 4096, 16384, 2); /* 64 MiB, in the page cache after writing */
    long long before = tu_rss();
    ds_reader_t *rd = NULL;
    MM_ASSERT_OK(ds_open(&rd, tu_path("big.bin", 0)));
    const unsigned char *s0 = ds_sample(rd, 0);
    ck_assert_ptr_nonnull(s0);
    size_t in = tu_present(s0, 16384 * 4096);
    ck_assert_msg(in <= 16384 / 8, "right after ds_open, %zu of the 16384 pages of a 64 MiB file "
                  "are mapped in: open must map, not read or populate (MAP_POPULATE)", in);
    long long grew = tu_rss() - before;
    ck_assert_msg(grew < (long long)(8 * MIB), "VmRSS grew by %lld KiB in ds_open", grew / 1024);
    const void *s = ds_sample(rd, 9000);
    ck_assert_msg(tu_present(s, 1) == 0, "sample 9000 is mapped before any touch");
    tu_touch(rd, 9000, 9001, 1);
    ck_assert_msg(tu_present(s, 1) == 1, "touching a sample faults its page in");
    ds_close(rd);
}
MM_END_TEST

/* Touches one byte of every `stride`-th page-sized sample, in your process; returns the
 * touches. */
static uint64_t touch(const ds_reader_t *rd, uint64_t stride)
{
    return tu_touch(rd, 0, ds_count(rd), stride);
}

MM_TEST_F(test_fault_around, &tu_scratch)
{
    tu_make("d.bin", 4096, 8192, 4); /* 32 MiB of page-sized records, in the page cache */
    ds_reader_t *rd = NULL;
    MM_ASSERT_OK(ds_open(&rd, tu_path("d.bin", 0)));
    long min0, maj0, min1, maj1;
    long long rss0 = tu_rss();
    tu_faults(&min0, &maj0);
    uint64_t pages = touch(rd, 1);
    tu_faults(&min1, &maj1);
    long faults = (min1 - min0) + (maj1 - maj0);
    ck_assert_msg(faults >= 1, "touching %llu fresh pages took no page fault: a lazy mapping "
                  "faults on first touch", (unsigned long long)pages);
    ck_assert_msg(faults <= (long)pages / 4, "%ld faults for %llu cached pages: fault-around "
                  "should map many pages per fault", faults, (unsigned long long)pages);
    size_t in = tu_present(ds_sample(rd, 0), 8192 * 4096), all = 8192 * 4096 / tu_page();
    ck_assert_msg(in == all, "after touching every page, only %zu of %zu are mapped", in, all);
    ck_assert_msg(tu_rss() - rss0 >= (long long)(24 * MIB), "after touching all 32 MiB, VmRSS "
                  "grew by only %lld KiB", (tu_rss() - rss0) / 1024);
    ds_close(rd);
}
MM_END_TEST

/* A 16 MiB dataset of 4 KiB records, opened, given `advice` (if >= 0), then dropped from the
 * page cache: whatever ds_open read or mapped to validate it does not count. NULL where the
 * kernel keeps the file in memory (tmpfs): the test is skipped. */
static ds_reader_t *cold_open(const char **p, int advice)
{
    *p = "cold.bin";
    tu_make(*p, 4096, 4096, 6);
    ds_reader_t *rd = NULL;
    MM_ASSERT_OK(ds_open(&rd, tu_path(*p, 0)));
    if (advice >= 0)
        MM_ASSERT_OK(ds_advise(rd, 0, ds_count(rd), (ds_advice_t)advice));
    double left = tu_drop_cache(*p);
    if (left > 0.1) {
        ds_close(rd);
        mm_test_skip("the kernel kept %.0f%% of the file in memory after fadvise(DONTNEED) "
                     "(tmpfs?): cold-cache behaviour cannot be shown in this folder", left * 100);
        return NULL; /* the test returns at once: skipped */
    }
    return rd;
}

MM_TEST_F(test_advise_random_cold, &tu_scratch)
{
    TU_SKIP_WITHOUT_MADVISE();
    const char *p;
    ds_reader_t *rd = cold_open(&p, DS_ADV_RANDOM);
    if (!rd)
        return;
    long min0, maj0, min1, maj1;
    size_t pages, in0 = tu_resident(p, 0, 0, &pages);
    tu_faults(&min0, &maj0);
    uint64_t touches = touch(rd, 16); /* one page in 16 */
    tu_faults(&min1, &maj1);
    size_t read = tu_resident(p, 0, 0, &pages) - in0;
    ck_assert_msg(maj1 - maj0 >= (long)touches / 2, "MADV_RANDOM on a cold file: %ld major "
                  "faults for %llu touches; without readahead each touch must read its page",
                  maj1 - maj0, (unsigned long long)touches);
    ck_assert_msg(read <= touches * 2 + 16, "MADV_RANDOM: %zu pages came into the page cache for "
                  "%llu touches: readahead is still on", read, (unsigned long long)touches);
    ds_close(rd);
}
MM_END_TEST

MM_TEST_F(test_advise_sequential_cold, &tu_scratch)
{
    const char *p;
    ds_reader_t *rd = cold_open(&p, DS_ADV_SEQUENTIAL);
    if (!rd)
        return;
    long min0, maj0, min1, maj1;
    tu_faults(&min0, &maj0);
    uint64_t touches = touch(rd, 1);
    tu_faults(&min1, &maj1);
    ck_assert_msg(maj1 - maj0 <= (long)touches / 8, "MADV_SEQUENTIAL on a cold file: %ld major "
                  "faults for %llu pages read in order; readahead should bring pages in "
                  "batches", maj1 - maj0, (unsigned long long)touches);
    ds_close(rd);
}
MM_END_TEST

MM_TEST_F(test_advise_willneed, &tu_scratch)
{
    TU_SKIP_WITHOUT_MADVISE();
    const char *p;
    ds_reader_t *rd = cold_open(&p, -1);
    if (!rd)
        return;
    const void *want = ds_sample(rd, 1000);
    long long rss0 = tu_rss();
    /* 64 KiB: one WILLNEED reads at most max(read_ahead_kb, max_sectors_kb) of the device,
     * which can be as little as 128 KiB */
    MM_ASSERT_OK(ds_advise(rd, 1000, 16, DS_ADV_WILLNEED));
    size_t in = 0, pages = 0;
    for (int tries = 0; tries < 300; tries++) { /* up to ~3 s for the reads to land */
        in = tu_resident(p, 4096 + 1000 * 4096, 16 * 4096, &pages);
        if (in == pages)
            break;
        nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
    }
    ck_assert_msg(in == pages, "MADV_WILLNEED on samples 1000..1015: only %zu of their %zu pages "
                  "reached the page cache", in, pages);
    ck_assert_msg(tu_present(want, 16 * 4096) == 0 && tu_rss() - rss0 < (long long)MIB,
                  "MADV_WILLNEED fills the page cache; it maps nothing into this process");
    ds_close(rd);
}
MM_END_TEST

MM_TEST_F(test_advise_dontneed, &tu_scratch)
{
    TU_SKIP_WITHOUT_MADVISE();
    tu_make("d.bin", 4096, 8192, 8);
    ds_reader_t *rd = NULL;
    MM_ASSERT_OK(ds_open(&rd, tu_path("d.bin", 0)));
    long long rss0 = tu_rss();
    touch(rd, 1);
    long long rss1 = tu_rss();
    MM_ASSERT_OK(ds_advise(rd, 0, ds_count(rd), DS_ADV_DONTNEED));
    long long rss2 = tu_rss();
    ck_assert_msg(rss1 - rss0 > (long long)(24 * MIB), "touching 32 MiB grew VmRSS by only "
                  "%lld KiB", (rss1 - rss0) / 1024);
    ck_assert_msg(rss2 - rss0 < (long long)(2 * MIB), "after MADV_DONTNEED VmRSS is still %lld KiB "
                  "above where it started", (rss2 - rss0) / 1024);
    for (uint64_t i = 0; i < 8192; i += 97)
        MM_CHECK(tu_sample_is(rd, i, 4096, 8), "after DONTNEED, sample %llu must read back from "
                 "the page cache unchanged", (unsigned long long)i);
    ds_close(rd);
}
MM_END_TEST

static void advise_errors(ds_reader_t *rd)
{
    MM_ASSERT_ERR(ds_advise(rd, 0, 1, (ds_advice_t)99), -EINVAL);
    MM_ASSERT_ERR(ds_advise(NULL, 0, 1, DS_ADV_NORMAL), -EINVAL);
    MM_ASSERT_ERR(ds_advise(rd, 39999, 2, DS_ADV_NORMAL), -ERANGE);
    MM_ASSERT_ERR(ds_advise(rd, 1, UINT64_MAX, DS_ADV_NORMAL), -ERANGE);
    MM_ASSERT_OK(ds_advise(rd, 40000, 0, DS_ADV_NORMAL));
    MM_ASSERT_OK(ds_advise(rd, 39999, 1, DS_ADV_DONTNEED)); /* the last, partial page */
}

MM_TEST_F(test_advise_range, &tu_scratch)
{
    mm_rng_t r = MM_RNG();
    tu_make("d.bin", 1000, 40000, 8); /* 38 MiB; records straddle pages */
    ds_reader_t *rd = NULL;
    MM_ASSERT_OK(ds_open(&rd, tu_path("d.bin", 0)));
    advise_errors(rd);
    const unsigned char *file = (const unsigned char *)ds_sample(rd, 0) - 4096; /* offset 0 */
    size_t pg = tu_page(), all = (4096 + 40000 * 1000 + pg - 1) / pg, mapped = 0;
    /* A machine short of memory may reclaim clean file pages between the touches and the count:
     * touch again (up to 3 rounds); a reader whose samples are not in the mapping stays short. */
    for (int round = 0; round < 3 && mapped != all; round++) {
        tu_touch(rd, 0, 40000, 4);
        tu_touch(rd, 39999, 40000, 1); /* the last page: every 4th record's first byte is not in
                                          it, and the kernel's fault-around need not map it */
        mapped = tu_present(file, all * pg);
    }
    ck_assert_msg(mapped == all, "after touching every page, every page must be mapped (%zu of "
                  "%zu are)", mapped, all);
    uint64_t first = mm_rng_range(&r, 10, 10000), n = mm_rng_range(&r, 1000, 20000);
    /* the file pages holding records [first, first + n) */
    uint64_t lo = (4096 + first * 1000) / pg, hi = (4096 + (first + n) * 1000 + pg - 1) / pg;
    unsigned char byte; /* the two neighbours, mapped just before (a peek faults them in) */
    tu_peek(file + (lo - 1) * pg, &byte, 1, "the page before the range");
    tu_peek(file + hi * pg, &byte, 1, "the page after the range");
    MM_ASSERT_OK(ds_advise(rd, first, n, DS_ADV_DONTNEED));
    size_t left = tu_present(file + lo * pg, (hi - lo) * pg);
    ck_assert_msg(left == 0, "after DONTNEED of records [%llu, %llu), file pages [%llu, %llu) "
                  "must all be unmapped (%zu are not)", (unsigned long long)first,
                  (unsigned long long)(first + n), (unsigned long long)lo, (unsigned long long)hi,
                  left);
    ck_assert_msg(tu_present(file + (lo - 1) * pg, pg) == 1 && tu_present(file + hi * pg, pg) == 1,
                  "DONTNEED of records [%llu, %llu) also dropped page %llu or %llu: only the "
                  "pages holding them may go", (unsigned long long)first,
                  (unsigned long long)(first + n), (unsigned long long)(lo - 1),
                  (unsigned long long)hi);
    ds_close(rd);
}
MM_END_TEST
