/* Lab 06: code the tests and the benchmark rely on, so that a bug in one of your parts does not
 * fail the tests of another (src/baseline.c; do not edit: the grader uses its own copy). */
#ifndef DS_BASELINE_H
#define DS_BASELINE_H
#include <stddef.h>
#include <stdint.h>

/* Fills record i (record_size bytes at rec) with the test pattern of record i. */
typedef void (*ds_base_fill_fn)(void *arg, uint64_t i, void *rec, uint64_t record_size);

/* The pattern ds_base_pattern_fill writes: byte k of record i is ds_base_pattern(seed, i, k). */
uint8_t ds_base_pattern(uint64_t seed, uint64_t i, uint64_t k);
/* A ds_base_fill_fn; arg points to a uint64_t seed. */
void ds_base_pattern_fill(void *arg, uint64_t i, void *rec, uint64_t record_size);

/* Writes a valid dataset straight to `path` (no temporary file): the header dsfile.h describes,
 * then `count` records made by fill, written 1 MiB at a time. Returns 0 or a negative errno. */
int ds_base_write(const char *path, uint64_t record_size, uint64_t count, ds_base_fill_fn fill,
                  void *arg);
/* The same, to the open, empty file fd from its current offset (the caller closes fd). */
int ds_base_write_fd(int fd, uint64_t record_size, uint64_t count, ds_base_fill_fn fill,
                     void *arg);

/* The pread loader the benchmark races your mmap reader against: record idx[k] of the file fd
 * (records of record_size bytes from data_offset) to dst + k * record_size, one pread each.
 * Returns 0, or -EIO / -errno when a read fails or comes up short. */
int ds_base_pread_batch(int fd, uint64_t data_offset, uint64_t record_size, const uint64_t *idx,
                        size_t n, void *dst);

/* This process's resident memory (VmRSS of /proc/self/status) in bytes, or -1 if unreadable. */
long long ds_base_rss(void);
/* The same of process `pid` (0: this one): VmRSS, or its peak VmHWM when `peak` is non-zero.
 * The tests and the benchmark read your process's this way, from outside it. */
long long ds_base_rss_of(int pid, int peak);

#endif
