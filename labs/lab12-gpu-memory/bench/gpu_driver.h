/* Lab 12 benchmark: the CUDA driver API calls its GPU half makes, loaded with dlopen from the
 * driver's library (libcuda.so.1), so that the benchmark builds and runs without the toolkit and
 * without a GPU (it then says why it cannot time). Where the toolkit's <cuda.h> is on the include
 * path, the types are its own and every call below is checked against its declaration. */
#ifndef GPU_DRIVER_H
#define GPU_DRIVER_H
#include <stddef.h>

#if defined(__has_include)
#if __has_include(<cuda.h>)
#include <cuda.h>
#define GD_HAVE_CUDA_H 1
#endif
#endif
#ifndef GD_HAVE_CUDA_H
typedef int CUresult;
typedef int CUdevice;
typedef int CUdevice_attribute;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUevent_st *CUevent;
typedef struct CUstream_st *CUstream;
#define CUDA_SUCCESS 0
#define CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT 16
#endif

/* X(name, parameters): each call, by the name the driver exports (the versioned ones where the
 * toolkit's headers map the plain name to a _v2). */
#define GD_CALLS(X)                                                                         \
    X(cuGetErrorName, (CUresult e, const char **name))                                      \
    X(cuInit, (unsigned flags))                                                             \
    X(cuDeviceGet, (CUdevice * d, int ordinal))                                             \
    X(cuDeviceGetName, (char *name, int len, CUdevice d))                                   \
    X(cuDeviceGetAttribute, (int *v, CUdevice_attribute a, CUdevice d))                     \
    X(cuDevicePrimaryCtxRetain, (CUcontext * c, CUdevice d))                                \
    X(cuCtxSetCurrent, (CUcontext c))                                                       \
    X(cuModuleLoadData, (CUmodule * m, const void *image))                                  \
    X(cuModuleGetFunction, (CUfunction * f, CUmodule m, const char *name))                  \
    X(cuMemAlloc_v2, (CUdeviceptr * p, size_t n))                                           \
    X(cuMemFree_v2, (CUdeviceptr p))                                                        \
    X(cuMemcpyHtoD_v2, (CUdeviceptr d, const void *s, size_t n))                            \
    X(cuMemcpyDtoH_v2, (void *d, CUdeviceptr s, size_t n))                                  \
    X(cuMemcpyDtoDAsync_v2, (CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st))          \
    X(cuMemsetD8_v2, (CUdeviceptr d, unsigned char v, size_t n))                            \
    X(cuEventCreate, (CUevent * e, unsigned flags))                                         \
    X(cuEventRecord, (CUevent e, CUstream s))                                               \
    X(cuEventSynchronize, (CUevent e))                                                      \
    X(cuEventElapsedTime_v2, (float *ms, CUevent from, CUevent to))                         \
    X(cuLaunchKernel, (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,    \
                       unsigned by, unsigned bz, unsigned shared, CUstream s, void **params, \
                       void **extra))

/* The loaded calls. */
typedef struct {
#define GD_FIELD_(name, params) CUresult(*name) params;
    GD_CALLS(GD_FIELD_)
#undef GD_FIELD_
} gd_api_t;

/* Loads every call of GD_CALLS into *api. Returns 0, or -ENODEV with why[0..n) saying what is
 * missing (no driver library, a driver without one of the calls). */
int gd_load(gd_api_t *api, char *why, size_t n);

/* The driver's name for error e ("CUDA_ERROR_ILLEGAL_ADDRESS"), or its number, in buf. */
const char *gd_error(const gd_api_t *api, CUresult e, char *buf, size_t n);

#endif
