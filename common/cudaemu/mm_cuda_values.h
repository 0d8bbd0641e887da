/* The CUDA runtime's numbers that the emulator reproduces, as X-macro lists: declared once here,
 * they make the enums of mm_cuda_api.h, the names and messages of cudaGetErrorName and
 * cudaGetErrorString, and the compile-time comparison with the toolkit's own header
 * (mm_cuda_abi_check.c). Types only in mm_cuda_api.h: this file defines nothing by itself. */
#ifndef MM_CUDA_VALUES_H
#define MM_CUDA_VALUES_H

/* X(name, value, message): message as the CUDA 13 runtime's cudaGetErrorString words it. */
#define MM_EMU_ERRORS(X)                                                                      \
    X(cudaSuccess, 0, "no error")                                                             \
    X(cudaErrorInvalidValue, 1, "invalid argument")                                           \
    X(cudaErrorMemoryAllocation, 2, "out of memory")                                          \
    X(cudaErrorInitializationError, 3, "initialization error")                                \
    X(cudaErrorInvalidDevicePointer, 17, "invalid device pointer")                            \
    X(cudaErrorInvalidMemcpyDirection, 21, "invalid copy direction for memcpy")               \
    X(cudaErrorStubLibrary, 34, "CUDA driver is a stub library")                              \
    X(cudaErrorInsufficientDriver, 35,                                                        \
      "CUDA driver version is insufficient for CUDA runtime version")                         \
    X(cudaErrorDevicesUnavailable, 46, "CUDA-capable device(s) is/are busy or unavailable")  \
    X(cudaErrorNoDevice, 100, "no CUDA-capable device is detected")                           \
    X(cudaErrorInvalidDevice, 101, "invalid device ordinal")                                  \
    X(cudaErrorInvalidResourceHandle, 400, "invalid resource handle")                         \
    X(cudaErrorNotReady, 600, "device not ready")                                             \
    X(cudaErrorIllegalAddress, 700, "an illegal memory access was encountered")               \
    X(cudaErrorHostMemoryAlreadyRegistered, 712,                                              \
      "part or all of the requested memory range is already mapped")                          \
    X(cudaErrorHostMemoryNotRegistered, 713,                                                  \
      "pointer does not correspond to a registered memory region")                            \
    X(cudaErrorLaunchFailure, 719, "unspecified launch failure")                              \
    X(cudaErrorNotSupported, 801, "operation not supported")                                  \
    X(cudaErrorSystemNotReady, 802, "system not yet initialized")                             \
    X(cudaErrorSystemDriverMismatch, 803,                                                     \
      "system has unsupported display driver / cuda driver combination")                      \
    X(cudaErrorCompatNotSupportedOnDevice, 804,                                               \
      "forward compatibility was attempted on non supported HW")                              \
    X(cudaErrorUnknown, 999, "unknown error")

/* X(name, value) of enum cudaMemcpyKind. */
#define MM_EMU_MEMCPY_KINDS(X)                                                                \
    X(cudaMemcpyHostToHost, 0)                                                                \
    X(cudaMemcpyHostToDevice, 1)                                                              \
    X(cudaMemcpyDeviceToHost, 2)                                                              \
    X(cudaMemcpyDeviceToDevice, 3)                                                            \
    X(cudaMemcpyDefault, 4)

/* X(name, value) of enum cudaMemoryType. */
#define MM_EMU_MEMORY_TYPES(X)                                                                \
    X(cudaMemoryTypeUnregistered, 0)                                                          \
    X(cudaMemoryTypeHost, 1)                                                                  \
    X(cudaMemoryTypeDevice, 2)                                                                \
    X(cudaMemoryTypeManaged, 3)

/* X(name, value) of the flags (macros in the toolkit, enum constants here: the same in any
 * expression; only `#if cudaHostAllocMapped` would tell them apart). */
#define MM_EMU_FLAGS(X)                                                                       \
    X(cudaHostAllocDefault, 0x00)                                                             \
    X(cudaHostAllocPortable, 0x01)                                                            \
    X(cudaHostAllocMapped, 0x02)                                                              \
    X(cudaHostAllocWriteCombined, 0x04)                                                       \
    X(cudaHostRegisterDefault, 0x00)                                                          \
    X(cudaHostRegisterPortable, 0x01)                                                         \
    X(cudaHostRegisterMapped, 0x02)                                                           \
    X(cudaHostRegisterIoMemory, 0x04)                                                         \
    X(cudaHostRegisterReadOnly, 0x08)                                                         \
    X(cudaStreamDefault, 0x00)                                                                \
    X(cudaStreamNonBlocking, 0x01)                                                            \
    X(cudaEventDefault, 0x00)                                                                 \
    X(cudaEventBlockingSync, 0x01)                                                            \
    X(cudaEventDisableTiming, 0x02)                                                           \
    X(cudaEventInterprocess, 0x04)

