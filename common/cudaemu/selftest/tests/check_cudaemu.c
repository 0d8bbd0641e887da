/* Unit tests of the emulated CUDA device (common/cudaemu): errors, memory, copies, streams,
 * engines and the model's clock, events, the legacy default stream, kernels, threads. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "emu_test.h"
#include "mm_check.h"
#include "mm_timer.h"

#define MIB ((size_t)1 << 20)

static atomic_int gate; /* wait_gate's kernels hold their stream until it is set */

static int wait_gate(void *arg)
{
    (void)arg;
    while (!atomic_load(&gate))
        usleep(100);
    return 0;
}

static int fail_kernel(void *arg)
{
    (void)arg;
    return 1;
}

/* The byte at device address dev, read back with cudaMemcpy; -1 if that fails. */
static int dev_byte(const void *dev)
{
    unsigned char b = 0;
    return cudaMemcpy(&b, dev, 1, cudaMemcpyDeviceToHost) == cudaSuccess ? b : -1;
}

/* Index of the first byte of p[0..n) that is not v, or n. */
static size_t first_not(const unsigned char *p, size_t n, int v)
{
    size_t i = 0;
    while (i < n && p[i] == v)
        i++;
    return i;
}

MM_TEST_F(test_error_names_and_last_error, &et_device)
{
    ck_assert_str_eq(cudaGetErrorName(cudaErrorHostMemoryAlreadyRegistered),
                     "cudaErrorHostMemoryAlreadyRegistered");
    ck_assert_str_eq(cudaGetErrorString(cudaErrorMemoryAllocation), "out of memory");
    ck_assert_str_eq(cudaGetErrorName((cudaError_t)12345), "unrecognized error code");
    ck_assert_int_eq(cudaSetDevice(1), cudaErrorInvalidDevice);
    ck_assert_int_eq(cudaMalloc(NULL, 16), cudaErrorInvalidValue);
    ck_assert_msg(cudaPeekAtLastError() == cudaErrorInvalidValue, "the last failure is kept");
    ck_assert_msg(cudaGetLastError() == cudaErrorInvalidValue, "cudaPeekAtLastError keeps it");
    ck_assert_msg(cudaGetLastError() == cudaSuccess, "cudaGetLastError clears it");
}
MM_END_TEST

MM_TEST_F(test_device_calls_and_settings, &et_device)
{
    int n = -1, d = -1;
    ck_assert_int_eq(cudaGetDeviceCount(&n), cudaSuccess);
    ck_assert_int_eq(cudaGetDevice(&d), cudaSuccess);
    ck_assert_msg(n == 1 && d == 0, "one device, number 0: count %d, current %d", n, d);
    mm_emu_config_t c = et_config(), bad = c;
    void *p = NULL;
    bad.pinned_gbps = 0;
    ck_assert_int_eq(mm_emu_configure(&bad), cudaErrorInvalidValue);
    c.devices = 0;
    et_apply(&c);
    ck_assert_int_eq(cudaGetDeviceCount(&n), cudaErrorNoDevice);
    ck_assert_msg(n == 0, "no device: count %d", n);
    ck_assert_int_eq(cudaMalloc(&p, 16), cudaErrorNoDevice);
}
MM_END_TEST

MM_TEST_F(test_race_mode_from_environment, &et_device)
{
    setenv("MLMEM_CUDA_RACE", "77", 1);
    mm_emu_config_t c;
    mm_emu_config_get(&c);
    unsetenv("MLMEM_CUDA_RACE");
    ck_assert_msg(c.race == 1 && c.race_seed == 77, "MLMEM_CUDA_RACE=77: race %d, seed %llu",
                  c.race, (unsigned long long)c.race_seed);
}
MM_END_TEST

