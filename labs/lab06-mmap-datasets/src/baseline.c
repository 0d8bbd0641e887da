/* Lab 06: the test pattern, a plain dataset writer and the pread loader the benchmark races your
 * reader against (see baseline.h). Not yours to edit: the grader builds its own copy. */
#include "baseline.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dsfile.h"

static uint64_t record_hash(uint64_t seed, uint64_t i)
{
    uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint8_t ds_base_pattern(uint64_t seed, uint64_t i, uint64_t k)
{
    return (uint8_t)((record_hash(seed, i) >> (k % 8 * 8)) ^ (k / 8));
}

void ds_base_pattern_fill(void *arg, uint64_t i, void *rec, uint64_t record_size)
{
    uint64_t h = record_hash(*(const uint64_t *)arg, i);
    uint8_t *p = rec;
    for (uint64_t k = 0; k < record_size; k++)
        p[k] = (uint8_t)((h >> (k % 8 * 8)) ^ (k / 8));
}

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? -errno : -EIO;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

static uint64_t fnv1a(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* The header block: the 64-byte header, zero-padded to DS_DATA_ALIGN. */
static void header_block(unsigned char *block, uint64_t record_size, uint64_t count)
{
    ds_header_t h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, DS_MAGIC, sizeof h.magic);
    h.version = DS_VERSION;
    h.header_size = DS_HEADER_SIZE;
    h.record_size = record_size;
    h.count = count;
    h.data_offset = DS_DATA_ALIGN;
    h.checksum = fnv1a(&h, DS_CHECKED_BYTES);
    memset(block, 0, DS_DATA_ALIGN);
    memcpy(block, &h, sizeof h);
}

/* Writes the records in chunks of about 1 MiB (at least one record). */
static int write_records(int fd, uint64_t record_size, uint64_t count, ds_base_fill_fn fill,
                         void *arg)
{
    uint64_t per = record_size >= (1u << 20) ? 1 : (1u << 20) / record_size;
    unsigned char *buf = malloc(per * record_size);
    if (!buf)
        return -ENOMEM;
    int rc = 0;
    for (uint64_t i = 0; i < count && rc == 0; i += per) {
        uint64_t m = count - i < per ? count - i : per;
        for (uint64_t k = 0; k < m; k++)
            fill(arg, i + k, buf + k * record_size, record_size);
        rc = write_all(fd, buf, m * record_size);
    }
    free(buf);
    return rc;
}

int ds_base_write(const char *path, uint64_t record_size, uint64_t count, ds_base_fill_fn fill,
                  void *arg)
{
    if (!path)
        return -EINVAL;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    int rc = ds_base_write_fd(fd, record_size, count, fill, arg);
    if (close(fd) != 0 && rc == 0)
        rc = -errno;
    return rc;
}

int ds_base_write_fd(int fd, uint64_t record_size, uint64_t count, ds_base_fill_fn fill,
                     void *arg)
{
    if (fd < 0 || !fill || record_size == 0 || count == 0)
        return -EINVAL;
    unsigned char *block = malloc(DS_DATA_ALIGN);
    int rc = block ? 0 : -ENOMEM;
    if (rc == 0) {
        header_block(block, record_size, count);
        rc = write_all(fd, block, DS_DATA_ALIGN);
    }
    if (rc == 0)
        rc = write_records(fd, record_size, count, fill, arg);
    free(block);
    return rc;
}

int ds_base_pread_batch(int fd, uint64_t data_offset, uint64_t record_size, const uint64_t *idx,
                        size_t n, void *dst)
{
    unsigned char *out = dst;
    for (size_t k = 0; k < n; k++) {
        ssize_t got = pread(fd, out + k * record_size, record_size,
                            (off_t)(data_offset + idx[k] * record_size));
        if (got != (ssize_t)record_size)
            return got < 0 ? -errno : -EIO;
    }
    return 0;
}

long long ds_base_rss(void)
{
    return ds_base_rss_of(0, 0);
}

long long ds_base_rss_of(int pid, int peak)
{
    char path[64], line[256];
    if (pid > 0)
        snprintf(path, sizeof path, "/proc/%d/status", pid);
    else
        snprintf(path, sizeof path, "/proc/self/status");
    FILE *f = fopen(path, "r");
    const char *field = peak ? "VmHWM:" : "VmRSS:";
    long long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, field, 6) == 0)
            kib = atoll(line + 6);
    if (f)
        fclose(f);
    return kib < 0 ? -1 : kib * 1024;
}
