/* Lab 05 tests, part A: bandwidth arithmetic, the pinned-memory budget, host memory kinds and
 * the copy measurement. The host memory your code allocates is your process's: a pattern is
 * written there, copied through the GPU and back into shared memory, where it is compared
 * (workload "host_probe", serve/cuda_work.c). Whether that memory is page-locked only the CUDA
 * runtime in your process can say: that answer is its word, so its test is worth no points
 * (lab.toml); pinning is graded where it shows, by the timed bandwidth metrics on a GPU. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "bandwidth.h"
#include "support.h"
#ifdef MM_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

MM_TEST(test_gbps_formula)
{
    double g = 0;
    MM_ASSERT_OK(pt_gbps(32000000, 100, 0.1, &g));
    ck_assert_msg(fabs(g - 32.0) < 1e-9,
                  "bandwidthTest: 32e6 bytes x 100 copies in 0.1 s is 32 GB/s; got %g", g);
    MM_ASSERT_OK(pt_gbps((size_t)64 << 20, 1, 0.001, &g));
    ck_assert_msg(fabs(g - 67.108864) < 1e-9,
                  "64 MiB in 1 ms is 67.108864 GB/s (a GB is 1e9 bytes, not 2^30); got %g", g);
    mm_rng_t r = MM_RNG();
    for (int i = 0; i < 100; i++) {
        size_t bytes = mm_rng_range(&r, 1, (size_t)1 << 32);
        unsigned iters = (unsigned)mm_rng_range(&r, 1, 1000);
        double s = 1e-6 + mm_rng_unit(&r), want = (double)bytes * iters / 1e9 / s;
        MM_ASSERT_OK(pt_gbps(bytes, iters, s, &g));
        ck_assert_msg(fabs(g - want) <= 1e-12 * want, "%zu bytes x %u in %g s: %g GB/s, not %g",
                      bytes, iters, s, g, want);
    }
}
MM_END_TEST

MM_TEST(test_gbps_bad_args)
{
    double g = -7;
    MM_ASSERT_ERR(pt_gbps(100, 1, 1.0, NULL), -EINVAL);
    MM_ASSERT_ERR(pt_gbps(0, 1, 1.0, &g), -EINVAL);
    MM_ASSERT_ERR(pt_gbps(100, 0, 1.0, &g), -EINVAL);
    MM_ASSERT_ERR(pt_gbps(100, 1, 0.0, &g), -EINVAL);
    MM_ASSERT_ERR(pt_gbps(100, 1, -1.0, &g), -EINVAL);
    MM_ASSERT_ERR(pt_gbps(100, 1, NAN, &g), -EINVAL);
    MM_ASSERT_ERR(pt_gbps(100, 1, INFINITY, &g), -EINVAL);
    ck_assert_msg(g == -7, "a failed pt_gbps must leave *gbps alone");
}
MM_END_TEST

/* percent% of ram, rounded down to a page, computed in 128-bit arithmetic. */
static size_t budget_oracle(size_t ram, unsigned percent)
{
    unsigned __int128 b = (unsigned __int128)ram * percent / 100;
    return (size_t)(b - b % 4096);
}

MM_TEST(test_pin_budget_percent)
{
    size_t b = 1;
    MM_ASSERT_OK(pt_pin_budget((size_t)128 << 30, 10, &b));
    ck_assert_msg(b == 13743894528u, "10%% of 128 GiB, down to a page, is 13743894528; got %zu", b);
    MM_ASSERT_OK(pt_pin_budget(1000, 15, &b));
    ck_assert_msg(b == 0, "15%% of 1000 bytes is 150: less than a page, so 0; got %zu", b);
    MM_ASSERT_OK(pt_pin_budget(SIZE_MAX, 15, &b));
    ck_assert_msg(b == 2767011611056431104u,
                  "15%% of SIZE_MAX must not overflow: want 2767011611056431104, got %zu", b);
    mm_rng_t r = MM_RNG();
    for (int i = 0; i < 1000; i++) {
        size_t ram = (size_t)mm_rng_next(&r) >> mm_rng_range(&r, 0, 60);
        unsigned pct = (unsigned)mm_rng_range(&r, 1, 15);
        if (ram == 0)
            continue;
        MM_ASSERT_OK(pt_pin_budget(ram, pct, &b));
        ck_assert_msg(b == budget_oracle(ram, pct), "%u%% of %zu bytes: got %zu, want %zu", pct,
                      ram, b, budget_oracle(ram, pct));
    }
}
MM_END_TEST

