/* Lab 06 tests: shared helpers (see support.h). */
#include "support.h"
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../serve/ds_serve.h"
#include "mm_hw.h"
#include "mm_proc.h"

/* ---- the scratch folder ---- */

/* Where the running test's scratch folder is, for the parent process that removes it: a page
 * shared with the test's child (made by the parent before the first test forks). */
static struct {
    char home[4096]; /* your process's working folder, as this process reaches it */
    char name[32];   /* the scratch folder in it; "" when there is none */
} *shared_note;
static int scratch_fd = -1; /* the folder, in the test's process */
static char scratch_name[32];

/* Removes `name` in folder dfd: a file, or a folder and what it holds (depth levels of
 * folders). Never follows a link. */
static void remove_at(int dfd, const char *name, int depth)
{
    if (unlinkat(dfd, name, 0) == 0 || depth == 0)
        return;
    int sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = sub >= 0 ? fdopendir(sub) : NULL;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            remove_at(dirfd(d), e->d_name, depth - 1);
    if (d)
        closedir(d);
    else if (sub >= 0)
        close(sub);
    unlinkat(dfd, name, AT_REMOVEDIR);
}

static void scratch_setup(void)
{
    if (!shared_note) {
        void *p = mmap(NULL, sizeof *shared_note, PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        shared_note = p == MAP_FAILED ? NULL : p;
    }
    if (shared_note)
        shared_note->name[0] = 0;
}

static void scratch_teardown(void)
{
    if (scratch_fd >= 0) /* CK_FORK=no: the test ran in this process */
        close(scratch_fd);
    scratch_fd = -1;
    if (!shared_note || !shared_note->name[0])
        return;
    int home = open(shared_note->home, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (home >= 0) {
        remove_at(home, shared_note->name, 2);
        close(home);
    }
    shared_note->name[0] = 0;
}

const mm_fixture_t tu_scratch = { .parent_setup = scratch_setup,
                                  .parent_teardown = scratch_teardown };

/* Opens your process's /proc/<pid>/<what> (mm_proc.h), or fails the test. */
static int open_proc_fd(const char *what, int flags)
{
    int fd = mm_proc_open(mm_student_pid(), what, flags);
    MM_CHECK(fd >= 0, "cannot open /proc/<your process>/%s: %s", what, strerror(-fd));
    return fd;
}

/* Makes the scratch folder in your process's working folder (its own, or the test refuses to
 * write there) and hands it to your process's user. */
static void make_scratch(void)
{
    char home[32];
    struct stat proc;
    int home_fd = mm_proc_mkdtemp(mm_student_pid(), "ds-test-", scratch_name,
                                  sizeof scratch_name, &proc);
    MM_CHECK(home_fd != -EPERM, "your process's working folder is not its own: it left its run "
                  "folder (chdir)");
    MM_CHECK(home_fd >= 0, "the test could not make a scratch folder in your process's working "
                  "folder: %s", strerror(-home_fd));
    snprintf(home, sizeof home, "/proc/self/fd/%d", home_fd);
    if (shared_note) {
        ssize_t n = readlink(home, shared_note->home, sizeof shared_note->home - 1);
        shared_note->home[n > 0 ? n : 0] = 0;
        snprintf(shared_note->name, sizeof shared_note->name, "%s", n > 0 ? scratch_name : "");
    }
    scratch_fd = openat(home_fd, scratch_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    close(home_fd);
    MM_CHECK(scratch_fd >= 0, "cannot open the scratch folder: %s", strerror(errno));
    if (geteuid() == 0 && proc.st_uid != 0)
        MM_CHECK(fchown(scratch_fd, proc.st_uid, proc.st_gid) == 0,
                      "cannot give the scratch folder to your process's user: %s",
                      strerror(errno));
}

static int scratch(void)
{
    if (scratch_fd < 0)
        make_scratch();
    return scratch_fd;
}

const char *tu_path(const char *name, int slot)
{
    static char buf[4][DS_SERVE_PATH_MAX];
    scratch();
    snprintf(buf[slot], sizeof buf[slot], "%s%s%s", scratch_name, *name ? "/" : "", name);
    return buf[slot];
}

int tu_open(const char *name, int flags)
{
    int fd = openat(scratch(), name, flags | O_NOFOLLOW | O_CLOEXEC, 0644);
    MM_CHECK(fd >= 0, "the test cannot open %s: %s", name, strerror(errno));
    return fd;
}

/* A new, empty file at name (whatever was there is removed first). */
static int create(const char *name)
{
    unlinkat(scratch(), name, 0);
    return tu_open(name, O_WRONLY | O_CREAT | O_EXCL);
}

void tu_make(const char *name, uint64_t rs, uint64_t count, uint64_t seed)
{
    int fd = create(name);
    int rc = ds_base_write_fd(fd, rs, count, ds_base_pattern_fill, &seed);
    close(fd);
    MM_CHECK(rc == 0, "the test could not write %s: %s", name, strerror(-rc));
}

void tu_write_bytes(const char *name, const void *bytes, size_t len)
{
    int fd = create(name);
    MM_CHECK(len == 0 || write(fd, bytes, len) == (ssize_t)len, "cannot write %s", name);
    close(fd);
}

void tu_truncate(const char *name, uint64_t size)
{
    int fd = tu_open(name, O_WRONLY);
    MM_CHECK(ftruncate(fd, (off_t)size) == 0, "cannot truncate %s", name);
    close(fd);
}

uint64_t tu_file_size(const char *name)
{
    struct stat st;
    MM_CHECK(fstatat(scratch(), name, &st, AT_SYMLINK_NOFOLLOW) == 0, "cannot stat %s",
                  name);
    return (uint64_t)st.st_size;
}

int tu_exists(const char *name)
{
    struct stat st;
    return fstatat(scratch(), name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Entries of the folder `path` or, for NULL, of the scratch folder. */
/* The entries of folder fd (which it takes), "." and ".." aside. */
static int count_entries(int fd)
{
    DIR *d = fdopendir(fd);
    int n = 0;
    if (d)
        rewinddir(d);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}

int tu_count_entries(void)
{
    return count_entries(dup(scratch()));
}

int tu_is_record(const void *p, uint64_t rs, uint64_t seed, uint64_t i)
{
    const uint8_t *b = p;
    for (uint64_t k = 0; k < rs; k++)
        if (b[k] != ds_base_pattern(seed, i, k))
            return 0;
    return 1;
}

/* ---- your process, from outside ---- */

void tu_peek(const void *addr, void *dst, size_t n, const char *what)
{
    MM_CHECK(mm_peek(addr, dst, n) == 0, "%s: %zu bytes at %p cannot be read in your "
                  "process", what, n, addr);
}

int tu_sample_is(const ds_reader_t *rd, uint64_t i, uint64_t rs, uint64_t seed)
{
    const void *s = ds_sample(rd, i);
    unsigned char *b = malloc(rs);
    MM_CHECK(b, "out of memory");
    int ok = s && mm_peek(s, b, rs) == 0 && tu_is_record(b, rs, seed, i);
    free(b);
    return ok;
}

int tu_open_fds(void)
{
    int n = count_entries(open_proc_fd("fd", O_RDONLY | O_DIRECTORY));
    MM_CHECK(n > 0, "cannot list the descriptors of your process (/proc/<pid>/fd)");
    return n;
}

static FILE *open_proc(const char *what)
{
    FILE *f = mm_proc_fopen(mm_student_pid(), what);
    MM_CHECK(f, "cannot read /proc/<your process>/%s: %s", what, strerror(errno));
    return f;
}

int tu_mappings_of(const char *needle)
{
    FILE *f = open_proc("maps");
    char line[4400];
    int n = 0;
    while (fgets(line, sizeof line, f))
        n += strstr(line, needle) != NULL;
    fclose(f);
    return n;
}

void tu_faults(long *minor, long *major)
{
    FILE *f = open_proc("stat");
    char line[1024];
    char *end = fgets(line, sizeof line, f) ? strrchr(line, ')') : NULL;
    fclose(f);
    /* after "pid (comm)": state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt */
    MM_CHECK(end && sscanf(end + 1, " %*c %*d %*d %*d %*d %*d %*u %ld %*u %ld", minor,
                                major) == 2, "cannot read the page faults of your process");
}

long long tu_rss(void)
{
    long long rss = ds_base_rss_of((int)mm_student_pid(), 0);
    MM_CHECK(rss >= 0, "cannot read the VmRSS of your process");
    return rss;
}

size_t tu_present(const void *p, size_t len)
{
    size_t page = tu_page();
    uintptr_t lo = (uintptr_t)p / page, hi = ((uintptr_t)p + len + page - 1) / page;
    int fd = open_proc_fd("pagemap", O_RDONLY);
    long n = mm_proc_present(fd, lo, hi - lo);
    close(fd);
    MM_CHECK(n >= 0, "cannot read /proc/<your process>/pagemap: %s", strerror((int)-n));
    return (size_t)n;
}

int tu_find_mapping(const void *p, uintptr_t *start, uintptr_t *end, uint64_t *offset,
                    uint64_t *inode, char perms[5])
{
    FILE *f = open_proc("maps");
    char line[4400];
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
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
    fclose(f);
    return found;
}

uint64_t tu_file_limit(void)
{
    FILE *f = open_proc("limits");
    char line[256];
    uint64_t limit = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "Max file size", 13) == 0) {
            unsigned long long v;
            limit = sscanf(line + 13, " %llu", &v) == 1 ? v : UINT64_MAX; /* "unlimited" */
        }
    fclose(f);
    return limit;
}

int tu_reads_anything(void)
{
    FILE *f = open_proc("status");
    char line[256];
    unsigned long long caps = 0;
    while (fgets(line, sizeof line, f))
        sscanf(line, "CapEff: %llx", &caps);
    fclose(f);
    return (caps & (1ull << 1 | 1ull << 2)) != 0; /* CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH */
}

/* ---- workloads in your process ---- */

int tu_fd_open(const char *name)
{
    ds_fd_open_in_t in;
    snprintf(in.path, sizeof in.path, "%s", tu_path(name, 3));
    int32_t fd = -1;
    int rc = mm_call_work("fd_open", &in, sizeof in, &fd, sizeof fd);
    MM_CHECK(rc >= 0, "your process could not open %s: %s", in.path, strerror(-rc));
    return rc;
}

void tu_fd_close(int fd)
{
    int32_t v = fd;
    mm_call_work("fd_close", &v, sizeof v, NULL, 0);
}

long long tu_fd_pos(int fd)
{
    char what[32];
    snprintf(what, sizeof what, "fdinfo/%d", fd);
    FILE *f = open_proc(what);
    char line[256];
    long long pos = -1;
    while (fgets(line, sizeof line, f))
        sscanf(line, "pos: %lld", &pos);
    fclose(f);
    return pos;
}

uint64_t tu_touch(const ds_reader_t *rd, uint64_t first, uint64_t end, uint64_t stride)
{
    ds_touch_in_t in = { rd, first, end, stride };
    uint64_t at = 0;
    int rc = mm_call_work("touch", &in, sizeof in, &at, sizeof at);
    MM_CHECK(rc != -EFAULT, "ds_sample(%llu) returned NULL", (unsigned long long)at);
    MM_CHECK(rc >= 0, "touching the samples failed: %s", strerror(-rc));
    return (uint64_t)rc;
}

/* ---- the page cache ---- */

size_t tu_resident(const char *name, uint64_t off, uint64_t len, size_t *pages)
{
    size_t page = tu_page(), size = (size_t)tu_file_size(name), n = 0;
    size_t lo = (size_t)off / page * page, hi = len ? (size_t)(off + len) : size;
    hi = (hi + page - 1) / page * page;
    int fd = tu_open(name, O_RDONLY);
    void *p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    MM_CHECK(p != MAP_FAILED, "cannot map %s", name);
    *pages = (hi - lo) / page;
    unsigned char *vec = malloc(*pages);
    MM_CHECK(vec, "out of memory");
    MM_CHECK(mincore((char *)p + lo, hi - lo, vec) == 0, "mincore failed");
    for (size_t i = 0; i < *pages; i++)
        n += vec[i] & 1;
    free(vec);
    munmap(p, size);
    return n;
}

double tu_drop_cache(const char *name)
{
    int fd = tu_open(name, O_RDONLY);
    fsync(fd);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
    size_t pages, in = tu_resident(name, 0, 0, &pages);
    return (double)in / (double)pages;
}

size_t tu_page(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

int tu_madvise_acts(void)
{
    if (mm_hw_emulated())
        return 0;
    size_t pg = tu_page();
    unsigned char *p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    MM_CHECK(p != MAP_FAILED, "mmap of one anonymous page failed");
    p[0] = 0xA5;
    int acts = madvise(p, pg, MADV_DONTNEED) == 0 && ((volatile unsigned char *)p)[0] == 0;
    munmap(p, pg);
    return acts;
}
