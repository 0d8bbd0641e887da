/* Lab 05 tests, part D: the pipeline on a GPU. Without a GPU only its argument checks run
 * (they come before any CUDA call); without nvcc nothing here runs. Your pipeline runs in your
 * process, on the plan (pt_plan_make's, copied into shared memory: the pipeline keeps it) and
 * on src and dst in shared memory; the tests keep their own copy of src and compare dst with
 * the transform of that copy. Whether src and dst are page-locked only the CUDA runtime in your
 * process can say: that answer is its word, so its test is worth no points (lab.toml); the
 * timed overlap_efficiency metric on a GPU is where pinning is graded. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bandwidth.h"
#include "pipeline.h"
#include "plan.h"
#include "support.h"
#ifdef MM_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

/* Your plan of a transfer, in shared memory (its chunks stay your process's). */
static pt_plan_t *make_plan(size_t total, size_t max_chunk, unsigned streams, unsigned slots)
{
    pt_plan_req_t q = { total, 4, 4096, 4, max_chunk, streams, slots, slots * max_chunk };
    pt_plan_t p;
    MM_ASSERT_OK(pt_plan_make(&q, &p));
    return share_plan(&p);
}

/* 10 % of RAM, a page at a time: the budget pt_pipe_create must respect. */
static size_t pin_budget(void)
{
    size_t ram = pt_ram_bytes(), b = ram / 100 * 10 + ram % 100 * 10 / 100;
    return b - b % 4096;
}

static void check_refusals(const pt_plan_t *p, uint32_t *src, uint32_t *dst)
{
    pt_pipe_t *pipe = (pt_pipe_t *)&pipe;
    pt_plan_t *bad = share_plan(p);
    MM_ASSERT_ERR(pt_pipe_create(NULL, p, src, dst), -EINVAL);
    MM_ASSERT_ERR(pt_pipe_create(&pipe, NULL, src, dst), -EINVAL);
    MM_ASSERT_ERR(pt_pipe_create(&pipe, p, NULL, dst), -EINVAL);
    MM_ASSERT_ERR(pt_pipe_create(&pipe, p, src, NULL), -EINVAL);
    MM_ASSERT_ERR(pt_pipe_create(&pipe, p, src, src + 1), -EINVAL); /* overlapping */
    bad->elem = 8;
    MM_ASSERT_ERR(pt_pipe_create(&pipe, bad, src, dst), -EINVAL);
    bad = share_plan(p);
    bad->n = 0;
    MM_ASSERT_ERR(pt_pipe_create(&pipe, bad, src, dst), -EINVAL);
    ck_assert_msg(pipe == (pt_pipe_t *)&pipe, "a failed pt_pipe_create must leave *out alone");
}

/* A plan whose src + dst exceed the pin budget. pt_pipe_create must refuse it before it touches
 * or pins anything, so src and dst are two disjoint address ranges no process maps: reserving
 * them would take 10 % of RAM in address space, more than the grader's limit on a large host. */
static void check_budget(void)
{
    size_t total = (pin_budget() / 2 + 8192) / 4096 * 4096;
    uintptr_t at = (uintptr_t)1 << 40; /* 1 TiB, page-aligned (64-bit hosts); never dereferenced */
    uint32_t *a = (uint32_t *)at, *b = (uint32_t *)(at + total);
    pt_chunk_t one = { 0, total, 0, 0, -1 };
    pt_plan_t big = { total, 4, total, total, 1, 1, 1, share(&one, sizeof one) };
    pt_pipe_t *pipe = NULL;
    int rc = pt_pipe_create(&pipe, share_plan(&big), a, b);
    ck_assert_msg(rc == -ENOSPC, "pinning 2 x %zu bytes exceeds 10%% of RAM (%zu): expected "
                  "-ENOSPC, got %d", total, pin_budget(), rc);
}

