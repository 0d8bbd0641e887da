/* <cuda_runtime_api.h> for builds on the emulated CUDA device: put this folder on the include
 * path (instead of the toolkit's) and CUDA runtime code compiles against ../mm_cuda_api.h. */
#include "../mm_cuda_api.h"
