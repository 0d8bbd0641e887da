/* Copies within this process between addresses that may not be mapped, without faulting: the
 * kernel does the copy and answers EFAULT for a bad address. The student program serves the
 * harness's mm_peek / mm_poke with it (common/student/mm_serve.c). */
#ifndef MM_COPY_H
#define MM_COPY_H
#include <stddef.h>

/* Prepares the way mm_copy_checked will copy: process_vm_readv on this process where the kernel
 * (or a CPU emulator: qemu-user has no process_vm_*) offers it, else a pipe, made here. Call it
 * before confinement (a sandbox may refuse pipe2 later). 0, or -errno if neither way is there. */
int mm_copy_prepare(void);

/* Copies n bytes from src to dst. 0, or -EFAULT when either range is not all mapped (readable
 * at src, writable at dst), or another -errno. dst may be partly written then. */
int mm_copy_checked(void *dst, const void *src, size_t n);

/* The fallback alone, for tests: makes the pipe (0 or -errno), and copies through it as
 * mm_copy_checked does where process_vm_* is missing (-EBADF before the pipe is made). */
int mm_copy_prepare_pipe(void);
int mm_copy_by_pipe(void *dst, const void *src, size_t n);

#endif