MM_TEST_F(test_device_memory_capacity, &et_device)
{
    mm_emu_config_t c = et_config();
    c.device_bytes = MIB;
    et_apply(&c);
    void *a = NULL, *b = NULL, *z = &c;
    size_t free_bytes = 0, total = 0;
    ck_assert_int_eq(cudaMalloc(&a, MIB / 2), cudaSuccess);
    ck_assert_int_eq(cudaMalloc(&b, MIB / 2 + 1), cudaErrorMemoryAllocation);
    ck_assert_int_eq(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
    ck_assert_msg(free_bytes == MIB / 2 && total == MIB, "free %zu of %zu", free_bytes, total);
    ck_assert_int_eq(cudaFree(a), cudaSuccess);
    ck_assert_int_eq(cudaMalloc(&b, MIB), cudaSuccess);
    ck_assert_int_eq(cudaMalloc(&z, 0), cudaSuccess);
    ck_assert_msg(z == NULL, "cudaMalloc of 0 bytes gives NULL");
    ck_assert_int_eq(cudaFree((char *)b + 512), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaFree(NULL), cudaSuccess);
}
MM_END_TEST

MM_TEST_F(test_device_memory_is_not_host_memory, &et_device)
{
    int fd[2];
    unsigned char *dev = NULL;
    ck_assert_int_eq(pipe(fd), 0);
    ck_assert_int_eq(cudaMalloc((void **)&dev, 5000), cudaSuccess);
    errno = 0;
    ck_assert_msg(write(fd[1], dev, 1) == -1 && errno == EFAULT,
                  "host code cannot touch device memory (write() gets EFAULT)");
    ck_assert_msg(dev_byte(dev + 4999) == MM_EMU_POISON_FRESH, "fresh memory is poisoned");
    unsigned char *v = mm_emu_view(dev + 10, 4990);
    ck_assert_msg(v && v[0] == MM_EMU_POISON_FRESH, "kernels see it through mm_emu_view");
    ck_assert_msg(!mm_emu_view(dev + 10, 4991), "mm_emu_view stops at the allocation's end");
    ck_assert_int_eq(cudaFree(dev), cudaSuccess);
    ck_assert_msg(dev_byte(dev) == -1, "a freed device pointer is refused");
    ck_assert_msg(write(fd[1], dev, 1) == -1 && errno == EFAULT, "and still faults");
    for (int i = 0; i < 100; i++) { /* more than the quarantine holds */
        void *p = NULL;
        ck_assert_int_eq(cudaMalloc(&p, 5000), cudaSuccess);
        if (i < 60) /* dev is among the last 64 ranges freed, kept reserved */
            ck_assert_msg(p != dev, "freed addresses are not handed out again at once");
        ck_assert_int_eq(cudaFree(p), cudaSuccess);
    }
    close(fd[0]);
    close(fd[1]);
}
MM_END_TEST

static int type_of(const void *p)
{
    struct cudaPointerAttributes a;
    return cudaPointerGetAttributes(&a, p) == cudaSuccess ? (int)a.type : -1;
}

MM_TEST_F(test_pointer_attributes_and_registration, &et_device)
{
    char *dev = NULL, *pinned = NULL, *plain = malloc(3 * 4096), local = 0;
    unsigned flags = 0;
    ck_assert_int_eq(cudaMalloc((void **)&dev, 4096), cudaSuccess);
    ck_assert_int_eq(cudaHostAlloc((void **)&pinned, 4096, cudaHostAllocWriteCombined), 0);
    ck_assert_int_eq(cudaHostRegister(plain + 4096, 4096, cudaHostRegisterDefault), 0);
    ck_assert_int_eq(type_of(dev + 100), cudaMemoryTypeDevice);
    ck_assert_int_eq(type_of(pinned + 100), cudaMemoryTypeHost);
    ck_assert_int_eq(type_of(plain + 4096 + 100), cudaMemoryTypeHost);
    ck_assert_int_eq(type_of(plain), cudaMemoryTypeUnregistered);
    ck_assert_int_eq(type_of(&local), cudaMemoryTypeUnregistered);
    ck_assert_int_eq(cudaHostGetFlags(&flags, pinned + 1), cudaSuccess);
    ck_assert_msg(flags == cudaHostAllocWriteCombined, "flags %#x", flags);
    ck_assert_int_eq(cudaHostGetFlags(&flags, plain + 4096), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaHostRegister(plain, 4097, 0), cudaErrorHostMemoryAlreadyRegistered);
    ck_assert_int_eq(cudaHostRegister(pinned, 64, 0), cudaErrorHostMemoryAlreadyRegistered);
    ck_assert_int_eq(cudaHostRegister(dev, 64, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaHostUnregister(plain + 4097), cudaErrorHostMemoryNotRegistered);
    ck_assert_int_eq(cudaHostUnregister(plain + 4096), cudaSuccess);
    ck_assert_int_eq(type_of(plain + 4096), cudaMemoryTypeUnregistered);
    ck_assert_int_eq(cudaFreeHost(pinned + 1), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaFreeHost(pinned), cudaSuccess);
    free(plain);
}
MM_END_TEST

/* Host memory of kind k: 0 ordinary, 1 cudaHostAlloc, 2 registered. */
static void *host_alloc(int k, size_t n)
{
    void *p = NULL;
    if (k == 1)
        return cudaHostAlloc(&p, n, cudaHostAllocDefault) == cudaSuccess ? p : NULL;
    p = malloc(n);
    if (p && k == 2 && cudaHostRegister(p, n, cudaHostRegisterDefault) != cudaSuccess) {
        free(p);
        return NULL;
    }
    return p;
}

static void host_free(int k, void *p)
{
    if (k == 1) {
        cudaFreeHost(p);
        return;
    }
    if (k == 2)
        cudaHostUnregister(p);
    free(p);
}

/* Copies src (host kind k) to the device, across it and back; 1 if the bytes come back. */
static int round_trip(mm_rng_t *r, int k, size_t n, int async, cudaStream_t s)
{
    size_t off = mm_rng_range(r, 0, 64);
    unsigned char *src = host_alloc(k, n), *back = host_alloc(k, n), *a = NULL, *b = NULL;
    for (size_t i = 0; src && i < n; i++)
        src[i] = (unsigned char)mm_rng_next(r);
    int ok = src && back && cudaMalloc((void **)&a, n + off) == 0 &&
             cudaMalloc((void **)&b, n) == 0 &&
             (async ? cudaMemcpyAsync(a + off, src, n, cudaMemcpyHostToDevice, s)
                    : cudaMemcpy(a + off, src, n, cudaMemcpyDefault)) == 0 &&
             cudaMemcpyAsync(b, a + off, n, cudaMemcpyDeviceToDevice, s) == 0 &&
             cudaMemcpyAsync(back, b, n, cudaMemcpyDeviceToHost, s) == 0 &&
             cudaStreamSynchronize(s) == 0 && memcmp(src, back, n) == 0;
    cudaFree(a);
    cudaFree(b);
    host_free(k, src);
    host_free(k, back);
    return ok;
}

MM_TEST_F(test_copies_round_trip, &et_device)
{
    mm_rng_t r = MM_RNG();
    cudaStream_t s;
    ck_assert_int_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    for (int i = 0; i < 36; i++) {
        size_t n = mm_rng_range(&r, 1, 300000);
        ck_assert_msg(round_trip(&r, i % 3, n, i / 3 % 2, s), "host kind %d, %zu bytes, %s",
                      i % 3, n, i / 3 % 2 ? "cudaMemcpyAsync" : "cudaMemcpy");
    }
    ck_assert_msg(mm_emu_race_report(NULL, 0) == 0, "one stream races with nothing");
}
MM_END_TEST

MM_TEST_F(test_copy_and_memset_errors, &et_device)
{
    char *dev = NULL, host[64] = { 0 }, other[64] = { 0 };
    cudaStream_t s;
    ck_assert_int_eq(cudaMalloc((void **)&dev, 64), cudaSuccess);
    ck_assert_int_eq(cudaStreamCreate(&s), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(dev + 1, host, 64, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaMemcpy(other, host, 64, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaMemcpy(host, dev, 64, cudaMemcpyHostToHost), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaMemcpy(dev, host, 64, (enum cudaMemcpyKind)7),
                     cudaErrorInvalidMemcpyDirection);
    ck_assert_int_eq(cudaMemcpy(dev, host, 0, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(cudaMemset(host, 0, 64), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaMemsetAsync(dev, 0, 65, s), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaStreamDestroy(s), cudaSuccess);
    ck_assert_int_eq(cudaMemsetAsync(dev, 0, 64, s), cudaErrorInvalidResourceHandle);
    ck_assert_int_eq(cudaStreamDestroy(s), cudaErrorInvalidResourceHandle);
    ck_assert_int_eq(cudaStreamDestroy(NULL), cudaErrorInvalidResourceHandle);
}
MM_END_TEST

/* A pageable source is staged when cudaMemcpyAsync returns; a pageable destination is
 * complete when it returns. */
MM_TEST_F(test_pageable_copies_as_cuda_documents, &et_device)
{
    enum { N = 4096 };
    unsigned char *dev = NULL, *src = malloc(N), *dst = malloc(N);
    cudaStream_t s;
    ck_assert_int_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&dev, N), cudaSuccess);
    memset(src, 1, N);
    atomic_store(&gate, 0);
    ck_assert_int_eq(mm_emu_launch(s, wait_gate, NULL, 0), cudaSuccess);
    ck_assert_int_eq(cudaMemcpyAsync(dev, src, N, cudaMemcpyHostToDevice, s), cudaSuccess);
    memset(src, 2, N); /* the copy has not run yet: the stream waits at the gate */
    atomic_store(&gate, 1);
    ck_assert_int_eq(et_bump(s, dev, N, 10, 20000, 0), cudaSuccess);
    ck_assert_int_eq(cudaMemcpyAsync(dst, dev, N, cudaMemcpyDeviceToHost, s), cudaSuccess);
    ck_assert_msg(first_not(dst, N, 11) == N, "got %d: the staged source (1) + 10 is 11, there "
                  "without a synchronize", dst[0]);
    free(src);
    free(dst);
}
MM_END_TEST

/* One stream runs its work in order, with race mode's delays too (0.3 ms an item on average). */
MM_TEST_F(test_stream_order, &et_device)
{
    enum { N = 1000 };
    unsigned char *a = NULL, *b = NULL, out[N];
    cudaStream_t s;
    et_race_mode(mm_test_seed());
    uint64_t t0 = mm_now_ns();
    ck_assert_int_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&a, N), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&b, N), cudaSuccess);
    int want = 0;
    for (int i = 0; i < 12; i++) {
        ck_assert_int_eq(cudaMemsetAsync(a, i, N, s), cudaSuccess);
        ck_assert_int_eq(et_bump(s, a, N, 3, 0, 0), cudaSuccess);
        ck_assert_int_eq(cudaMemcpyAsync(b, a, N, cudaMemcpyDeviceToDevice, s), cudaSuccess);
        ck_assert_int_eq(et_bump(s, b, N, 1, 0, 0), cudaSuccess);
        want = i + 4;
    }
    ck_assert_int_eq(cudaMemcpyAsync(out, b, N, cudaMemcpyDeviceToHost, s), cudaSuccess);
    ck_assert_msg(first_not(out, N, want) == N, "got %d, want %d", out[0], want);
    double ms = (double)(mm_now_ns() - t0) / 1e6;
    ck_assert_msg(ms > 5, "49 items of no modelled cost took %g ms: race mode delays each", ms);
}
MM_END_TEST

typedef struct {
    void *dst;
    const void *src;
    enum cudaMemcpyKind kind;
} copy_t;

/* The model's milliseconds for copies c[0] on stream a and c[1] on stream b (a: one after the
 * other), started together and joined. Stream a waits at a gate until both copies are enqueued:
 * on a busy machine this thread may be descheduled between the two calls for longer than a copy,
 * and the first copy would then run alone. */
static double timed_pair(cudaStream_t a, cudaStream_t b, const copy_t c[2], size_t n)
{
    cudaEvent_t ev[3];
    float ms = -1;
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(cudaEventCreate(&ev[i]), cudaSuccess);
    atomic_store(&gate, 0);
    ck_assert_int_eq(mm_emu_launch(a, wait_gate, NULL, 0), cudaSuccess);
    int ok = cudaEventRecord(ev[0], a) == 0 && cudaStreamWaitEvent(b, ev[0], 0) == 0 &&
             cudaMemcpyAsync(c[0].dst, c[0].src, n, c[0].kind, a) == 0 &&
             cudaMemcpyAsync(c[1].dst, c[1].src, n, c[1].kind, b) == 0 &&
             cudaEventRecord(ev[1], b) == 0 && cudaStreamWaitEvent(a, ev[1], 0) == 0 &&
             cudaEventRecord(ev[2], a) == 0;
    atomic_store(&gate, 1);
    ok = ok && cudaEventSynchronize(ev[2]) == 0 && cudaEventElapsedTime(&ms, ev[0], ev[2]) == 0;
    ck_assert_msg(ok, "timing copies failed: %s", cudaGetErrorName(cudaGetLastError()));
    for (int i = 0; i < 3; i++)
        cudaEventDestroy(ev[i]);
    return ms;
}

/* One copy engine per direction: H2D and D2H overlap, two H2D do not; pageable is slower. The
 * model's clock, read by events, depends on the settings, not on how busy this machine is. */
MM_TEST_F(test_copy_engines_overlap, &et_device)
{
    const size_t n = 1 * MIB;
    mm_emu_config_t c = et_config();
    /* 105 ms a pinned copy, 210 a pageable one: longer than this thread's own work between the
     * gate and the last event (staging the pageable 1 MiB: a memcpy, slow only under
     * ThreadSanitizer on a loaded machine, where 4 MiB once took 60 ms) and its delays. */
    c.pinned_gbps = 0.01;
    c.pageable_gbps = 0.005;
    et_apply(&c);
    double one = (double)n / 0.01e6; /* ms */
    void *d0, *d1, *h0, *h1, *plain = calloc(1, n);
    cudaStream_t a, b;
    ck_assert(cudaMalloc(&d0, n) == 0 && cudaMalloc(&d1, n) == 0);
    ck_assert(cudaHostAlloc(&h0, n, 0) == 0 && cudaHostAlloc(&h1, n, 0) == 0 && plain);
    ck_assert(cudaStreamCreateWithFlags(&a, 1) == 0 && cudaStreamCreateWithFlags(&b, 1) == 0);
    copy_t up_down[2] = { { d0, h0, cudaMemcpyHostToDevice }, { h1, d1, cudaMemcpyDeviceToHost } };
    copy_t up_up[2] = { { d0, h0, cudaMemcpyHostToDevice }, { d1, h1, cudaMemcpyHostToDevice } };
    copy_t pageable[2] = { { d0, plain, cudaMemcpyHostToDevice }, { h1, d1, cudaMemcpyDefault } };
    uint64_t t0 = mm_now_ns();
    double serial = timed_pair(a, a, up_down, n);
    double wall = (double)(mm_now_ns() - t0) / 1e6, parallel = timed_pair(a, b, up_down, n);
    double same = timed_pair(a, b, up_up, n), slow = timed_pair(a, b, pageable, n);
    ck_assert_msg(serial >= 2 * one * 0.99 && serial < 2 * one * 1.5, "serial %g ms", serial);
    ck_assert_msg(wall >= serial * 0.99, "paced: %g ms of the model took %g ms", serial, wall);
    ck_assert_msg(parallel / serial > 0.45 && parallel / serial < 0.75,
                  "H2D and D2H on two streams: %g ms, one after the other %g ms", parallel, serial);
    ck_assert_msg(same / serial > 0.95 && same / serial < 1.25,
                  "two H2D on two streams: %g ms, serial %g ms (one H2D engine)", same, serial);
    ck_assert_msg(slow / parallel > 1.8 && slow / parallel < 2.4,
                  "pageable H2D %g ms vs pinned %g ms at half the bandwidth", slow, parallel);
    free(plain);
}
MM_END_TEST

MM_TEST_F(test_event_states, &et_device)
{
    cudaStream_t s;
    cudaEvent_t start, stop, untimed, never;
    float ms = -1;
    ck_assert_int_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    ck_assert(cudaEventCreate(&start) == 0 && cudaEventCreate(&stop) == 0);
    ck_assert(cudaEventCreate(&never) == 0);
    ck_assert_int_eq(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming), cudaSuccess);
    ck_assert_msg(cudaEventQuery(never) == cudaSuccess, "never recorded counts as reached");
    ck_assert_int_eq(cudaEventElapsedTime(&ms, never, never), cudaErrorInvalidResourceHandle);
    ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidResourceHandle);
    atomic_store(&gate, 0);
    mm_emu_kernel_t k = { .fn = wait_gate, .model_ns = 5e6 };
    ck_assert_int_eq(cudaEventRecord(start, s), cudaSuccess);
    ck_assert_int_eq(mm_emu_launch_kernel(s, &k), cudaSuccess);
    ck_assert(cudaEventRecord(stop, s) == 0 && cudaEventRecord(untimed, s) == 0);
    ck_assert_int_eq(cudaEventQuery(stop), cudaErrorNotReady);
    ck_assert_int_eq(cudaStreamQuery(s), cudaErrorNotReady);
    ck_assert_int_eq(cudaEventElapsedTime(&ms, start, stop), cudaErrorNotReady);
    ck_assert_msg(cudaGetLastError() == cudaSuccess, "not ready is not an error");
    atomic_store(&gate, 1);
    ck_assert_int_eq(cudaEventSynchronize(stop), cudaSuccess);
    ck_assert_int_eq(cudaEventQuery(stop), cudaSuccess);
    ck_assert_int_eq(cudaStreamSynchronize(s), cudaSuccess);
    ck_assert_int_eq(cudaStreamQuery(s), cudaSuccess);
    ck_assert_int_eq(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
    ck_assert_msg(ms >= 4.99f && ms < 50, "a 5 ms kernel took %g ms", (double)ms);
    ck_assert_int_eq(cudaEventElapsedTime(&ms, start, untimed), cudaErrorInvalidResourceHandle);
    ck_assert_int_eq(cudaEventDestroy(stop), cudaSuccess);
    ck_assert_int_eq(cudaEventQuery(stop), cudaErrorInvalidResourceHandle);
}
MM_END_TEST