MM_TEST(test_pipe_create_checks)
{
    NEED_CUDA_BUILD();
    pt_plan_t *p = make_plan(65536, 16384, 2, 2);
    uint32_t *src = mm_shared_alloc(65536), *dst = mm_shared_alloc(65536);
    check_refusals(p, src, dst);
    check_budget();
    MM_ASSERT_ERR(pt_pipe_run(NULL, 1, NULL), -EINVAL);
    pt_pipe_destroy(NULL);
    pt_pipe_t *pipe = (pt_pipe_t *)&pipe;
    int rc = pt_pipe_create(&pipe, p, src, dst);
    if (student_gpu().usable) {
        ck_assert_msg(rc == 0, "pt_pipe_create failed: %s", strerror(-rc));
        pt_pipe_destroy(pipe);
    } else {
        ck_assert_msg(rc < 0 && pipe == (pt_pipe_t *)&pipe,
                      "without a usable GPU, pt_pipe_create must fail with an errno");
    }
    pt_plan_free(p);
}
MM_END_TEST

/* The emulated device's first race in your process, "" if none (workload "race_report"). */
static void race_report(char *seen)
{
    if (mm_call_work("race_report", NULL, 0, seen, RACE_REPORT_MAX) <= 0)
        seen[0] = '\0';
    seen[RACE_REPORT_MAX - 1] = '\0';
}

/* dst[i] must be the transform of src[i] for all n words (and their checksums agree); src is
 * the test's own copy. Finds the first wrong word in a plain loop and asserts once: an assert
 * per word would send Check a record per word (millions of them here). */
static void check_output(const uint32_t *src, const uint32_t *dst, size_t n, unsigned rounds,
                         const char *what)
{
    uint32_t a, b, *want = malloc(n * sizeof *want);
    ck_assert_ptr_nonnull(want);
    pt_transform_coeffs(rounds, &a, &b);
    for (size_t i = 0; i < n; i++)
        want[i] = src[i] * a + b;
    size_t i = 0;
    while (i < n && dst[i] == want[i])
        i++;
    char race[360] = "", seen[RACE_REPORT_MAX];
    if (i < n)
        race_report(seen);
    if (i < n && seen[0])
        snprintf(race, sizeof race, "; race mode saw: %s", seen); /* which streams raced */
    ck_assert_msg(i == n, "%s: word %zu is %#x, expected %#x (its chunk was not copied in, "
                  "transformed and copied out exactly once?)%s", what, i, i < n ? dst[i] : 0,
                  i < n ? want[i] : 0, race);
    ck_assert_msg(pt_checksum(dst, n) == pt_checksum(want, n), "%s: checksums differ", what);
    free(want);
}

static uint32_t *random_words(mm_rng_t *r, size_t n)
{
    uint32_t *v = malloc(n * sizeof *v);
    ck_assert_ptr_nonnull(v);
    for (size_t i = 0; i < n; i++)
        v[i] = (uint32_t)mm_rng_next(r);
    return v;
}

MM_TEST(test_gpu_pipeline_matches_host)
{
    NEED_CUDA_BUILD();
    NEED_GPU();
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 8; round++) {
        size_t n = mm_rng_range(&r, 1, (size_t)1 << 20), total = n * 4;
        size_t max_chunk = 4096 * mm_rng_range(&r, 1, 64);
        unsigned rounds = (unsigned)mm_rng_range(&r, 0, 40);
        pt_plan_t *p = make_plan(total, max_chunk, (unsigned)mm_rng_range(&r, 1, 4),
                                 (unsigned)mm_rng_range(&r, 1, 4));
        uint32_t *mine = random_words(&r, n), *src = share(mine, total);
        uint32_t *dst = mm_shared_alloc(total);
        pt_pipe_t *pipe = NULL;
        MM_ASSERT_OK(pt_pipe_create(&pipe, p, src, dst));
        MM_ASSERT_OK(pt_pipe_run(pipe, rounds, NULL));
        pt_pipe_destroy(pipe);
        check_output(mine, dst, n, rounds, "random plan");
        free(mine), pt_plan_free(p);
    }
}
MM_END_TEST

#ifdef MM_HAVE_CUDA
/* An array of `bytes` that your process allocates with cudaHostAlloc (workload "pinned_alloc"),
 * every byte 7; free it with free_pinned. */
static uint32_t *pinned_sevens(size_t bytes)
{
    pinned_alloc_in_t in = { bytes, 7, 0 };
    uint64_t at = 0;
    ck_assert_int_eq(mm_call_work("pinned_alloc", &in, sizeof in, &at, sizeof at), cudaSuccess);
    return (uint32_t *)(uintptr_t)at;
}

