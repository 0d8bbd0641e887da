/* Lab 12: kernels with known counts, for checking the emulator's model (tools/kemuprobe.c). */
#ifndef KEMU_PROBES_H
#define KEMU_PROBES_H
#ifdef __cplusplus
extern "C" {
#endif
/* One warp: out[t] = in[t * stride] (floats): a global load of known sectors, then a store of
 * 4 sectors. */
void probe_load_f32(const float *in, float *out, int stride);
/* One warp: out[t] = in[t * stride] (doubles). */
void probe_load_f64(const double *in, double *out, int stride);
/* One warp: s[t * stride] = t, a barrier, out[t] = s[t * stride] (a shared float array of 1056). */
void probe_shared(float *out, int stride);
/* A block of blockDim.x threads: out[warp] = the sum of the lanes' indices by shuffles
 * (xor: 1; down: 0). */
void probe_shuffle(int *out, int xor_mode);
/* One warp, a shuffle CUDA leaves undefined: how 1, a full mask with lane 31 exited; how 2, odd
 * and even lanes at shuffles of different lines. The emulator refuses both (-EILSEQ). */
void probe_shuffle_undefined(int *out, int how);
#ifdef __cplusplus
}
#endif
#endif