/* Stream b reads what stream a's slow kernel wrote: with a wait on a's event, always right and
 * no race reported; without it, a race naming stream b. */
static void produce_consume(int wait, unsigned *races, char *report, size_t rn, int *sid)
{
    enum { N = 2048 };
    unsigned char *dev = NULL, *out = NULL;
    cudaStream_t a, b;
    cudaEvent_t ev;
    ck_assert(cudaStreamCreateWithFlags(&a, 1) == 0 && cudaStreamCreateWithFlags(&b, 1) == 0);
    ck_assert(cudaMalloc((void **)&dev, N) == 0 && cudaHostAlloc((void **)&out, N, 0) == 0);
    ck_assert_int_eq(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), cudaSuccess);
    ck_assert_int_eq(cudaMemsetAsync(dev, 0, N, a), cudaSuccess);
    ck_assert_int_eq(et_bump(a, dev, N, 7, 2000, 0), cudaSuccess);
    ck_assert_int_eq(cudaEventRecord(ev, a), cudaSuccess);
    if (wait)
        ck_assert_int_eq(cudaStreamWaitEvent(b, ev, 0), cudaSuccess);
    ck_assert_int_eq(cudaMemcpyAsync(out, dev, N, cudaMemcpyDeviceToHost, b), cudaSuccess);
    ck_assert_int_eq(cudaStreamSynchronize(b), cudaSuccess);
    if (wait)
        ck_assert_msg(first_not(out, N, 7) == N, "stream b read %d before a wrote 7", out[0]);
    *sid = mm_emu_stream_id(b);
    *races = mm_emu_race_report(report, rn);
}

