/* Lab 06 tests: helpers shared by the test files. Your code runs in a process of its own
 * (calls.toml), in a working folder of its own: each test's datasets go in a scratch folder the
 * test makes inside that folder. Your code opens them by tu_path(name), a path relative to its
 * working folder; the test writes, cuts and measures them itself, by name. What the tests
 * measure of your process (VmRSS, page faults, descriptors, mappings, pages mapped) they read
 * from its /proc entries, from outside it; your pointers they read with mm_peek. */
#ifndef DS_SUPPORT_H
#define DS_SUPPORT_H
#include <stddef.h>
#include <stdint.h>
#include "baseline.h" /* the pattern, the writer */
#include "mm_call.h"
#include "mm_check.h"
#include "reader.h"

/* The fixture of every test that writes files, MM_TEST_F(name, &tu_scratch): the first use of
 * tu_path (or any helper below that takes a name) makes a fresh folder in the working folder of
 * your process; after the test the parent process removes it with everything in it, whatever
 * the test did (a crash or a timeout included). */
extern const mm_fixture_t tu_scratch;
/* The path of `name` in the scratch folder, as your process opens it ("" for the folder itself),
 * in a static buffer (one per slot 0..3). */
const char *tu_path(const char *name, int slot);

/* The test's own file operations on `name` in the scratch folder (never following a link your
 * process may have put there); each fails the test when it cannot be done. */
/* A valid dataset: count records of rs bytes with ds_base_pattern(seed, ...). */
void tu_make(const char *name, uint64_t rs, uint64_t count, uint64_t seed);
/* A new file of len bytes. */
void tu_write_bytes(const char *name, const void *bytes, size_t len);
/* Opens name (open(2)'s flags; the file is created 0644 with O_CREAT). Close it yourself. */
int tu_open(const char *name, int flags);
void tu_truncate(const char *name, uint64_t size);
uint64_t tu_file_size(const char *name);
int tu_exists(const char *name);
/* Entries of the scratch folder (without . and ..). */
int tu_count_entries(void);
/* 1 if rs bytes at p (the test's memory) are record i of the pattern with this seed. */
int tu_is_record(const void *p, uint64_t rs, uint64_t seed, uint64_t i);

/* Your process, read from outside. */
/* Copies n bytes at addr in your process to dst; fails the test (naming `what`) if unmapped. */
void tu_peek(const void *addr, void *dst, size_t n, const char *what);
/* 1 if ds_sample(rd, i) is non-NULL and holds record i of the pattern (rs bytes, seed). */
int tu_sample_is(const ds_reader_t *rd, uint64_t i, uint64_t rs, uint64_t seed);
/* Its open descriptors, and its mappings whose path contains `needle`. */
int tu_open_fds(void);
int tu_mappings_of(const char *needle);
/* Its minor and major page faults so far. */
void tu_faults(long *minor, long *major);
/* Its VmRSS in bytes. */
long long tu_rss(void);
/* Pages of [p, p + len) (rounded out to pages) mapped into it right now (its page table, from
 * /proc/<pid>/pagemap): exact, unlike VmRSS, which some kernels update lazily. */
size_t tu_present(const void *p, size_t len);
/* Looks up the mapping holding address p in its /proc/<pid>/maps: fills its start, end, file
 * offset, inode and permissions ("r--s"). Returns 1 if found. */
int tu_find_mapping(const void *p, uintptr_t *start, uintptr_t *end, uint64_t *offset,
                    uint64_t *inode, char perms[5]);
/* Its file-size limit (the soft RLIMIT_FSIZE, /proc/<pid>/limits) in bytes; UINT64_MAX for
 * none. */
uint64_t tu_file_limit(void);
/* 1 if it may read any file whatever its mode (root, or CAP_DAC_OVERRIDE / READ_SEARCH). */
int tu_reads_anything(void);

/* Workloads in your process (serve/). */
/* A descriptor of your process for `name` in the scratch folder, opened read-only; closing it;
 * its file offset (from /proc/<pid>/fdinfo). */
int tu_fd_open(const char *name);
void tu_fd_close(int fd);
long long tu_fd_pos(int fd);
/* One load from the first byte of every stride-th sample in [first, end), in your process, as a
 * training loop reads them. Returns the loads; fails the test if a sample is NULL. */
uint64_t tu_touch(const ds_reader_t *rd, uint64_t first, uint64_t end, uint64_t stride);

/* The page cache (the test's own view of the file). */
/* Pages holding bytes [off, off + len) of name (len 0: to the end) in the page cache (mincore);
 * *pages: how many pages that is. */
size_t tu_resident(const char *name, uint64_t off, uint64_t len, size_t *pages);
/* Writes name back and asks the kernel to drop it from the page cache (fsync + fadvise
 * DONTNEED). Returns the fraction of its pages still resident (1.0 on tmpfs). */
double tu_drop_cache(const char *name);

/* The page size. */
size_t tu_page(void);

/* 1 if madvise has its effects here. 0 under a CPU emulator such as qemu-user, which accepts
 * madvise and ignores it: found by the kernel's architecture differing from this program's
 * (/proc/sys/kernel/arch), or by MADV_DONTNEED keeping a private anonymous page's contents. The
 * tests of madvise's effects then skip, with that reason (TU_SKIP_WITHOUT_MADVISE). */
int tu_madvise_acts(void);
#define TU_SKIP_WITHOUT_MADVISE()                                                           \
    do {                                                                                    \
        if (!tu_madvise_acts())                                                             \
            MM_SKIP("madvise is accepted but ignored here (a CPU emulator such as "         \
                    "qemu-user): its effects cannot be shown");                             \
    } while (0)

#endif
