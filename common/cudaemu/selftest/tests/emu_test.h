/* Helpers shared by the emulator's tests: their fixtures, the settings, a kernel that adds to
 * every byte of a device buffer. */
#ifndef EMU_TEST_H
#define EMU_TEST_H
#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "mm_check.h"

/* The fixtures: the device shut down after each test (mm_emu_shutdown), which may take 60 s
 * (check_cudaemu.c) or 120 s (check_pipeline.c). */
extern const mm_fixture_t et_device, et_pipeline;

/* The settings in force, with pace on and race mode off (edit, then et_apply). */
mm_emu_config_t et_config(void);
/* mm_emu_configure(c), asserting it succeeds. */
void et_apply(const mm_emu_config_t *c);
/* Race mode on with `seed`, everything else as et_config. */
void et_race_mode(uint64_t seed);

/* Launches, on `stream`, a kernel adding `add` to each of the n bytes at device address dev
 * (declared as written), after sleeping sleep_us of real time; model_ns as mm_emu_kernel_t. */
cudaError_t et_bump(cudaStream_t stream, void *dev, size_t n, int add, unsigned sleep_us,
                    double model_ns);

#endif