MM_TEST_F(test_wait_event_orders_streams, &et_device)
{
    char report[600], name[80];
    unsigned races = 0;
    int b = -1;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        et_race_mode(seed);
        produce_consume(1, &races, report, sizeof report, &b);
        ck_assert_msg(races == 0, "seed %llu: a race reported: %s", (unsigned long long)seed,
                      report);
        mm_emu_shutdown();
    }
    produce_consume(0, &races, report, sizeof report, &b);
    snprintf(name, sizeof name, "stream %d's cudaMemcpyAsync device-to-host reads", b);
    ck_assert_msg(races == 1 && strstr(report, name) && strstr(report, "'s kernel, writing"),
                  "%u races, report: %s", races, report);
}
MM_END_TEST

/* The legacy default stream waits for blocking streams, not for non-blocking ones. */
MM_TEST_F(test_legacy_default_stream, &et_device)
{
    enum { N = 512 };
    unsigned char *dev = NULL, out[N];
    char report[600];
    cudaStream_t blocking, nonblocking;
    ck_assert_int_eq(cudaStreamCreate(&blocking), cudaSuccess);
    ck_assert_int_eq(cudaStreamCreateWithFlags(&nonblocking, cudaStreamNonBlocking), 0);
    ck_assert_int_eq(cudaMalloc((void **)&dev, N), cudaSuccess);
    ck_assert_int_eq(cudaMemset(dev, 1, N), cudaSuccess);
    ck_assert_int_eq(et_bump(blocking, dev, N, 4, 20000, 0), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(out, dev, N, cudaMemcpyDeviceToHost), cudaSuccess);
    ck_assert_msg(first_not(out, N, 5) == N, "cudaMemcpy read %d before the blocking stream's "
                  "kernel finished", out[0]);
    ck_assert_msg(mm_emu_race_report(report, sizeof report) == 0, "%s", report);
    ck_assert_int_eq(et_bump(nonblocking, dev, N, 1, 0, 0), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(out, dev, N, cudaMemcpyDeviceToHost), cudaSuccess);
    ck_assert_msg(mm_emu_race_report(report, sizeof report) == 1 &&
                  strstr(report, "the default stream's cudaMemcpy device-to-host reads"),
                  "a non-blocking stream is not ordered with cudaMemcpy: %s", report);
}
MM_END_TEST

