/* Confinement of the student's process (common/student/), installed by the server itself
 * before its first student call:
 *   - in a lab with CUDA code, the CUDA device started first (its driver writes files that
 *     Landlock would refuse: common/mm_confine.c);
 *   - Landlock: writes only beneath its working folder (the run's own), /dev/null and the GPU's
 *     device files (common/mm_confine.c's rules);
 *   - seccomp (libseccomp) as an allowlist: the system calls the labs' code needs, each named
 *     (mm_student_confine.c); every other call fails with EPERM without being named. Threads
 *     only (no fork, no clone3), no exec, signals only to itself, no executable mappings where
 *     there is no GPU driver, fcntl without F_SETOWN/F_SETSIG, no SysV IPC, no io_uring, no
 *     namespaces, no ptrace, process_vm_* only on itself. */
#ifndef MM_STUDENT_CONFINE_H
#define MM_STUDENT_CONFINE_H
#include <stddef.h>

/* Confines this process (see above). Returns 0; 1 when the kernel has no Landlock (seccomp
 * alone; `why` says so); -errno when seccomp could not be installed (`why` says why). */
int mm_student_confine(char *why, size_t cap);

#endif
