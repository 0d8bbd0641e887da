/* Lab 05, the student's process: questions for the CUDA runtime that runs there (the tests'
 * probes of host memory, the emulated device's race report) and the benchmark's device sync.
 * Public lab code, not the student's: what it returns is checked by the harness against bytes it
 * wrote itself, only decides a skip, or only adds to a message or to a test worth no points
 * (lab05_serve.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu.h"
#include "lab05_serve.h"
#ifdef MM_HAVE_CUDA
#include <cuda_runtime_api.h>
#include "mm_emu.h"
#endif

/* Workload "gpu_state" (lab05_serve.h). */
int serve_gpu_state(const void *in, size_t in_len, void *out, size_t out_len)
{
    (void)in, (void)in_len;
    gpu_state_t s;
    if (out_len != sizeof s)
        return -EINVAL;
    memset(&s, 0, sizeof s);
    s.usable = pt_gpu_usable(s.why, sizeof s.why);
    if (s.usable)
        s.emulated = pt_gpu_backend(NULL, 0);
    memcpy(out, &s, sizeof s);
    return 0;
}

#ifdef MM_HAVE_CUDA
/* Fills n bytes at host address p with the pattern `seed`, copies them to a fresh device buffer
 * and from there to back. */
static cudaError_t round_trip(void *p, size_t n, uint64_t seed, void *back)
{
    unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        b[i] = probe_byte(seed, i);
    void *dev = NULL;
    cudaError_t e = cudaMalloc(&dev, n);
    if (e == cudaSuccess)
        e = cudaMemcpy(dev, p, n, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy(back, dev, n, cudaMemcpyDeviceToHost);
    cudaFree(dev);
    (void)cudaGetLastError();
    return e;
}
#endif

/* Workload "host_probe" (lab05_serve.h). */
int serve_host_probe(const void *in, size_t in_len, void *out, size_t out_len)
{
    host_probe_in_t q;
    host_probe_out_t r = { -1, -1, 0, 0 };
    if (in_len != sizeof q || out_len != sizeof r)
        return -EINVAL;
    memcpy(&q, in, sizeof q);
#ifdef MM_HAVE_CUDA
    void *p = (void *)(uintptr_t)q.addr;
    struct cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) == cudaSuccess)
        r.pinned = a.type == cudaMemoryTypeHost;
    unsigned flags = 0;
    r.flags_rc = (int32_t)cudaHostGetFlags(&flags, p);
    r.flags = flags;
    (void)cudaGetLastError();
    if (q.back)
        r.copy_rc = (int32_t)round_trip(p, (size_t)q.bytes, q.seed, (void *)(uintptr_t)q.back);
#endif
    memcpy(out, &r, sizeof r);
    return 0;
}

/* Workload "pinned_alloc" (lab05_serve.h). */
int serve_pinned_alloc(const void *in, size_t in_len, void *out, size_t out_len)
{
    pinned_alloc_in_t q;
    uint64_t addr = 0;
    if (in_len != sizeof q || out_len != sizeof addr)
        return -EINVAL;
    memcpy(&q, in, sizeof q);
    int rc = -ENODEV;
#ifdef MM_HAVE_CUDA
    void *p = NULL;
    rc = (int)cudaHostAlloc(&p, (size_t)q.bytes, cudaHostAllocDefault);
    if (rc == 0)
        memset(p, (int)q.fill, (size_t)q.bytes);
    addr = (uintptr_t)p;
#endif
    memcpy(out, &addr, sizeof addr);
    return rc;
}

/* Workload "pinned_free" (lab05_serve.h). */
int serve_pinned_free(const void *in, size_t in_len, void *out, size_t out_len)
{
    uint64_t addr;
    (void)out, (void)out_len;
    if (in_len != sizeof addr)
        return -EINVAL;
    memcpy(&addr, in, sizeof addr);
#ifdef MM_HAVE_CUDA
    return (int)cudaFreeHost((void *)(uintptr_t)addr);
#else
    return -ENODEV;
#endif
}

/* Workload "race_report" (lab05_serve.h). */
int serve_race_report(const void *in, size_t in_len, void *out, size_t out_len)
{
    (void)in, (void)in_len;
    if (out_len != RACE_REPORT_MAX)
        return -EINVAL;
    char *buf = out;
    buf[0] = '\0';
#ifdef MM_HAVE_CUDA
    if (mm_cuda_emulated()) {
        unsigned n = mm_emu_race_report(buf, out_len);
        return n > 1000 ? 1000 : (int)n;
    }
#endif
    return 0;
}

/* Workload "cuda_last_error" (lab05_serve.h). */
int serve_cuda_last_error(const void *in, size_t in_len, void *out, size_t out_len)
{
    (void)in, (void)in_len;
    if (out_len != CUDA_ERROR_MAX)
        return -EINVAL;
    char *buf = out;
    buf[0] = '\0';
    int e = pt_cuda_last_error();
#ifdef MM_HAVE_CUDA
    if (e != 0)
        snprintf(buf, out_len, "%s (%s)", cudaGetErrorString((cudaError_t)e),
                 cudaGetErrorName((cudaError_t)e));
#endif
    return e;
}

/* Workload "device_sync" (lab05_serve.h). */
int serve_device_sync(const void *in, size_t in_len, void *out, size_t out_len)
{
    (void)in, (void)in_len, (void)out, (void)out_len;
#ifdef MM_HAVE_CUDA
    if (!pt_gpu_usable(NULL, 0))
        return 0;
    return (int)cudaDeviceSynchronize();
#else
    return 0;
#endif
}
