/* The emulator's memory (see mm_cuda_api.h): device memory, page-locked host blocks and
 * registered ranges in one table. A device allocation is two mappings: the address range the
 * program gets, reserved with no access (a host dereference faults, as on a GPU), and the
 * readable and writable one holding the bytes, its "view", that copies and kernels use. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "mm_cudaemu_int.h"

#define HOST_ALLOC_FLAGS                                                                      \
    ((unsigned)(cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined))
#define HOST_REGISTER_FLAGS                                                                   \
    ((unsigned)(cudaHostRegisterPortable | cudaHostRegisterMapped | cudaHostRegisterIoMemory | \
                cudaHostRegisterReadOnly))

static size_t page_size(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    return pg > 0 ? (size_t)pg : 4096;
}

/* n rounded up to a multiple of unit; 0 if that overflows. */
static size_t round_up(size_t n, size_t unit)
{
    size_t r = (n + unit - 1) / unit * unit;
    return r < n ? 0 : r;
}

static int kind_matches(emu_kind_t have, emu_kind_t want)
{
    return have == want || (want == EMU_PINNED && have == EMU_REGISTERED);
}

static int overlaps(const emu_alloc_t *a, const void *p, size_t n)
{
    uintptr_t x = (uintptr_t)p, b = (uintptr_t)a->base;
    return x < b + a->size && b < x + n;
}

emu_alloc_t *emu_find(const void *p, size_t n, emu_kind_t kind)
{
    uintptr_t x = (uintptr_t)p;
    for (emu_alloc_t *a = emu.allocs; a; a = a->next) {
        uintptr_t b = (uintptr_t)a->base;
        if (kind_matches(a->kind, kind) && x >= b && n <= a->size && x - b <= a->size - n)
            return a;
    }
    return NULL;
}

/* Whether any part of [p, p + n) lies in an allocation of `kind`. */
static int touches(const void *p, size_t n, emu_kind_t kind)
{
    for (const emu_alloc_t *a = emu.allocs; a; a = a->next)
        if (kind_matches(a->kind, kind) && overlaps(a, p, n))
            return 1;
    return 0;
}

int emu_touches_device(const void *p, size_t n)
{
    return touches(p, n, EMU_DEVICE);
}

/* Adds a table entry for [base, base + size); NULL if out of memory. */
static emu_alloc_t *add(emu_kind_t kind, char *base, size_t size, unsigned flags)
{
    emu_alloc_t *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    *a = (emu_alloc_t){ .next = emu.allocs, .kind = kind, .base = base, .view = base,
                        .size = size, .flags = flags };
    emu.allocs = a;
    return a;
}

/* Removes and returns the entry of `kind` that starts exactly at base; NULL if none. */
static emu_alloc_t *take(const void *base, emu_kind_t kind)
{
    for (emu_alloc_t **p = &emu.allocs; *p; p = &(*p)->next)
        if ((*p)->kind == kind && (*p)->base == base) {
            emu_alloc_t *a = *p;
            *p = a->next;
            return a;
        }
    return NULL;
}

/* Maps `len` bytes twice: *user reserved with no access, *view readable and writable (not
 * shared: the user range never gets access). 0 or -1. */
static int map_twice(size_t len, char **user, char **view)
{
    void *v = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (v == MAP_FAILED)
        return -1;
    void *u = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (u == MAP_FAILED) {
        munmap(v, len);
        return -1;
    }
    *user = u;
    *view = v;
    return 0;
}

/* Unmaps the oldest quarantined range. */
static void release_oldest(void)
{
    unsigned i = emu.quarantine_head;
    munmap(emu.quarantine[i], emu.quarantine_len[i]);
    emu.quarantine_bytes -= emu.quarantine_len[i];
    emu.quarantine_head = (i + 1) % EMU_QUARANTINE;
    emu.quarantine_count--;
}

/* Keeps a freed device range reserved (no access) for a while, so that its addresses are not
 * handed out again at once: a stale pointer then faults and is refused. The latest
 * EMU_QUARANTINE ranges stay, within EMU_QUARANTINE_BYTES of address space. */
static void quarantine(char *user, size_t len)
{
    if (len > EMU_QUARANTINE_BYTES) {
        munmap(user, len);
        return;
    }
    while (emu.quarantine_count == EMU_QUARANTINE ||
           emu.quarantine_bytes + len > EMU_QUARANTINE_BYTES)
        release_oldest();
    unsigned i = (emu.quarantine_head + emu.quarantine_count++) % EMU_QUARANTINE;
    emu.quarantine[i] = user;
    emu.quarantine_len[i] = len;
    emu.quarantine_bytes += len;
}

/* cudaMalloc's work for size > 0 (lock held; released while mapping and poisoning). */
static cudaError_t device_alloc(size_t size, void **out)
{
    size_t units = round_up(size, EMU_GRANULE), cap = emu.cfg.device_bytes;
    size_t len = round_up(size, page_size());
    if (units == 0 || len == 0 || emu.device_used > cap || units > cap - emu.device_used)
        return cudaErrorMemoryAllocation;
    emu.device_used += units; /* reserved while unlocked */
    char *user = NULL, *view = NULL;
    emu_unlock();
    int rc = map_twice(len, &user, &view);
    if (rc == 0)
        memset(view, MM_EMU_POISON_FRESH, len);
    emu_lock();
    emu_alloc_t *a = rc == 0 ? add(EMU_DEVICE, user, size, 0) : NULL;
    if (!a) {
        emu.device_used -= units;
        if (rc == 0)
            munmap(view, len), munmap(user, len);
        return cudaErrorMemoryAllocation;
    }
    a->view = view;
    a->mapped = len;
    *out = user;
    return cudaSuccess;
}

