/* Lab 07 tests: your allocator on the CUDA back end. Where nvcc built it, the error path runs on
 * every machine (a device that does not exist: the runtime's error must come back unchanged);
 * real allocations need a usable GPU and are skipped, with the runtime's reason, without one.
 * The CUDA back end is the harness's (it owns the device memory and counts the raw calls); your
 * allocator reaches it through the forwarding back end (host.h), and the harness touches a
 * block only after checking that it lies in memory the back end handed out. */
#include <errno.h>
#include <stdlib.h>
#include "allocator.h"
#include "cudadev.h"
#include "host.h"
#include "mm_check.h"
#include "support.h"
#ifdef MM_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#ifdef MM_HAVE_CUDA
typedef struct {
    ca_cudadev_t *dev;
    int id;            /* its number for the forwarding back end */
    ca_allocator_t *a; /* yours, in your process */
} cuda_td_t;

static void cuda_open(cuda_td_t *t, int device)
{
    ca_backend_t be, *fwd = NULL;
    MM_ASSERT_OK(ca_cudadev_create(&t->dev, device));
    ca_cudadev_backend(t->dev, &be);
    t->id = host_attach(&be);
    ck_assert_msg(t->id >= 0, "too many devices at once");
    MM_ASSERT_OK(host_backend(t->id, 0, &fwd));
    MM_ASSERT_OK(ca_create(&t->a, fwd));
}

static void cuda_close(cuda_td_t *t)
{
    ca_destroy(t->a);
    host_detach(t->id);
    ca_cudadev_destroy(t->dev);
}

/* A block your allocator handed out: it must lie in memory the back end handed out before the
 * harness lets CUDA touch it. */
static void assert_owned(const cuda_td_t *t, const void *p, size_t n, int i)
{
    ck_assert_msg(host_owns(t->id, p, n), "block %d at %p (%zu bytes) is not inside memory "
                  "cudaMalloc handed out", i, p, n);
}

static unsigned long long cuda_raw_calls(const void *dev)
{
    return ca_cudadev_raw_calls((const ca_cudadev_t *)dev);
}
#endif

MM_TEST(test_cuda_errors_pass_through)
{
#ifndef MM_HAVE_CUDA
    MM_SKIP("%s: the CUDA back end is not compiled", CA_NO_CUDA_BUILD);
#else
    ck_assert_msg(ca_cuda_errno(cudaErrorMemoryAllocation) == -ENOMEM &&
                  ca_cuda_errno(cudaErrorInsufficientDriver) == -ENODEV &&
                  ca_cuda_errno(cudaSuccess) == 0, "(the back end's error mapping)");
    cuda_td_t t;
    cuda_open(&t, 9999); /* no machine has device 9999: every call fails, GPU or not */
    void *p = &t;
    MM_ASSERT_ERR(ca_alloc(t.a, 4096, 0, &p), -ENODEV);
    ca_stats_t s;
    MM_ASSERT_OK(ca_get_stats(t.a, &s));
    ck_assert_msg(p == (void *)&t && s.raw_allocs == 1 && s.num_alloc_retries == 0 &&
                  s.num_ooms == 0 && s.segments.current == 0,
                  "a back-end error that is not -ENOMEM comes back as is: no retry, no OOM");
    MM_ASSERT_ERR(ca_empty_cache(t.a), -ENODEV); /* its synchronize fails too */
    cuda_close(&t);
#endif
}
MM_END_TEST

MM_TEST(test_cuda_alloc_free)
{
#ifndef MM_HAVE_CUDA
    MM_SKIP("%s", CA_NO_CUDA_BUILD);
#else
    char why[200];
    if (!ca_cuda_usable(why, sizeof why))
        MM_SKIP("no usable CUDA device: %s", why);
    enum { N = 24 };
    mm_rng_t r = MM_RNG();
    cuda_td_t t;
    cuda_open(&t, 0);
    unsigned char *p[N], byte;
    size_t size[N];
    for (int i = 0; i < N; i++) {
        size[i] = (size_t)mm_rng_range(&r, 1, 24 * MIB);
        MM_ASSERT_OK(ca_alloc(t.a, size[i], 0, (void **)&p[i]));
        ck_assert_msg((uintptr_t)p[i] % 512 == 0, "device pointers are 512-byte aligned");
        assert_owned(&t, p[i], size[i], i);
        ck_assert_int_eq(cudaMemset(p[i], i + 1, size[i]), cudaSuccess);
    }
    for (int i = 0; i < N; i++) {
        ck_assert_int_eq(cudaMemcpy(&byte, p[i], 1, cudaMemcpyDeviceToHost), cudaSuccess);
        ck_assert_msg(byte == i + 1, "block %d's first byte was overwritten by another block", i);
        ck_assert_int_eq(cudaMemcpy(&byte, p[i] + size[i] - 1, 1, cudaMemcpyDeviceToHost),
                         cudaSuccess);
        ck_assert_msg(byte == i + 1, "block %d's last byte was overwritten by another block", i);
    }
    for (int i = 0; i < N; i++)
        MM_ASSERT_OK(ca_free(t.a, p[i]));
    td_reuse_each_size(t.a, size, N, cuda_raw_calls, t.dev); /* no cudaMalloc */
    MM_ASSERT_OK(ca_empty_cache(t.a));
    ca_stats_t s;
    MM_ASSERT_OK(ca_get_stats(t.a, &s));
    ck_assert_msg(s.reserved_bytes[0].current == 0 && s.raw_frees == s.raw_allocs,
                  "empty_cache gives every segment back with cudaFree");
    cuda_close(&t);
#endif
}
MM_END_TEST

MM_TEST(test_cuda_stream_reuse)
{
#ifndef MM_HAVE_CUDA
    MM_SKIP("%s", CA_NO_CUDA_BUILD);
#else
    char why[200];
    if (!ca_cuda_usable(why, sizeof why))
        MM_SKIP("no usable CUDA device: %s", why);
    cuda_td_t t;
    cuda_open(&t, 0);
    void *p = NULL, *q = NULL, *big = NULL;
    MM_ASSERT_OK(ca_alloc(t.a, 4 * MIB, 0, &p));
    MM_ASSERT_OK(ca_alloc(t.a, 256 * MIB, 1, &big));
    cudaStream_t s1 = (cudaStream_t)ca_cudadev_stream(t.dev, 1);
    ck_assert_ptr_nonnull(s1);
    assert_owned(&t, p, 4 * MIB, 0);
    assert_owned(&t, big, 256 * MIB, 1);
    MM_ASSERT_OK(ca_record_stream(t.a, p, 1));
    for (int i = 0; i < 8; i++) /* keep stream 1 busy for a while */
        ck_assert_int_eq(cudaMemsetAsync(big, i, 256 * MIB, s1), cudaSuccess);
    ck_assert_int_eq(cudaMemsetAsync(p, 0, 4 * MIB, s1), cudaSuccess);
    MM_ASSERT_OK(ca_free(t.a, p));
    ck_assert_int_eq(cudaStreamSynchronize(s1), cudaSuccess);
    MM_ASSERT_OK(ca_alloc(t.a, 4 * MIB, 0, &q));
    ck_assert_msg(q == p, "stream 1 finished: the next ca_alloc on stream 0 reuses p");
    ca_stats_t s;
    MM_ASSERT_OK(ca_get_stats(t.a, &s));
    ck_assert_msg(s.active_bytes[0].current == s.allocated_bytes[0].current,
                  "nothing waits for events any more");
    cuda_close(&t);
#endif
}
MM_END_TEST
