/* Lab 06, part E: the loader mmap is compared with. It reads each record with pread(2) into a
 * batch buffer the caller owns: one system call and one copy (page cache -> buffer) per record,
 * the way a loader built on read() works. */
#ifndef DS_LOADER_H
#define DS_LOADER_H
#include <stddef.h>
#include <stdint.h>
#include "dsfile.h"

typedef struct ds_loader ds_loader_t;

/* Opens and validates the dataset at `path` (ds_validate: same checks and errors as ds_open)
 * and keeps the descriptor; maps nothing. Close with ds_loader_close. Returns 0 and sets *out;
 *   -EINVAL: NULL arguments;
 *   -ENOMEM: out of memory;
 *   a negative errno from dsfile.h's table.
 * On failure nothing is leaked and *out is untouched. */
int ds_loader_open(ds_loader_t **out, const char *path);

/* The validated header; NULL for NULL. */
const ds_header_t *ds_loader_header(const ds_loader_t *l);

/* Copies record idx[k] to dst + k * record_size for k in [0, n), with pread (looping over short
 * reads and EINTR). n == 0 reads nothing. Returns 0;
 *   -EINVAL: l is NULL, or idx or dst is NULL with n > 0;
 *   -ERANGE: some idx[k] >= count (checked before anything is read);
 *   -EIO:    the file ends before a record does (it was truncated after opening);
 *   -errno of pread. */
int ds_loader_batch(ds_loader_t *l, const uint64_t *idx, size_t n, void *dst);

/* Closes the descriptor and frees; NULL is ignored. */
void ds_loader_close(ds_loader_t *l);

#endif