MM_TEST(test_pin_budget_bad_args)
{
    size_t b = 7;
    MM_ASSERT_ERR(pt_pin_budget((size_t)1 << 30, 10, NULL), -EINVAL);
    MM_ASSERT_ERR(pt_pin_budget(0, 10, &b), -EINVAL);
    MM_ASSERT_ERR(pt_pin_budget((size_t)1 << 30, 0, &b), -EINVAL);
    MM_ASSERT_ERR(pt_pin_budget((size_t)1 << 30, 16, &b), -EINVAL);
    MM_ASSERT_ERR(pt_pin_budget((size_t)1 << 30, 100, &b), -EINVAL);
    ck_assert_msg(b == 7, "a failed pt_pin_budget must leave *out alone");
}
MM_END_TEST

MM_TEST(test_host_alloc_checks)
{
    NEED_CUDA_BUILD();
    void *p = (void *)&p;
    MM_ASSERT_ERR(pt_host_alloc(PT_HOST_PINNED, 4096, NULL), -EINVAL);
    MM_ASSERT_ERR(pt_host_alloc(PT_HOST_PINNED, 0, &p), -EINVAL);
    MM_ASSERT_ERR(pt_host_alloc(PT_HOST_KINDS, 4096, &p), -EINVAL);
    MM_ASSERT_ERR(pt_host_alloc((pt_host_kind_t)-1, 4096, &p), -EINVAL);
    MM_ASSERT_ERR(pt_host_free(PT_HOST_KINDS, NULL), -EINVAL);
    for (int k = 0; k < PT_HOST_KINDS; k++)
        MM_ASSERT_OK(pt_host_free((pt_host_kind_t)k, NULL));
    ck_assert_msg(p == (void *)&p, "a failed pt_host_alloc must leave *out alone");
    MM_ASSERT_OK(pt_host_alloc(PT_HOST_PAGEABLE, 10000, &p)); /* needs no GPU */
    ck_assert_msg((uintptr_t)p % 4096 == 0, "pageable memory must be 4096-byte aligned");
    unsigned char ones[10000];
    memset(ones, 1, sizeof ones);
    ck_assert_msg(mm_poke(p, ones, sizeof ones) == 0, "pageable memory at %p: 10000 bytes cannot "
                  "be written", p);
    MM_ASSERT_OK(pt_host_free(PT_HOST_PAGEABLE, p));
    if (!student_gpu().usable) { /* without a GPU, pinning fails cleanly */
        p = (void *)&p;
        ck_assert_msg(pt_host_alloc(PT_HOST_PINNED, 4096, &p) < 0 && p == (void *)&p,
                      "without a usable GPU, pinned allocation must fail with an errno");
    }
}
MM_END_TEST

MM_TEST(test_measure_copy_checks)
{
    NEED_CUDA_BUILD();
    double g = -7;
    MM_ASSERT_ERR(pt_measure_copy(PT_HOST_PINNED, PT_TO_DEVICE, 4096, 1, NULL), -EINVAL);
    MM_ASSERT_ERR(pt_measure_copy(PT_HOST_PINNED, PT_TO_DEVICE, 0, 1, &g), -EINVAL);
    MM_ASSERT_ERR(pt_measure_copy(PT_HOST_PINNED, PT_TO_DEVICE, 4096, 0, &g), -EINVAL);
    MM_ASSERT_ERR(pt_measure_copy(PT_HOST_KINDS, PT_TO_DEVICE, 4096, 1, &g), -EINVAL);
    MM_ASSERT_ERR(pt_measure_copy(PT_HOST_PINNED, (pt_dir_t)2, 4096, 1, &g), -EINVAL);
    if (!student_gpu().usable)
        ck_assert_msg(pt_measure_copy(PT_HOST_PAGEABLE, PT_TO_DEVICE, 4096, 1, &g) < 0,
                      "without a usable GPU, pt_measure_copy must fail with an errno");
    ck_assert_msg(g == -7, "a failed pt_measure_copy must leave *gbps alone");
}
MM_END_TEST