/* The fields of struct cudaPointerAttributes, in the toolkit's order. */
#define MM_EMU_POINTER_ATTRIBUTES_FIELDS                                                      \
    enum cudaMemoryType type;                                                                 \
    int device;                                                                               \
    void *devicePointer;                                                                      \
    void *hostPointer;                                                                        \
    long reserved[8];

/* X(return type, name, (parameters), (arguments)) of every CUDA runtime function emulated: for
 * forwarding them (a shim choosing the real runtime or the emulator) and for the compile-time
 * checks that mm_cuda_api.h and the toolkit declare each one this way. Contracts: mm_cuda_api.h. */
#define MM_EMU_FUNCTIONS(X)                                                                   \
    X(cudaError_t, cudaGetLastError, (void), ())                                              \
    X(cudaError_t, cudaPeekAtLastError, (void), ())                                           \
    X(const char *, cudaGetErrorString, (cudaError_t e), (e))                                 \
    X(const char *, cudaGetErrorName, (cudaError_t e), (e))                                   \
    X(cudaError_t, cudaGetDeviceCount, (int *count), (count))                                 \
    X(cudaError_t, cudaSetDevice, (int device), (device))                                     \
    X(cudaError_t, cudaGetDevice, (int *device), (device))                                    \
    X(cudaError_t, cudaDeviceSynchronize, (void), ())                                         \
    X(cudaError_t, cudaMemGetInfo, (size_t *free_bytes, size_t *total_bytes),                 \
      (free_bytes, total_bytes))                                                              \
    X(cudaError_t, cudaMalloc, (void **ptr, size_t size), (ptr, size))                        \
    X(cudaError_t, cudaFree, (void *ptr), (ptr))                                              \
    X(cudaError_t, cudaHostAlloc, (void **ptr, size_t size, unsigned int flags),              \
      (ptr, size, flags))                                                                     \
    X(cudaError_t, cudaMallocHost, (void **ptr, size_t size), (ptr, size))                    \
    X(cudaError_t, cudaFreeHost, (void *ptr), (ptr))                                          \
    X(cudaError_t, cudaHostGetFlags, (unsigned int *flags, void *ptr), (flags, ptr))          \
    X(cudaError_t, cudaHostRegister, (void *ptr, size_t size, unsigned int flags),            \
      (ptr, size, flags))                                                                     \
    X(cudaError_t, cudaHostUnregister, (void *ptr), (ptr))                                    \
    X(cudaError_t, cudaPointerGetAttributes,                                                  \
      (struct cudaPointerAttributes *attr, const void *ptr), (attr, ptr))                     \
    X(cudaError_t, cudaMemcpyAsync,                                                           \
      (void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,                    \
       cudaStream_t stream),                                                                  \
      (dst, src, count, kind, stream))                                                        \
    X(cudaError_t, cudaMemcpy,                                                                \
      (void *dst, const void *src, size_t count, enum cudaMemcpyKind kind),                   \
      (dst, src, count, kind))                                                                \
    X(cudaError_t, cudaMemsetAsync, (void *dst, int value, size_t count, cudaStream_t stream), \
      (dst, value, count, stream))                                                            \
    X(cudaError_t, cudaMemset, (void *dst, int value, size_t count), (dst, value, count))     \
    X(cudaError_t, cudaStreamCreateWithFlags, (cudaStream_t *stream, unsigned int flags),     \
      (stream, flags))                                                                        \
    X(cudaError_t, cudaStreamCreate, (cudaStream_t *stream), (stream))                        \
    X(cudaError_t, cudaStreamDestroy, (cudaStream_t stream), (stream))                        \
    X(cudaError_t, cudaStreamSynchronize, (cudaStream_t stream), (stream))                    \
    X(cudaError_t, cudaStreamQuery, (cudaStream_t stream), (stream))                          \
    X(cudaError_t, cudaStreamWaitEvent,                                                       \
      (cudaStream_t stream, cudaEvent_t event, unsigned int flags), (stream, event, flags))   \
    X(cudaError_t, cudaEventCreateWithFlags, (cudaEvent_t *event, unsigned int flags),        \
      (event, flags))                                                                         \
    X(cudaError_t, cudaEventCreate, (cudaEvent_t *event), (event))                            \
    X(cudaError_t, cudaEventDestroy, (cudaEvent_t event), (event))                            \
    X(cudaError_t, cudaEventRecord, (cudaEvent_t event, cudaStream_t stream), (event, stream)) \
    X(cudaError_t, cudaEventQuery, (cudaEvent_t event), (event))                              \
    X(cudaError_t, cudaEventSynchronize, (cudaEvent_t event), (event))                        \
    X(cudaError_t, cudaEventElapsedTime, (float *ms, cudaEvent_t start, cudaEvent_t end),     \
      (ms, start, end))

/* For MM_EMU_FUNCTIONS: checks at compile time that the function in scope (the toolkit's, or
 * mm_cuda_api.h's) has the listed type. */
#define MM_EMU_SAME_FUNCTION_(ret, name, params, args)                                        \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&name), ret(*) params),            \
                   #name " is not declared as " #ret " " #name #params);

#endif