/* cudaFreeHost in your process (workload "pinned_free"): its cudaError_t. */
static int free_pinned(uint32_t *p)
{
    uint64_t at = (uintptr_t)p;
    return mm_call_work("pinned_free", &at, sizeof at, NULL, 0);
}

/* Whether the CUDA runtime in your process says host address p is page-locked (1) or not (0). */
static int pinned(const void *p)
{
    host_probe_in_t in = { (uintptr_t)p, 0, 0, 0 };
    host_probe_out_t out;
    MM_ASSERT_OK(mm_call_work("host_probe", &in, sizeof in, &out, sizeof out));
    ck_assert_msg(out.pinned >= 0, "cudaPointerGetAttributes(%p) failed", p);
    return out.pinned;
}
#endif

/* A src that came pinned (cudaHostAlloc'd: cudaHostRegister refuses it), then a second pipeline
 * on the same src and dst after the first is destroyed: its output shows that the first left
 * src allocated and both arrays usable. */
MM_TEST(test_gpu_pipeline_pinned_src)
{
    NEED_CUDA_BUILD();
    NEED_GPU();
#ifdef MM_HAVE_CUDA
    size_t n = (size_t)1 << 18;
    pt_plan_t *p = make_plan(n * 4, 65536, 2, 2);
    uint32_t *mine = malloc(n * 4), *src = pinned_sevens(n * 4), *dst = mm_shared_alloc(n * 4);
    ck_assert_ptr_nonnull(mine);
    memset(mine, 7, n * 4);
    for (unsigned rounds = 3; rounds <= 5; rounds += 2) {
        pt_pipe_t *pipe = NULL;
        MM_ASSERT_OK(pt_pipe_create(&pipe, p, src, dst));
        MM_ASSERT_OK(pt_pipe_run(pipe, rounds, NULL));
        pt_pipe_destroy(pipe);
        check_output(mine, dst, n, rounds, rounds == 3 ? "cudaHostAlloc'd src"
                                                       : "a second pipeline on the same arrays");
    }
    (void)free_pinned(src); /* what it returns is your process's word: the outputs are the check */
    free(mine), pt_plan_free(p);
#endif
}
MM_END_TEST

/* Worth no points: what the CUDA runtime in your process says of dst while a pipeline lives and
 * after it, and of a src that came pinned. */
MM_TEST(test_gpu_pipeline_pins_host)
{
    NEED_CUDA_BUILD();
    NEED_GPU();
#ifdef MM_HAVE_CUDA
    size_t bytes = 65536;
    pt_plan_t *p = make_plan(bytes, 16384, 2, 2);
    uint32_t *src = pinned_sevens(bytes), *dst = mm_shared_alloc(bytes);
    pt_pipe_t *pipe = NULL;
    MM_ASSERT_OK(pt_pipe_create(&pipe, p, src, dst));
    ck_assert_msg(pinned(dst), "dst must be page-locked while the pipeline exists: async copies "
                  "from pageable memory are not async");
    pt_pipe_destroy(pipe);
    ck_assert_msg(!pinned(dst), "pt_pipe_destroy must unregister dst");
    ck_assert_msg(pinned(src), "src came pinned: the pipeline must not unpin it");
    ck_assert_int_eq(free_pinned(src), cudaSuccess);
    pt_plan_free(p);
#endif
}
MM_END_TEST

MM_TEST(test_gpu_pipeline_reruns)
{
    NEED_CUDA_BUILD();
    NEED_GPU();
    mm_rng_t r = MM_RNG();
    size_t n = 3 * ((size_t)1 << 18) + 5; /* a short last chunk */
    pt_plan_t *p = make_plan(n * 4, 262144, 3, 3);
    uint32_t *mine = random_words(&r, n), *src = share(mine, n * 4);
    uint32_t *dst = mm_shared_alloc(n * 4);
    pt_pipe_t *pipe = NULL;
    double s = 0;
    MM_ASSERT_OK(pt_pipe_create(&pipe, p, src, dst));
    for (unsigned rounds = 1; rounds <= 7; rounds += 6) {
        MM_ASSERT_OK(pt_pipe_run(pipe, rounds, &s));
        ck_assert_msg(s > 0, "pt_pipe_run must report the time it took");
        check_output(mine, dst, n, rounds, "second run of one pipeline");
    }
    pt_pipe_destroy(pipe);
    free(mine), pt_plan_free(p);
}
MM_END_TEST
