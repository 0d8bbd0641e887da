/* Lab 12: kernels with known counts for the emulator's model (see probes.h), compiled as the
 * student's kernels are (lab.mk). */
#include "probes.h"

__global__ void probe_load_f32(const float *in, float *out, int stride)
{
    out[threadIdx.x] = in[threadIdx.x * stride];
}

__global__ void probe_load_f64(const double *in, double *out, int stride)
{
    out[threadIdx.x] = in[threadIdx.x * stride];
}

__global__ void probe_shared(float *out, int stride)
{
    __shared__ float s[32 * 33];
    s[threadIdx.x * stride] = (float)threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x * stride];
}

__global__ void probe_shuffle(int *out, int xor_mode)
{
    int v = (int)threadIdx.x;
    for (int d = 16; d > 0; d /= 2)
        v += xor_mode ? __shfl_xor_sync(0xffffffffu, v, d) : __shfl_down_sync(0xffffffffu, v, d);
    if (threadIdx.x % 32 == 0)
        out[threadIdx.x / 32] = v;
}

__global__ void probe_shuffle_undefined(int *out, int how)
{
    int v = (int)threadIdx.x;
    if (how == 1 && threadIdx.x % 32 == 31)
        return;   /* lane 31 exits; the others name it in their mask */
    if (how == 2 && threadIdx.x % 2)
        v += __shfl_xor_sync(0xffffffffu, v, 1);   /* odd lanes here, */
    else
        v += __shfl_xor_sync(0xffffffffu, v, 1);   /* even lanes at another line */
    out[threadIdx.x % 32] = v;
}
