/* Lab 06, part A: the dataset file format, its validation and its writer.
 * A dataset file is a 64-byte header, zero padding up to data_offset (a multiple of 4096, so
 * record 0 starts on a page), then `count` records of `record_size` bytes each, back to back:
 *
 *   offset  size  field        value
 *        0     8  magic        "MLMEMDS\0"
 *        8     4  version      DS_VERSION (1)
 *       12     4  header_size  DS_HEADER_SIZE (64)
 *       16     8  record_size  bytes per record, >= 1
 *       24     8  count        number of records, >= 1
 *       32     8  data_offset  where record 0 starts: a multiple of DS_DATA_ALIGN, >= 4096
 *       40     8  checksum     ds_checksum() of bytes 0..39
 *       48    16  reserved     zero
 *
 * All integers are little-endian (the struct below is the on-disk layout on x86-64 and arm64).
 * The file's size is exactly data_offset + count * record_size.
 *
 * Errors, one per kind of bad file (every function of this lab that opens a dataset uses them):
 *   -ENOENT / -EACCES   from open(): no such file / no permission
 *   -EISDIR             the path is a directory (-ENODEV: another non-regular file, e.g. a FIFO)
 *   -ENODATA            empty: the file has 0 bytes, or its header says count == 0
 *   -EBADMSG            truncated: shorter than the header, or than the size the header implies
 *   -EMSGSIZE           size mismatch: longer than the size the header implies (trailing bytes)
 *   -EPROTO             not a dataset or a corrupt header: wrong magic, checksum mismatch,
 *                       header_size != 64, record_size == 0, bad data_offset, reserved bytes not
 *                       zero, or data_offset + count * record_size overflows 64 bits
 *   -EPROTONOSUPPORT    right magic, unknown version
 */
#ifndef DS_DSFILE_H
#define DS_DSFILE_H
#include <stddef.h>
#include <stdint.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "lab 06 reads its little-endian header in place: a big-endian port must byte-swap"
#endif

#define DS_MAGIC "MLMEMDS"     /* 7 characters + the NUL: the 8 magic bytes */
#define DS_VERSION 1u
#define DS_HEADER_SIZE 64u
#define DS_DATA_ALIGN 4096u    /* data_offset is a multiple of this; writers use exactly this */
#define DS_CHECKED_BYTES 40u   /* the checksum covers bytes [0, 40) of the header */

typedef struct {
    char magic[8];
    uint32_t version;
    uint32_t header_size;
    uint64_t record_size;
    uint64_t count;
    uint64_t data_offset;
    uint64_t checksum;
    uint8_t reserved[16];
} ds_header_t;

_Static_assert(sizeof(ds_header_t) == DS_HEADER_SIZE, "the header is 64 bytes on disk");

/* 64-bit FNV-1a of p[0..n): h = 0xcbf29ce484222325; for each byte: h = (h ^ byte) *
 * 0x100000001b3. Given (src/format.c). */
uint64_t ds_checksum(const void *p, size_t n);

/* Fills *h with a valid header for `count` records of `record_size` bytes: magic, version,
 * header_size, data_offset = DS_DATA_ALIGN, reserved zero, checksum last. Every byte of *h is
 * written (no uninitialised padding reaches the disk). Arguments are not checked. */
void ds_header_init(ds_header_t *h, uint64_t record_size, uint64_t count);

/* Checks header *h against a file of `file_size` bytes. Never overflows: a header whose size
 * does not fit in 64 bits is -EPROTO. Returns 0 when the header is valid for that size;
 *   -EINVAL:          h is NULL;
 * else the first check that fails, in this order:
 *   -EPROTO:          wrong magic;
 *   -EPROTONOSUPPORT: unknown version;
 *   -EPROTO:          checksum mismatch or a bad field;
 *   -ENODATA:         count == 0;
 *   -EBADMSG:         file_size is shorter than data_offset + count * record_size;
 *   -EMSGSIZE:        file_size is longer. */
int ds_header_check(const ds_header_t *h, uint64_t file_size);

/* Validates the open file `fd` as a dataset: fstat, then reads the header with pread (looping
 * over short reads and EINTR) and checks it with ds_header_check. Does not move the file offset
 * and does not close fd. Returns 0 and fills *out (if out is not NULL);
 *   from fstat:
 *   -EISDIR:  a directory;
 *   -ENODEV:  another non-regular file;
 *   -ENODATA: 0 bytes;
 *   -EBADMSG: fewer than 64 bytes;
 *   otherwise a negative errno from the table above;
 *   -EBADF:   a bad fd. */
int ds_validate(int fd, ds_header_t *out);

/* A writer that builds a dataset without ever leaving a half-written file at `path`: the
 * records go to a temporary file in the same directory, and only ds_writer_commit, once the
 * header is written, renames it onto `path` (rename is atomic: a reader sees the old file or
 * the new one, never a mixture). */
typedef struct ds_writer ds_writer_t;

/* Starts a dataset of records of `record_size` bytes that will appear at `path`. Creates the
 * temporary file (e.g. "<path>.tmp.XXXXXX" with mkstemp) and writes the zero header block.
 * Returns 0 and sets *out;
 *   -EINVAL: out or path is NULL or record_size is 0;
 *   -ENOMEM: out of memory;
 *   the -errno of creating the temporary file (e.g. -ENOENT when the directory does not exist,
 *   -EACCES).
 * On failure nothing is left on disk and *out is untouched. */
int ds_writer_open(ds_writer_t **out, const char *path, uint64_t record_size);

/* Appends `n` records (n * record_size bytes from `records`). Loops over short writes and EINTR.
 * Returns 0;
 *   -EINVAL:    NULL w, or NULL records with n > 0;
 *   -EOVERFLOW: the file's size would overflow 64 bits;
 *   the -errno of write (e.g. -EFBIG, -ENOSPC).
 * After an error the writer is failed: later appends return the same error and commit removes
 * the temporary file. */
int ds_writer_append(ds_writer_t *w, const void *records, uint64_t n);

/* Finishes the dataset: writes the header (ds_header_init with the records appended), closes
 * the file and renames it onto `path` (replacing any file there). Always frees w. Returns 0;
 *   -ENODATA: no record was appended;
 *   the writer's earlier error;
 *   the -errno of write, close or rename.
 * On any failure the temporary file is removed and `path` is left as it was. */
int ds_writer_commit(ds_writer_t *w);

/* Gives up: removes the temporary file and frees w. NULL is ignored. */
void ds_writer_abort(ds_writer_t *w);

#endif
