/* With MM_EMU_PRIVATE_NAMES (mm_cuda_api.h includes this file then), the emulator's CUDA
 * functions are named mm_emu_cudaX instead of cudaX, so that a program can hold both it and the
 * real runtime: mm_cuda_shim.c defines the cudaX functions and calls one or the other. One line
 * per function of MM_EMU_FUNCTIONS (mm_cuda_values.h); the shim's link fails if one is missing. */
#ifndef MM_CUDA_PRIVATE_NAMES_H
#define MM_CUDA_PRIVATE_NAMES_H
#define cudaGetLastError mm_emu_cudaGetLastError
#define cudaPeekAtLastError mm_emu_cudaPeekAtLastError
#define cudaGetErrorString mm_emu_cudaGetErrorString
#define cudaGetErrorName mm_emu_cudaGetErrorName
#define cudaGetDeviceCount mm_emu_cudaGetDeviceCount
#define cudaSetDevice mm_emu_cudaSetDevice
#define cudaGetDevice mm_emu_cudaGetDevice
#define cudaDeviceSynchronize mm_emu_cudaDeviceSynchronize
#define cudaMemGetInfo mm_emu_cudaMemGetInfo
#define cudaMalloc mm_emu_cudaMalloc
#define cudaFree mm_emu_cudaFree
#define cudaHostAlloc mm_emu_cudaHostAlloc
#define cudaMallocHost mm_emu_cudaMallocHost
#define cudaFreeHost mm_emu_cudaFreeHost
#define cudaHostGetFlags mm_emu_cudaHostGetFlags
#define cudaHostRegister mm_emu_cudaHostRegister
#define cudaHostUnregister mm_emu_cudaHostUnregister
#define cudaPointerGetAttributes mm_emu_cudaPointerGetAttributes
#define cudaMemcpyAsync mm_emu_cudaMemcpyAsync
#define cudaMemcpy mm_emu_cudaMemcpy
#define cudaMemsetAsync mm_emu_cudaMemsetAsync
#define cudaMemset mm_emu_cudaMemset
#define cudaStreamCreateWithFlags mm_emu_cudaStreamCreateWithFlags
#define cudaStreamCreate mm_emu_cudaStreamCreate
#define cudaStreamDestroy mm_emu_cudaStreamDestroy
#define cudaStreamSynchronize mm_emu_cudaStreamSynchronize
#define cudaStreamQuery mm_emu_cudaStreamQuery
#define cudaStreamWaitEvent mm_emu_cudaStreamWaitEvent
#define cudaEventCreateWithFlags mm_emu_cudaEventCreateWithFlags
#define cudaEventCreate mm_emu_cudaEventCreate
#define cudaEventDestroy mm_emu_cudaEventDestroy
#define cudaEventRecord mm_emu_cudaEventRecord
#define cudaEventQuery mm_emu_cudaEventQuery
#define cudaEventSynchronize mm_emu_cudaEventSynchronize
#define cudaEventElapsedTime mm_emu_cudaEventElapsedTime
#endif
