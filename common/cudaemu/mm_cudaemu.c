/* The CUDA emulator's core (see mm_cuda_api.h): its state and lock, set-up and shutdown, the
 * settings, errors and the device calls. Memory, streams, events, copies and the race checks
 * live in the other mm_cudaemu_*.c files. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mm_cudaemu_int.h"
#include "mm_timer.h"

emu_t emu;
emu_engine_state_t emu_engine[EMU_ENGINES] = {
    { PTHREAD_MUTEX_INITIALIZER, 0 },
    { PTHREAD_MUTEX_INITIALIZER, 0 },
    { PTHREAD_MUTEX_INITIALIZER, 0 },
};
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t state_changed = PTHREAD_COND_INITIALIZER;
static _Thread_local cudaError_t last_error;

/* mm_cuda_api.h declares every function as the list that the toolkit is checked against. */
MM_EMU_FUNCTIONS(MM_EMU_SAME_FUNCTION_)

void emu_lock(void) { pthread_mutex_lock(&state_lock); }
void emu_unlock(void) { pthread_mutex_unlock(&state_lock); }
void emu_wait(void) { pthread_cond_wait(&state_changed, &state_lock); }
void emu_changed(void) { pthread_cond_broadcast(&state_changed); }

uint64_t emu_clock_ns(void)
{
    return mm_now_ns() - emu.t0;
}

/* The defaults of mm_cuda_api.h, with MLMEM_CUDA_RACE=<seed> turning race mode on. */
static void config_defaults(mm_emu_config_t *c)
{
    *c = (mm_emu_config_t){ .devices = 1, .device_bytes = (size_t)4 << 30, .pinned_gbps = 25,
                            .pageable_gbps = 12.5, .device_gbps = 1000, .kernel_scale = 1,
                            .pace = 1, .race_delay_us = 2000 };
    const char *seed = getenv("MLMEM_CUDA_RACE");
    if (seed && *seed) {
        c->race = 1;
        c->race_seed = strtoull(seed, NULL, 0);
    }
}

static void settle_config(void)
{
    if (!emu.configured)
        config_defaults(&emu.cfg);
    emu.configured = 1;
}

cudaError_t emu_begin(void)
{
    emu_lock();
    settle_config();
    if (!emu.cfg.devices)
        return cudaErrorNoDevice;
    if (!emu.ready) {
        emu.t0 = mm_now_ns();
        if (emu_stream_start(0, cudaStreamDefault) != 0)
            return cudaErrorInitializationError;
        emu.ready = 1;
    }
    return emu.sticky;
}

cudaError_t emu_end(cudaError_t e)
{
    emu_unlock();
    if (e != cudaSuccess && e != cudaErrorNotReady)
        last_error = e;
    return e;
}

cudaError_t cudaPeekAtLastError(void)
{
    if (last_error != cudaSuccess)
        return last_error;
    emu_lock();
    cudaError_t e = emu.sticky;
    emu_unlock();
    return e;
}

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = cudaPeekAtLastError();
    last_error = cudaSuccess;
    return e;
}

const char *cudaGetErrorString(cudaError_t e)
{
    switch ((int)e) {
#define MM_EMU_MESSAGE_(name, value, message) case name: return message;
        MM_EMU_ERRORS(MM_EMU_MESSAGE_)
#undef MM_EMU_MESSAGE_
    }
    return "unrecognized error code";
}

const char *cudaGetErrorName(cudaError_t e)
{
    switch ((int)e) {
#define MM_EMU_NAME_(name, value, message) case name: return #name;
        MM_EMU_ERRORS(MM_EMU_NAME_)
#undef MM_EMU_NAME_
    }
    return "unrecognized error code";
}

cudaError_t cudaGetDeviceCount(int *count)
{
    cudaError_t e = emu_begin();
    if (!count)
        e = e == cudaSuccess ? cudaErrorInvalidValue : e;
    else
        *count = e == cudaErrorNoDevice ? 0 : 1;
    return emu_end(e);
}

cudaError_t cudaSetDevice(int device)
{
    cudaError_t e = emu_begin();
    if (e == cudaSuccess && device != 0)
        e = cudaErrorInvalidDevice;
    return emu_end(e);
}

cudaError_t cudaGetDevice(int *device)
{
    cudaError_t e = emu_begin();
    if (e == cudaSuccess && !device)
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess)
        *device = 0;
    return emu_end(e);
}

cudaError_t cudaDeviceSynchronize(void)
{
    cudaError_t e = emu_begin();
    if (e == cudaSuccess)
        e = emu_sync_all();
    return emu_end(e);
}

void mm_emu_config_get(mm_emu_config_t *c)
{
    emu_lock();
    settle_config();
    *c = emu.cfg;
    emu_unlock();
}

static int positive(double x)
{
    return isfinite(x) && x > 0;
}

cudaError_t mm_emu_configure(const mm_emu_config_t *c)
{
    if (!c || (c->devices != 0 && c->devices != 1) || c->device_bytes == 0 ||
        !positive(c->pinned_gbps) || !positive(c->pageable_gbps) || !positive(c->device_gbps) ||
        !isfinite(c->kernel_scale) || c->kernel_scale < 0) {
        last_error = cudaErrorInvalidValue;
        return cudaErrorInvalidValue;
    }
    emu_lock();
    emu.cfg = *c;
    emu.configured = 1;
    emu_unlock();
    return cudaSuccess;
}

void mm_emu_shutdown(void)
{
    emu_lock();
    if (emu.ready) {
        (void)emu_sync_all();
        emu_streams_teardown();
        emu_events_teardown();
        emu_mem_teardown();
        for (int i = 0; i < EMU_ENGINES; i++)
            emu_engine[i].vfree = 0; /* every worker has stopped */
    }
    memset(&emu, 0, sizeof emu);
    emu_unlock();
    last_error = cudaSuccess;
}