cudaError_t cudaMalloc(void **ptr, size_t size)
{
    cudaError_t e = emu_begin();
    if (e == cudaSuccess && !ptr)
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess && size == 0)
        *ptr = NULL;
    else if (e == cudaSuccess)
        e = device_alloc(size, ptr);
    return emu_end(e);
}

/* Frees a device allocation (lock held). */
static void device_release(emu_alloc_t *a)
{
    emu.device_used -= round_up(a->size, EMU_GRANULE);
    munmap(a->view, a->mapped);
    quarantine(a->base, a->mapped);
    free(a);
}

cudaError_t cudaFree(void *ptr)
{
    cudaError_t e = emu_begin();
    if (e == cudaSuccess && ptr)
        e = emu_sync_all();
    emu_alloc_t *a = e == cudaSuccess && ptr ? take(ptr, EMU_DEVICE) : NULL;
    if (e == cudaSuccess && ptr && !a)
        e = cudaErrorInvalidValue;
    if (a)
        device_release(a);
    return emu_end(e);
}

cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags)
{
    cudaError_t e = emu_begin();
    void *p = NULL;
    if (e == cudaSuccess && (!ptr || (flags & ~HOST_ALLOC_FLAGS)))
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess && size > 0 && posix_memalign(&p, page_size(), size) != 0)
        e = cudaErrorMemoryAllocation;
    if (e == cudaSuccess && p && !add(EMU_PINNED, p, size, flags)) {
        free(p);
        e = cudaErrorMemoryAllocation;
    }
    if (e == cudaSuccess)
        *ptr = p;
    return emu_end(e);
}

cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    return cudaHostAlloc(ptr, size, cudaHostAllocDefault);
}

cudaError_t cudaFreeHost(void *ptr)
{
    cudaError_t e = emu_begin();
    if (e == cudaSuccess && ptr)
        e = emu_sync_all();
    emu_alloc_t *a = e == cudaSuccess && ptr ? take(ptr, EMU_PINNED) : NULL;
    if (e == cudaSuccess && ptr && !a)
        e = cudaErrorInvalidValue;
    if (a) {
        memset(a->base, MM_EMU_POISON_FREED, a->size);
        free(a->base);
        free(a);
    }
    return emu_end(e);
}

cudaError_t cudaHostGetFlags(unsigned int *flags, void *ptr)
{
    cudaError_t e = emu_begin();
    emu_alloc_t *a = e == cudaSuccess && ptr ? emu_find(ptr, 1, EMU_PINNED) : NULL;
    if (e == cudaSuccess && (!flags || !a || a->kind != EMU_PINNED))
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess)
        *flags = a->flags;
    return emu_end(e);
}

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    cudaError_t e = emu_begin();
    if (e == cudaSuccess && (!ptr || size == 0 || size > UINTPTR_MAX - (uintptr_t)ptr ||
                             (flags & ~HOST_REGISTER_FLAGS) || emu_touches_device(ptr, size)))
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess && touches(ptr, size, EMU_PINNED))
        e = cudaErrorHostMemoryAlreadyRegistered;
    if (e == cudaSuccess && !add(EMU_REGISTERED, ptr, size, flags))
        e = cudaErrorMemoryAllocation;
    return emu_end(e);
}

cudaError_t cudaHostUnregister(void *ptr)
{
    cudaError_t e = emu_begin();
    emu_alloc_t *a = e == cudaSuccess ? take(ptr, EMU_REGISTERED) : NULL;
    if (e == cudaSuccess && !a)
        e = cudaErrorHostMemoryNotRegistered;
    free(a);
    return emu_end(e);
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attr, const void *ptr)
{
    cudaError_t e = emu_begin();
    if (e == cudaSuccess && !attr)
        e = cudaErrorInvalidValue;
    if (e != cudaSuccess)
        return emu_end(e);
    memset(attr, 0, sizeof *attr);
    if (ptr && emu_find(ptr, 1, EMU_DEVICE)) {
        attr->type = cudaMemoryTypeDevice;
        attr->devicePointer = (void *)ptr;
    } else if (ptr && emu_find(ptr, 1, EMU_PINNED)) {
        attr->type = cudaMemoryTypeHost;
        attr->devicePointer = attr->hostPointer = (void *)ptr;
    } else {
        attr->type = cudaMemoryTypeUnregistered;
        attr->device = -2;
        attr->hostPointer = (void *)ptr;
    }
    return emu_end(e);
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    cudaError_t e = emu_begin();
    if (e == cudaSuccess && (!free_bytes || !total_bytes))
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess) {
        *total_bytes = emu.cfg.device_bytes;
        *free_bytes = emu.device_used < *total_bytes ? *total_bytes - emu.device_used : 0;
    }
    return emu_end(e);
}

void emu_mem_teardown(void)
{
    while (emu.allocs) {
        emu_alloc_t *a = emu.allocs;
        emu.allocs = a->next;
        if (a->kind == EMU_DEVICE)
            munmap(a->view, a->mapped), munmap(a->base, a->mapped);
        else if (a->kind == EMU_PINNED)
            free(a->base);
        free(a);
    }
    while (emu.quarantine_count > 0)
        release_oldest();
}
