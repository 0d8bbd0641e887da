/* Lab 12: CUDA's names for a kernel file compiled as C++ for the kernel emulator (kemu.h):
 * lab.mk includes this before your src/kernels.cu. nvcc never sees it. What it leaves out:
 * dynamic (extern) shared memory, atomics, textures, cooperative groups. Empty in C. */
#ifndef KEMU_CUDA_H
#define KEMU_CUDA_H
#ifdef __cplusplus
#include "kemu.h"

#define KEMU_CUDA 1
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __restrict__ __restrict
/* Shared memory: one copy per block (blocks run one at a time), in a section of its own so that
 * the emulator tells its accesses from global memory's. */
#define __shared__ static __attribute__((section("kemu_shared"), aligned(16)))

struct uint3 {
    unsigned x, y, z;
};
struct dim3 {
    unsigned x, y, z;
};

static inline uint3 kemu_u3(kemu_dim3_t d)
{
    return uint3{d.x, d.y, d.z};
}
static inline dim3 kemu_d3(kemu_dim3_t d)
{
    return dim3{d.x, d.y, d.z};
}
#define threadIdx (kemu_u3(kemu_thread_idx()))
#define blockIdx (kemu_u3(kemu_block_idx()))
#define blockDim (kemu_d3(kemu_block_dim()))
#define gridDim (kemu_d3(kemu_grid_dim()))
#define warpSize KEMU_WARP

static inline void __syncthreads(void)
{
    kemu_syncthreads();
}

/* Shuffles of any 4- or 8-byte type (8 bytes: two 32-bit shuffles, as the hardware does). The
 * last argument, left to its default, is the caller's source line (the shuffle's call site). */
template <class T>
static inline T kemu_shfl_t(int mode, unsigned mask, T v, int arg, int width, int site)
{
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "shuffles move 4 or 8 bytes");
    uint32_t w[2] = {0, 0};
    __builtin_memcpy(w, &v, sizeof(T));
    for (unsigned i = 0; i < sizeof(T) / 4; i++)
        w[i] = kemu_shfl(mode, mask, w[i], arg, width, site);
    T r;
    __builtin_memcpy(&r, w, sizeof(T));
    return r;
}
template <class T> static inline T __shfl_sync(unsigned mask, T v, int src, int width = 32,
                                 int site = __builtin_LINE())
{
    return kemu_shfl_t(KEMU_SHFL_IDX, mask, v, src, width, site);
}
template <class T> static inline T __shfl_up_sync(unsigned mask, T v, unsigned d, int width = 32,
                                 int site = __builtin_LINE())
{
    return kemu_shfl_t(KEMU_SHFL_UP, mask, v, (int)d, width, site);
}
template <class T>
static inline T __shfl_down_sync(unsigned mask, T v, unsigned d, int width = 32,
                                 int site = __builtin_LINE())
{
    return kemu_shfl_t(KEMU_SHFL_DOWN, mask, v, (int)d, width, site);
}
template <class T> static inline T __shfl_xor_sync(unsigned mask, T v, int m, int width = 32,
                                 int site = __builtin_LINE())
{
    return kemu_shfl_t(KEMU_SHFL_XOR, mask, v, m, width, site);
}

static inline float __fadd_rn(float a, float b)
{
    return a + b;
}
static inline int min(int a, int b)
{
    return a < b ? a : b;
}
static inline int max(int a, int b)
{
    return a > b ? a : b;
}
#endif /* __cplusplus */
#endif