MM_TEST_F(test_failed_kernel_is_sticky, &et_device)
{
    void *p = NULL;
    ck_assert_int_eq(mm_emu_launch(NULL, fail_kernel, NULL, 0), cudaSuccess);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
    ck_assert_int_eq(cudaMalloc(&p, 16), cudaErrorLaunchFailure);
    ck_assert_int_eq(cudaGetLastError(), cudaErrorLaunchFailure);
    ck_assert_msg(cudaGetLastError() == cudaErrorLaunchFailure, "cudaGetLastError cannot clear "
                  "a sticky error");
    mm_emu_shutdown();
    ck_assert_int_eq(cudaMalloc(&p, 16), cudaSuccess);
}
MM_END_TEST

MM_TEST_F(test_kernel_arguments_are_copied, &et_device)
{
    unsigned char *dev = NULL;
    ck_assert_int_eq(cudaMalloc((void **)&dev, 100), cudaSuccess);
    ck_assert_int_eq(cudaMemset(dev, 0, 100), cudaSuccess);
    atomic_store(&gate, 0);
    ck_assert_int_eq(mm_emu_launch(NULL, wait_gate, NULL, 0), cudaSuccess);
    for (int i = 1; i <= 3; i++) /* each launch's argument lives on this loop's stack */
        ck_assert_int_eq(et_bump(NULL, dev, 100, i, 0, 0), cudaSuccess);
    atomic_store(&gate, 1);
    ck_assert_int_eq(dev_byte(dev + 99), 6);
    mm_emu_kernel_t bad = { .fn = fail_kernel, .model_ns = -1 };
    ck_assert_int_eq(mm_emu_launch_kernel(NULL, &bad), cudaErrorInvalidValue);
    ck_assert_int_eq(mm_emu_launch(NULL, NULL, NULL, 0), cudaErrorInvalidValue);
}
MM_END_TEST

