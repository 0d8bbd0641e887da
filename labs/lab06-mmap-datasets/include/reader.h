/* Lab 06, parts B and D: a dataset read through mmap. The whole file is mapped read-only and
 * shared, once; a sample is a pointer into the mapping (zero copies, zero system calls), and
 * the kernel brings pages in on first touch (demand paging) from the page cache.
 * Part D streams a file larger than a memory budget through that mapping. */
#ifndef DS_READER_H
#define DS_READER_H
#include <stddef.h>
#include <stdint.h>
#include "dsfile.h"

typedef struct ds_reader ds_reader_t;

/* Access-pattern hints, passed on to madvise(2). */
typedef enum {
    DS_ADV_NORMAL,     /* MADV_NORMAL: default readahead */
    DS_ADV_SEQUENTIAL, /* MADV_SEQUENTIAL: aggressive readahead; pages behind may go first */
    DS_ADV_RANDOM,     /* MADV_RANDOM: no readahead: each missing page is read alone */
    DS_ADV_WILLNEED,   /* MADV_WILLNEED: start reading these pages into the page cache now */
    DS_ADV_DONTNEED,   /* MADV_DONTNEED: unmap these pages from this process (RSS drops; the
                        * data stays in the page cache and comes back on the next touch) */
} ds_advice_t;

/* Opens and validates the dataset at `path` (ds_validate's checks and errors: see dsfile.h) and
 * maps the whole file with mmap(PROT_READ, MAP_SHARED). Lazily: nothing is read or populated,
 * so RSS does not grow until samples are touched. Close with ds_close. Returns 0 and sets *out;
 *   -EINVAL: out or path is NULL;
 *   -ENOENT, -EACCES, ... from open;
 *   -ENOMEM: out of memory;
 *   -errno of mmap.
 * On failure nothing is leaked (no descriptor, no mapping) and *out is untouched. */
int ds_open(ds_reader_t **out, const char *path);

/* Unmaps and frees; NULL is ignored. Every pointer ds_sample returned becomes invalid. */
void ds_close(ds_reader_t *r);

/* The header's count and record_size; 0 for NULL. */
uint64_t ds_count(const ds_reader_t *r);
uint64_t ds_record_size(const ds_reader_t *r);

/* A pointer to record i inside the mapping (file offset data_offset + i * record_size), valid
 * until ds_close; NULL if r is NULL or i >= count. O(1): no system call, no copy. */
const void *ds_sample(const ds_reader_t *r, uint64_t i);

/* Applies `advice` to the pages holding records [first, first + n): the byte range rounded out to
 * whole pages (sysconf(_SC_PAGESIZE)). n == 0 does nothing. Returns 0;
 *   -EINVAL: r is NULL or advice is not a ds_advice_t;
 *   -ERANGE: first + n > count (or overflows);
 *   -errno of madvise. */
int ds_advise(ds_reader_t *r, uint64_t first, uint64_t n, ds_advice_t advice);

/* Part D. Receives `n` >= 1 consecutive records starting at record `first`; `records` points
 * into the mapping and is valid only until the callback returns. Returns 0 to go on; any other
 * value stops the stream and becomes ds_stream's result. */
typedef int (*ds_consume_fn)(void *arg, uint64_t first, const void *records, uint64_t n);

/* Feeds every record of r to `consume`, in order, each exactly once, in windows of consecutive
 * records, and keeps this process's resident memory for the mapping within `budget_bytes`:
 * while records are consumed, VmRSS never grows by more than budget_bytes over its value at the
 * call, however large the file. So windows must be small and their pages released once consumed
 * (DS_ADV_DONTNEED). Leave room for the kernel: fault-around and large folios may map up to
 * 2 MiB beyond what is touched (windows of at most budget_bytes / 2 are safe).
 * Returns 0;
 *   -EINVAL: r or consume is NULL or budget_bytes < max(4 MiB, 4 * record_size);
 *   an error of ds_advise;
 *   or the callback's non-zero value (the stream stops there). */
int ds_stream(ds_reader_t *r, size_t budget_bytes, ds_consume_fn consume, void *arg);

#endif
