/* Lab 06 tests: shared helpers (see ds_test.h). */
#include "support.h"
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "baseline.h"
#include "mm_hw.h"

/* The running test's scratch folder; made and removed by the parent process (an unchecked
 * fixture), so that a test that fails or crashes leaves no dataset behind. The test, forked after
 * the set-up, sees the path. */
static char scratch[4096];

/* Removes path: a file, or a folder and what it holds (depth levels of folders). */
static void remove_tree(const char *path, int depth)
{
    DIR *d = depth > 0 ? opendir(path) : NULL;
    struct dirent *e;
    char sub[4400];
    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        remove_tree(sub, depth - 1);
    }
    if (d)
        closedir(d);
    if (rmdir(path) != 0)
        unlink(path);
}

static void scratch_setup(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(scratch, sizeof scratch, "%s/ds-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(scratch))
        scratch[0] = 0;
}

static void scratch_teardown(void)
{
    if (scratch[0])
        remove_tree(scratch, 2);
    scratch[0] = 0;
}

const mm_fixture_t tu_scratch = { .parent_setup = scratch_setup,
                                  .parent_teardown = scratch_teardown };

const char *tu_dir(void)
{
    const char *tmp = getenv("TMPDIR");
    ck_assert_msg(scratch[0], "the test's fixture could not create a scratch folder in %s",
                  tmp && *tmp ? tmp : "/tmp");
    return scratch;
}

const char *tu_path(const char *dir, const char *name, int slot)
{
    static char buf[4][4200];
    snprintf(buf[slot], sizeof buf[slot], "%s/%s", dir, name);
    return buf[slot];
}

void tu_make(const char *path, uint64_t rs, uint64_t count, uint64_t seed)
{
    int rc = ds_base_write(path, rs, count, ds_base_pattern_fill, &seed);
    ck_assert_msg(rc == 0, "the test could not write %s: %s", path, strerror(-rc));
}

int tu_is_record(const void *p, uint64_t rs, uint64_t seed, uint64_t i)
{
    const uint8_t *b = p;
    for (uint64_t k = 0; k < rs; k++)
        if (b[k] != ds_base_pattern(seed, i, k))
            return 0;
    return 1;
}

void tu_write_bytes(const char *path, const void *bytes, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_msg(fd >= 0, "cannot create %s", path);
    ck_assert_msg(len == 0 || write(fd, bytes, len) == (ssize_t)len, "cannot write %s", path);
    close(fd);
}

uint64_t tu_file_size(const char *path)
{
    struct stat st;
    ck_assert_msg(stat(path, &st) == 0, "cannot stat %s", path);
    return (uint64_t)st.st_size;
}

int tu_count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}

int tu_open_fds(void)
{
    return tu_count_entries("/proc/self/fd") - 1; /* minus the one opendir holds */
}

int tu_mappings_of(const char *needle)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4400];
    int n = 0;
    while (f && fgets(line, sizeof line, f))
        n += strstr(line, needle) != NULL;
    if (f)
        fclose(f);
    return n;
}

void tu_faults(long *minor, long *major)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    *minor = u.ru_minflt;
    *major = u.ru_majflt;
}

size_t tu_resident(const char *path, size_t *pages)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), len = (size_t)tu_file_size(path), n = 0;
    int fd = open(path, O_RDONLY);
    ck_assert_msg(fd >= 0, "cannot open %s", path);
    void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    ck_assert_msg(p != MAP_FAILED, "cannot map %s", path);
    *pages = (len + page - 1) / page;
    unsigned char *vec = malloc(*pages);
    ck_assert_ptr_nonnull(vec);
    ck_assert_msg(mincore(p, len, vec) == 0, "mincore failed");
    for (size_t i = 0; i < *pages; i++)
        n += vec[i] & 1;
    free(vec);
    munmap(p, len);
    return n;
}

double tu_drop_cache(const char *path)
{
    int fd = open(path, O_RDONLY);
    ck_assert_msg(fd >= 0, "cannot open %s", path);
    fsync(fd);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
    size_t pages, in = tu_resident(path, &pages);
    return (double)in / (double)pages;
}

void tu_warm(const char *path)
{
    static char buf[1 << 16];
    int fd = open(path, O_RDONLY);
    ck_assert_msg(fd >= 0, "cannot open %s", path);
    while (read(fd, buf, sizeof buf) > 0)
        ;
    close(fd);
}

size_t tu_page(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

size_t tu_cached(const void *p, size_t len, size_t *pages)
{
    size_t page = tu_page(), n = 0;
    uintptr_t lo = (uintptr_t)p / page * page, hi = ((uintptr_t)p + len + page - 1) / page * page;
    unsigned char vec[1024];
    *pages = (hi - lo) / page;
    ck_assert_msg(*pages <= sizeof vec, "tu_cached: range too long");
    ck_assert_msg(mincore((void *)lo, hi - lo, vec) == 0, "mincore failed");
    for (size_t i = 0; i < *pages; i++)
        n += vec[i] & 1;
    return n;
}

size_t tu_present(const void *p, size_t len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), n = 0;
    uintptr_t lo = (uintptr_t)p / page, hi = ((uintptr_t)p + len + page - 1) / page;
    int fd = open("/proc/self/pagemap", O_RDONLY);
    ck_assert_msg(fd >= 0, "cannot open /proc/self/pagemap");
    uint64_t e[512];
    for (uintptr_t v = lo; v < hi; v += 512) {
        size_t m = hi - v < 512 ? hi - v : 512;
        ck_assert(pread(fd, e, m * 8, (off_t)(v * 8)) == (ssize_t)(m * 8));
        for (size_t k = 0; k < m; k++)
            n += e[k] >> 63;
    }
    close(fd);
    return n;
}

int tu_find_mapping(const void *p, uintptr_t *start, uintptr_t *end, uint64_t *offset,
                    uint64_t *inode, char perms[5])
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4400];
    int found = 0;
    while (!found && f && fgets(line, sizeof line, f)) {
        unsigned long lo, hi, ino;
        unsigned long long off;
        char pr[5];
        if (sscanf(line, "%lx-%lx %4s %llx %*s %lu", &lo, &hi, pr, &off, &ino) != 5)
            continue;
        if ((uintptr_t)p >= lo && (uintptr_t)p < hi) {
            *start = lo, *end = hi, *offset = off, *inode = ino;
            memcpy(perms, pr, 5);
            found = 1;
        }
    }
    if (f)
        fclose(f);
    return found;
}

int tu_madvise_acts(void)
{
    if (mm_hw_emulated())
        return 0;
    size_t pg = tu_page();
    unsigned char *p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_msg(p != MAP_FAILED, "mmap of one anonymous page failed");
    p[0] = 0xA5;
    int acts = madvise(p, pg, MADV_DONTNEED) == 0 && ((volatile unsigned char *)p)[0] == 0;
    munmap(p, pg);
    return acts;
}
