/* A stand-in for the CUDA driver (libcuda.so.1) with the calls lab 12's benchmark makes
 * (labs/lab12-gpu-memory/bench/gpu_driver.h), for testing its GPU half without a GPU: device
 * memory is host memory, a launch runs the named kernel's contract on the host, and time is a
 * virtual clock that a copy advances by 1 ms and a kernel by MOCK_KERNEL_MS (2 by default).
 * MOCK_WRONG names a kernel whose launches leave their last output element unwritten;
 * MOCK_NOISY one after whose launches every other copy takes 2 ms; MOCK_FAULT one whose launch
 * fails as a kernel's illegal address does. Built by
 * grader/tests/test_lab12_kemu.py. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef uintptr_t CUdeviceptr;
enum { OK = 0, BAD = 1, NOT_FOUND = 500, ILLEGAL_ADDRESS = 700 };

static const char *const kernels[] = {"gm_transpose", "gm_row_sum", "gm_gather"};
static double now_ms, kernel_ms = 2.0;
static unsigned copies;
static const char *last; /* the kernel launched last */

/* Whether the environment variable `var` names kernel k. */
static int named(const char *var, const char *k)
{
    const char *v = getenv(var);
    return k && v && strcmp(v, k) == 0;
}

CUresult cuGetErrorName(CUresult e, const char **name)
{
    *name = e == NOT_FOUND         ? "CUDA_ERROR_NOT_FOUND"
            : e == ILLEGAL_ADDRESS ? "CUDA_ERROR_ILLEGAL_ADDRESS"
                                   : "CUDA_ERROR_INVALID_VALUE";
    return OK;
}

CUresult cuInit(unsigned flags)
{
    const char *k = getenv("MOCK_KERNEL_MS");
    if (k)
        kernel_ms = atof(k);
    return flags ? BAD : OK;
}

CUresult cuDeviceGet(int *d, int i) { *d = i; return OK; }
CUresult cuDeviceGetName(char *s, int n, int d) { (void)d; strncpy(s, "mock GPU", (size_t)n); return OK; }
CUresult cuDeviceGetAttribute(int *v, int a, int d) { (void)d; *v = a == 16 ? 132 : 0; return OK; }
CUresult cuDevicePrimaryCtxRetain(void **c, int d) { (void)d; *c = &now_ms; return OK; }
CUresult cuCtxSetCurrent(void *c) { return c ? OK : BAD; }
CUresult cuModuleLoadData(void **m, const void *image) { *m = (void *)image; return image ? OK : BAD; }

CUresult cuModuleGetFunction(const char **f, void *m, const char *name)
{
    (void)m;
    for (int k = 0; k < 3; k++)
        if (strcmp(name, kernels[k]) == 0) {
            *f = kernels[k];
            return OK;
        }
    return NOT_FOUND;
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) { *p = (CUdeviceptr)malloc(n); return *p ? OK : 2; }
CUresult cuMemFree_v2(CUdeviceptr p) { free((void *)p); return OK; }
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n) { memcpy((void *)d, s, n); return OK; }
CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n) { memcpy(d, (void *)s, n); return OK; }
CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n) { memset((void *)d, v, n); return OK; }

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, void *st)
{
    (void)st;
    memcpy((void *)d, (void *)s, n);
    now_ms += named("MOCK_NOISY", last) && copies++ % 2 ? 2.0 : 1.0;
    return OK;
}

CUresult cuEventCreate(double **e, unsigned flags) { (void)flags; *e = calloc(1, sizeof **e); return OK; }
CUresult cuEventRecord(double *e, void *s) { (void)s; *e = now_ms; return OK; }
CUresult cuEventSynchronize(double *e) { (void)e; return OK; }
CUresult cuEventElapsedTime_v2(float *ms, double *a, double *b) { *ms = (float)(*b - *a); return OK; }

/* The kernels' contracts (labs/lab12-gpu-memory/include/gpu_memory.h) on the host; returns the
 * number of output elements written. */
static size_t run(const char *k, unsigned gx, unsigned gz, void **p)
{
    const float *in = *(float **)p[0];
    if (k == kernels[0]) {
        float *out = *(float **)p[1];
        int r = *(int *)p[2], c = *(int *)p[3];
        for (size_t b = 0; b < gz; b++)
            for (size_t i = 0; i < (size_t)r; i++)
                for (size_t j = 0; j < (size_t)c; j++)
                    out[(b * c + j) * r + i] = in[(b * r + i) * c + j];
        return (size_t)gz * r * c;
    }
    if (k == kernels[1]) {
        float *out = *(float **)p[1];
        int c = *(int *)p[2];
        for (size_t i = 0; i < gx; i++) {
            float s = 0;
            for (size_t j = 0; j < (size_t)c; j++)
                s += in[i * c + j];
            out[i] = s;
        }
        return gx;
    }
    const int *ids = *(int **)p[1];
    float *out = *(float **)p[2];
    int n = *(int *)p[3], d = *(int *)p[4];
    for (size_t i = 0; i < (size_t)n; i++)
        memcpy(out + i * d, in + (size_t)ids[i] * d, (size_t)d * sizeof(float));
    return (size_t)n * d;
}

CUresult cuLaunchKernel(const char *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shared, void *s, void **params,
                        void **extra)
{
    (void)gy, (void)bx, (void)by, (void)bz, (void)shared, (void)s, (void)extra;
    if (named("MOCK_FAULT", f))
        return ILLEGAL_ADDRESS;
    size_t written = run(f, gx, gz, params);
    if (named("MOCK_WRONG", f)) {
        float *out = *(float **)params[f == kernels[2] ? 2 : 1];
        memset(&out[written - 1], 0xff, sizeof(float));
    }
    now_ms += kernel_ms;
    last = f;
    return OK;
}
