/* Helpers shared by the emulator's tests: the settings, a kernel that adds to every byte of a
 * device buffer, the suites. */
#ifndef EMU_TEST_H
#define EMU_TEST_H
#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

Suite *cudaemu_suite(void);
Suite *pipeline_suite(void);

/* The settings in force, with pace on and race mode off (edit, then et_apply). */
mm_emu_config_t et_config(void);
/* mm_emu_configure(c), asserting it succeeds. */
void et_apply(const mm_emu_config_t *c);
/* Race mode on with `seed`, everything else as et_config. */
void et_race_mode(uint64_t seed);
/* The fixture's teardown: mm_emu_shutdown. */
void et_shutdown(void);

/* Launches, on `stream`, a kernel adding `add` to each of the n bytes at device address dev
 * (declared as written), after sleeping sleep_us of real time; model_ns as mm_emu_kernel_t. */
cudaError_t et_bump(cudaStream_t stream, void *dev, size_t n, int add, unsigned sleep_us,
                    double model_ns);

#endif