#ifdef MM_HAVE_CUDA
/* What the CUDA runtime in your process says about host address p (workload "host_probe"); if
 * back is not NULL, n bytes of p are filled with the pattern `seed`, copied to the device and
 * from there into back. */
static host_probe_out_t probe(void *p, size_t n, void *back, unsigned seed)
{
    host_probe_in_t in = { (uintptr_t)p, n, (uintptr_t)back, seed };
    host_probe_out_t out;
    MM_ASSERT_OK(mm_call_work("host_probe", &in, sizeof in, &out, sizeof out));
    return out;
}

/* A pattern in n bytes of host memory p (your process's), copied to the GPU and back into shared
 * memory: 1 if what came back is the pattern. */
static int round_trip(void *p, size_t n, unsigned seed)
{
    unsigned char *back = mm_shared_alloc(n);
    host_probe_out_t r = probe(p, n, back, seed);
    size_t i = 0;
    while (i < n && back[i] == probe_byte(seed, i))
        i++;
    return r.copy_rc == cudaSuccess && i == n;
}

static const char *const KIND_NAME[] = { "pageable", "pinned", "write-combined", "registered" };
#endif

MM_TEST(test_gpu_host_alloc_kinds)
{
    NEED_CUDA_BUILD();
    NEED_GPU();
#ifdef MM_HAVE_CUDA
    size_t n = ((size_t)1 << 20) + 123;
    for (int k = 0; k < PT_HOST_KINDS; k++) {
        void *p = NULL;
        MM_ASSERT_OK(pt_host_alloc((pt_host_kind_t)k, n, &p));
        ck_assert_msg(round_trip(p, n, 0x40u + (unsigned)k),
                      "%s memory: a copy to the GPU and back differs", KIND_NAME[k]);
        MM_ASSERT_OK(pt_host_free((pt_host_kind_t)k, p));
    }
#endif
}
MM_END_TEST

/* Worth no points: what the CUDA runtime in your process says of each kind's memory. */
MM_TEST(test_gpu_host_kinds_page_locked)
{
    NEED_CUDA_BUILD();
    NEED_GPU();
#ifdef MM_HAVE_CUDA
    for (int k = 0; k < PT_HOST_KINDS; k++) {
        void *p = NULL;
        MM_ASSERT_OK(pt_host_alloc((pt_host_kind_t)k, 65536, &p));
        host_probe_out_t r = probe(p, 0, NULL, 0);
        ck_assert_msg(r.pinned == (k != PT_HOST_PAGEABLE),
                      "%s memory: cudaPointerGetAttributes says page-locked = %d", KIND_NAME[k],
                      r.pinned);
        if (k == PT_HOST_PINNED || k == PT_HOST_PINNED_WC) {
            ck_assert_int_eq(r.flags_rc, cudaSuccess);
            ck_assert_msg(!(r.flags & cudaHostAllocWriteCombined) == (k == PT_HOST_PINNED),
                          "%s memory: cudaHostGetFlags = %#x", KIND_NAME[k], r.flags);
        }
        MM_ASSERT_OK(pt_host_free((pt_host_kind_t)k, p));
    }
#endif
}
MM_END_TEST

MM_TEST(test_gpu_measure_copy)
{
    NEED_CUDA_BUILD();
    NEED_GPU();
    for (int k = 0; k < PT_HOST_KINDS; k++)
        for (int d = 0; d < 2; d++) {
            double g = 0;
            MM_ASSERT_OK(pt_measure_copy((pt_host_kind_t)k, (pt_dir_t)d, (size_t)8 << 20, 5, &g));
            ck_assert_msg(isfinite(g) && g > 0.05 && g < 10000,
                          "kind %d, direction %d: %g GB/s is not a bandwidth a PCIe or NVLink "
                          "link gives", k, d, g);
        }
}
MM_END_TEST
