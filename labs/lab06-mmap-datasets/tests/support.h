/* Lab 06 tests: helpers shared by the test files (a scratch folder per test, datasets with a
 * known pattern, VmRSS, fault counts, page-cache residency, /proc/self/maps). */
#ifndef DS_SUPPORT_H
#define DS_SUPPORT_H
#include <stddef.h>
#include <stdint.h>
#include "baseline.h" /* ds_base_rss, the writer and the pattern */
#include "mm_check.h"

/* The fixture of every test that writes files, MM_TEST_F(name, &tu_scratch): before the test the
 * parent process makes a fresh folder under $TMPDIR (else /tmp), and after it removes the folder
 * with everything in it, whatever the test did (a crash or a timeout included). */
extern const mm_fixture_t tu_scratch;
/* The test's scratch folder (fails the test if the fixture could not make one). */
const char *tu_dir(void);
/* dir/name in a static buffer (one per slot 0..3). */
const char *tu_path(const char *dir, const char *name, int slot);

/* A valid dataset at path: count records of rs bytes with ds_base_pattern(seed, ...). */
void tu_make(const char *path, uint64_t rs, uint64_t count, uint64_t seed);
/* 1 if rs bytes at p are record i of the pattern with this seed. */
int tu_is_record(const void *p, uint64_t rs, uint64_t seed, uint64_t i);
/* Writes len bytes to a new file at path. */
void tu_write_bytes(const char *path, const void *bytes, size_t len);
/* Size of path in bytes. */
uint64_t tu_file_size(const char *path);
/* Number of entries in dir (without . and ..). */
int tu_count_entries(const char *dir);
/* Open descriptors of this process. */
int tu_open_fds(void);
/* Mappings of this process whose path contains `needle`. */
int tu_mappings_of(const char *needle);

/* Minor and major page faults of this process so far (getrusage). */
void tu_faults(long *minor, long *major);
/* Pages of path resident in the page cache (mincore), and its total pages. */
size_t tu_resident(const char *path, size_t *pages);
/* Writes path back and asks the kernel to drop it from the page cache (fsync + fadvise
 * DONTNEED). Returns the fraction of its pages still resident (1.0 on tmpfs). */
double tu_drop_cache(const char *path);
/* Reads the whole file once so that it is in the page cache. */
void tu_warm(const char *path);

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
/* Pages of [p, p + len) (rounded out to pages) in the page cache (mincore); *pages: how many. */
size_t tu_cached(const void *p, size_t len, size_t *pages);
/* Pages of [p, p + len) mapped into this process right now (present in its page table, from
 * /proc/self/pagemap): exact, unlike VmRSS, which some kernels update lazily. */
size_t tu_present(const void *p, size_t len);

/* Looks up the mapping holding address p in /proc/self/maps: fills its start, end, file offset,
 * inode and permissions ("r--s"). Returns 1 if found. */
int tu_find_mapping(const void *p, uintptr_t *start, uintptr_t *end, uint64_t *offset,
                    uint64_t *inode, char perms[5]);

#endif