MM_TEST_F(test_stream_slots, &et_device)
{
    cudaStream_t s[MM_EMU_MAX_STREAMS], extra;
    for (int i = 0; i < MM_EMU_MAX_STREAMS - 1; i++)
        ck_assert_int_eq(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking), cudaSuccess);
    ck_assert_int_eq(cudaStreamCreate(&extra), cudaErrorMemoryAllocation);
    ck_assert_int_eq(cudaStreamDestroy(s[5]), cudaSuccess);
    ck_assert_int_eq(cudaStreamCreate(&extra), cudaSuccess);
    ck_assert_int_eq(mm_emu_stream_id(extra), 6);
    ck_assert_int_eq(mm_emu_stream_id(NULL), 0);
}
MM_END_TEST

/* Each thread: its own stream, round trips through a kernel, and the shared default stream. */
static void *thread_work(void *arg)
{
    mm_rng_t r = mm_rng_new((uint64_t)(uintptr_t)arg);
    unsigned char *dev = NULL, *host = NULL;
    cudaStream_t s;
    long bad = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != 0;
    for (int i = 0; i < 20 && !bad; i++) {
        size_t n = mm_rng_range(&r, 1, 20000);
        int v = (int)mm_rng_range(&r, 0, 200);
        bad = cudaMalloc((void **)&dev, n) != 0 || cudaHostAlloc((void **)&host, n, 0) != 0 ||
              cudaMemsetAsync(dev, v, n, s) != 0 || et_bump(s, dev, n, 1, 0, 0) != 0 ||
              cudaMemcpyAsync(host, dev, n, cudaMemcpyDeviceToHost, s) != 0 ||
              cudaStreamSynchronize(s) != 0 || first_not(host, n, v + 1) != n ||
              cudaMemcpy(host, dev, n, cudaMemcpyDeviceToHost) != 0 || cudaFree(dev) != 0 ||
              cudaFreeHost(host) != 0;
    }
    return (void *)(intptr_t)bad;
}

MM_TEST_F(test_threads, &et_device)
{
    pthread_t t[4];
    void *bad = NULL;
    int failed = 0;
    for (uintptr_t i = 0; i < 4; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, thread_work, (void *)(i + 1)), 0);
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], &bad);
        failed += bad != NULL;
    }
    ck_assert_msg(failed == 0, "%d of 4 threads saw a wrong result or a failed call", failed);
    ck_assert_msg(mm_emu_race_report(NULL, 0) == 0, "each thread used its own buffers");
}
MM_END_TEST
