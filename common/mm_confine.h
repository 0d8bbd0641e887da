/* Confinement of code under test, installed by the harness in the process that runs it, before
 * its first instruction (a Check test's child; a benchmark at mm_bench_open), when the grader
 * asks for it (MLMEM_CONFINE=1):
 *   - Landlock: files may be written, created, renamed or removed only beneath one folder (the
 *     run's own), /dev/null and the GPU's device files (/dev/nvidia*); everything else,
 *     /proc/self/mem included, is read-only;
 *   - seccomp (libseccomp): no ptrace or process_vm_*, no signals to other processes, no
 *     executable mappings (mmap/mprotect with PROT_EXEC), no exec, no personality changes.
 * Both are inherited by every thread and child the code starts, and cannot be lifted. */
#ifndef MM_CONFINE_H
#define MM_CONFINE_H
#include "mm_attr.h"
#include <stddef.h>

/* Reads MLMEM_CONFINE (and removes it); call once at start-up. Returns 1 if the grader asked. */
int mm_confine_wanted(void);

/* Confines this process (see above) with `writable` the one writable folder. Returns 0 when all
 * is in place; 1 when Landlock is missing from the kernel (seccomp alone: `why` says so); -errno
 * when seccomp could not be installed (nothing is confined: the caller must not go on). */
MM_MUST_CHECK int mm_confine(const char *writable, char *why, size_t cap);

/* mm_confine with `seccomp` in place of its filter: it installs one and returns 0 or -errno (the
 * student program's allowlist, common/student/mm_student_confine.c). The CUDA device, in a lab
 * with CUDA code, is started first, as mm_confine does. Same returns as mm_confine. */
MM_MUST_CHECK int mm_confine_with(const char *writable, int (*seccomp)(void), char *why,
                                  size_t cap);

/* Landlock alone: writes beneath `writable`, to /dev/null and to the GPU's device files only.
 * Returns 0, 1 (no Landlock in this kernel: nothing done), or -errno. */
MM_MUST_CHECK int mm_landlock(const char *writable);

#endif
