/* Unit tests of the shared helpers in common/ (run by `make test`). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "mm_aligned.h"
#include "mm_bench.h"
#include "mm_check.h"
#include "mm_copy.h"
#include "mm_cuda_check.h"
#include "mm_hw.h"
#include "mm_json.h"
#include "mm_rng.h"
#include "mm_seal.h"
#include "mm_timer.h"

/* copy(dst, src, n) on good memory, on a page that is not mapped (as either side), and again
 * on good memory after the failures (nothing of them left behind). */
static void check_copy(int (*copy)(void *, const void *, size_t))
{
    enum { N = 20000 };
    static char src[N], dst[N];
    for (size_t i = 0; i < N; i++)
        src[i] = (char)(i * 7 + 1);
    char *gone = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert(gone != MAP_FAILED && munmap(gone, 4096) == 0);
    ck_assert_int_eq(copy(gone, src, 100), -EFAULT);
    ck_assert_int_eq(copy(dst, gone, 100), -EFAULT);
    ck_assert_int_eq(copy(dst, src, N), 0);
    ck_assert_msg(memcmp(dst, src, N) == 0, "the copy differs from its source");
}

MM_TEST(test_copy_checked_answers_efault)
{
    ck_assert_int_eq(mm_copy_prepare(), 0);
    check_copy(mm_copy_checked);
    ck_assert_int_eq(mm_copy_prepare_pipe(), 0);
    check_copy(mm_copy_by_pipe); /* where process_vm_* is missing (qemu-user) */
}
MM_END_TEST

MM_TEST(test_aligned_alloc)
{
    mm_rng_t r = MM_RNG();
    for (int i = 0; i < 100; i++) {
        size_t align = (size_t)1 << mm_rng_range(&r, 0, 13), size = mm_rng_range(&r, 1, 100000);
        unsigned char *p = mm_aligned_alloc(align, size);
        ck_assert_msg(p && (uintptr_t)p % align == 0, "align %zu size %zu: %p", align, size,
                      (void *)p);
        memset(p, 0xAB, size);
        mm_aligned_free(p);
    }
    errno = 0;
    ck_assert_msg(mm_aligned_alloc(48, 64) == NULL && errno == EINVAL, "48 is not a power of two");
    ck_assert_msg(mm_aligned_alloc(64, 0) == NULL && errno == EINVAL, "size 0 is rejected");
    ck_assert(mm_is_pow2(1) && mm_is_pow2(4096) && !mm_is_pow2(0) && !mm_is_pow2(96));
}
MM_END_TEST

MM_TEST(test_rng_range_and_replay)
{
    mm_rng_t a = mm_rng_new(42), b = mm_rng_new(42);
    int seen[7] = { 0 };
    for (int i = 0; i < 10000; i++) {
        uint64_t x = mm_rng_range(&a, 3, 9);
        ck_assert_msg(x >= 3 && x <= 9, "range(3, 9) gave %llu", (unsigned long long)x);
        ck_assert(x == mm_rng_range(&b, 3, 9));
        seen[x - 3]++;
        double u = mm_rng_unit(&a);
        ck_assert(u >= 0.0 && u < 1.0);
        (void)mm_rng_unit(&b);
    }
    for (int k = 0; k < 7; k++)
        ck_assert_msg(seen[k] > 1000, "value %d drawn only %d times in 10000", k + 3, seen[k]);
}
MM_END_TEST

MM_TEST(test_median)
{
    double odd[5] = { 5, 1, 4, 2, 3 }, even[4] = { 10, 1, 3, 2 };
    ck_assert(mm_median(odd, 5) == 3.0);
    ck_assert(mm_median(even, 4) == 2.5);
}
MM_END_TEST

static char *json_of(void (*write)(mm_json_t *))
{
    static char buf[4096];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    mm_json_t j;
    mm_json_begin(&j, f);
    write(&j);
    mm_json_end(&j);
    fclose(f);
    return buf;
}

static void sample_doc(mm_json_t *j)
{
    mm_json_str(j, "s", "a\"b\\c\n");
    mm_json_num(j, "x", 1.5);
    mm_json_num(j, "nan", NAN);
    mm_json_array(j, "a");
    mm_json_int(j, NULL, 1);
    mm_json_bool(j, NULL, 0);
    mm_json_close(j, ']');
    mm_json_object(j, "o"); /* left open: mm_json_end closes it */
    mm_json_int(j, "k", -7);
}

MM_TEST(test_json_writer)
{
    const char *want = "{\"s\":\"a\\\"b\\\\c\\u000a\",\"x\":1.5,\"nan\":null,\"a\":[1,false],"
                       "\"o\":{\"k\":-7}}\n";
    char *got = json_of(sample_doc);
    ck_assert_msg(strcmp(got, want) == 0, "got %s", got);
}
MM_END_TEST

/* The harness's clock in this program (lab.mk links it with --wrap for both functions of
 * mm_timer.h): while `virtual` is set, time passes only when a case below says so, by exactly as
 * much as it says. */
uint64_t __real_mm_now_ns(void);
double __real_mm_elapsed_s(uint64_t start_ns);
static int virtual;
static uint64_t virtual_ns;

uint64_t __wrap_mm_now_ns(void)
{
    return virtual ? virtual_ns : __real_mm_now_ns();
}

double __wrap_mm_elapsed_s(uint64_t start_ns)
{
    return virtual ? (double)(virtual_ns - start_ns) * 1e-9 : __real_mm_elapsed_s(start_ns);
}

/* A case that takes *arg microseconds of the virtual clock. */
static void slow(void *arg) { virtual_ns += *(unsigned *)arg * 1000ull; }

MM_TEST(test_paired_ratio)
{
    unsigned long_us = 4000, short_us = 1000;
    mm_bench_case_t a = { "slow", slow, &long_us }, b = { "fast", slow, &short_us };
    double ratio = 0, ta = 0, tb = 0;
    virtual = 1;
    MM_ASSERT_OK(mm_bench_paired_ratio(&a, &b, 1, 5, &ratio, &ta, &tb));
    ck_assert_msg(fabs(ratio - 4) < 1e-9, "4 ms vs 1 ms gave a ratio of %g", ratio);
    ck_assert_msg(fabs(ta - 0.004) < 1e-12 && fabs(tb - 0.001) < 1e-12, "medians %g and %g s",
                  ta, tb);
    MM_ASSERT_ERR(mm_bench_paired_ratio(&a, &b, 0, 0, &ratio, NULL, NULL), -EINVAL);
    MM_ASSERT_ERR(mm_bench_paired_ratio(&a, &b, 0, MM_BENCH_MAX_REPS + 1, &ratio, NULL, NULL),
                  -EINVAL);
    MM_ASSERT_ERR(mm_bench_paired_ratio(NULL, &b, 0, 3, &ratio, NULL, NULL), -EINVAL);
}
MM_END_TEST

/* Takes 1 ms on even calls and 4 ms on odd ones: an effect that comes and goes. */
static void flicker(void *arg)
{
    unsigned *calls = arg;
    virtual_ns += ((*calls)++ % 2 ? 4000 : 1000) * 1000ull;
}

MM_TEST(test_gated_ratio)
{
    unsigned base_us = 4000, yours_us = 2000, calls = 0;
    mm_bench_case_t b = { "packed", slow, &base_us }, i = { "ideal", flicker, &calls },
                    y = { "yours", slow, &yours_us };
    mm_bench_gated_t g;
    virtual = 1;
    MM_ASSERT_OK(mm_bench_gated_ratio(&b, &i, &y, 0, 6, 2.0, &g));
    ck_assert_msg(g.counted == 3, "the ideal showed the effect in 3 of 6 rounds, counted %u",
                  g.counted);
    ck_assert_msg(fabs(g.speedup - 2) < 1e-9, "4 ms vs 2 ms gave %g", g.speedup);
    ck_assert_msg(fabs(g.vs_ideal - 0.5) < 1e-9, "1 ms vs 2 ms gave %g", g.vs_ideal);
    MM_ASSERT_OK(mm_bench_gated_ratio(&b, &i, &y, 0, 4, 50.0, &g));
    ck_assert_msg(g.counted == 0 && g.speedup == 0, "no round can show 50x: counted %u",
                  g.counted);
    MM_ASSERT_ERR(mm_bench_gated_ratio(&b, NULL, &y, 0, 3, 2.0, &g), -EINVAL);
    MM_ASSERT_ERR(mm_bench_gated_ratio(&b, &i, &y, 0, 0, 2.0, &g), -EINVAL);
}
MM_END_TEST

static void speedup_doc(mm_json_t *j)
{
    mm_bench_begin(j, "00");
    mm_bench_speedup(j, "s", 2.5, "packed", 0.01, 0.004, 9, "2 x 10 adds");
}

MM_TEST(test_speedup_report)
{
    const char *want = "{\"lab\":\"00\",\"metrics\":{\"s\":{\"value\":2.5,\"unit\":\"x\","
                       "\"detail\":\"packed 10.0 ms, yours 4.0 ms (medians of 9 rounds, 2 x 10 "
                       "adds)\"}}}\n";
    char *got = json_of(speedup_doc);
    ck_assert_msg(strcmp(got, want) == 0, "got %s", got);
}
MM_END_TEST

static const char *const TWO[] = { "a", "b", NULL }, *const OTHER[] = { "c", "d", NULL };

static void writers_doc(mm_json_t *j)
{
    mm_bench_begin(j, "00");
    mm_bench_metricf(j, "m", 0.5, "", "%d of %d", 1, 2);
    mm_bench_skipf(j, "s", "needs %.1fx", 2.0);
    mm_bench_failf(j, "f", "returned %d", -22);
    mm_bench_skip_all(j, TWO, "no %s", "GPU");
    mm_bench_fail_all(j, OTHER, "out of memory");
    mm_bench_end_metrics(j);
}

MM_TEST(test_metric_writers)
{
    const char *want = "{\"lab\":\"00\",\"metrics\":{\"m\":{\"value\":0.5,\"unit\":\"\","
                       "\"detail\":\"1 of 2\"},\"s\":{\"skipped\":\"needs 2.0x\"},"
                       "\"f\":{\"error\":\"returned -22\"},\"a\":{\"skipped\":\"no GPU\"},"
                       "\"b\":{\"skipped\":\"no GPU\"},\"c\":{\"error\":\"out of memory\"},"
                       "\"d\":{\"error\":\"out of memory\"}}}\n";
    char *got = json_of(writers_doc);
    ck_assert_msg(strcmp(got, want) == 0, "got %s", got);
}
MM_END_TEST

/* A detail longer than any fixed buffer a benchmark used to format into. */
static void long_doc(mm_json_t *j)
{
    mm_bench_begin(j, "00");
    mm_bench_metricf(j, "m", 1, "x", "%0900d", 7);
}

MM_TEST(test_metricf_long_detail)
{
    char *got = json_of(long_doc);
    const char *d = strstr(got, "\"detail\":\"");
    ck_assert_msg(d && strspn(d + 10, "0") == 899 && strncmp(d + 10 + 899, "7\"}", 3) == 0,
                  "got %.80s...", got);
}
MM_END_TEST

/* Runs work() in a child given the grader's channel, as the grader gives it: fd 3 (read back into
 * out, NUL-terminated) and the key (all 0x2a) on fd 4, with sealing asked for. Returns the
 * child's exit status (work() exits 0 when all went well). A child, since fds 3 and 4 may be
 * Check's own in this process. */
static int sealed_child(void (*work)(void), char *out, size_t cap)
{
    int chan[2], key[2];
    unsigned char k[32];
    memset(k, 0x2a, sizeof k);
    ck_assert(pipe(chan) == 0 && pipe(key) == 0);
    ck_assert(write(key[1], k, sizeof k) == (ssize_t)sizeof k);
    close(key[1]);
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        int c = fcntl(chan[1], F_DUPFD, 10), kk = fcntl(key[0], F_DUPFD, 10);
        if (c < 0 || kk < 0 || dup2(c, 3) != 3 || dup2(kk, 4) != 4)
            _exit(3);
        setenv("MLMEM_SEAL", "1", 1);
        if (mm_seal_init() != 1)
            _exit(4);
        work();
        _exit(0);
    }
    close(chan[1]);
    close(key[0]);
    size_t len = 0;
    ssize_t n;
    while (len + 1 < cap && (n = read(chan[0], out + len, cap - 1 - len)) > 0)
        len += (size_t)n;
    out[len] = 0;
    close(chan[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

static const char sealed_want[] =
    "{\"lab\":\"00\",\"metrics\":{\"s\":{\"value\":2,\"unit\":\"x\",\"detail\":"
    "\"base 2.0 ms, yours 1.0 ms (medians of 3 rounds, 4 x adds)\"}}}\n";

static void write_report(void)
{
    mm_json_t j;
    mm_bench_open(&j, "00");
    mm_bench_speedup(&j, "s", 2, "base", 0.002, 0.001, 3, "%u x %s", 4u, "adds");
    mm_bench_end_metrics(&j);
    mm_json_end(&j);
}

/* Under the grader mm_bench_open's report reaches fd 3 whole, after a sealed header. */
MM_TEST(test_bench_open_sealed)
{
    char buf[512], head[64];
    ck_assert_int_eq(sealed_child(write_report, buf, sizeof buf), 0);
    snprintf(head, sizeof head, "REPORT %zu ", strlen(sealed_want));
    const char *body = strchr(buf, '\n');
    ck_assert_msg(strncmp(buf, head, strlen(head)) == 0 && body, "got %s", buf);
    ck_assert_msg(body - buf == (long)strlen(head) + 64, "the seal is 64 hex digits: %s", buf);
    ck_assert_msg(strcmp(body + 1, sealed_want) == 0, "got %s", buf);
}
MM_END_TEST

static void write_records(void)
{
    if (mm_seal_record(MM_SEAL_DONE, "t1", "why\nnot this") != 0 ||
        mm_seal_record(NULL, "t1", "") != -EINVAL)
        _exit(1);
}

/* A record is one line: kind, name, a 64-digit seal, the text cut at its first newline. */
MM_TEST(test_seal_record_line)
{
    char buf[256];
    ck_assert_int_eq(sealed_child(write_records, buf, sizeof buf), 0);
    ck_assert_msg(strncmp(buf, "DONE t1 ", 8) == 0 && strlen(buf) == 8 + 64 + 5 &&
                  strcmp(buf + 8 + 64, " why\n") == 0, "got %s", buf);
}
MM_END_TEST

/* Outside the grader nothing is sealed, and mm_bench_output is stdout. */
MM_TEST(test_unsealed_outside_grader)
{
    ck_assert_int_eq(mm_seal_record(MM_SEAL_DONE, "t", ""), -ENOTCONN);
    ck_assert(mm_bench_output() == stdout);
}
MM_END_TEST

MM_TEST(test_timer_monotonic)
{
    uint64_t t0 = mm_now_ns();
    usleep(2000);
    ck_assert_msg(mm_elapsed_s(t0) >= 0.002, "2 ms sleep measured as %g s", mm_elapsed_s(t0));
}
MM_END_TEST

/* The line size follows its one order, says where it came from, and agrees with what it came
 * from. sysconf may say less than hwloc, never more: on aarch64 glibc answers CTR_EL0's smallest
 * data-cache line (32 where the coherency line hwloc reads is 64); on x86-64 they are equal. */
MM_TEST(test_hw_line_size_source)
{
    mm_line_source_t from;
    size_t line = mm_hw_line_size_from(&from);
    ck_assert_msg(mm_is_pow2(line) && line >= 8, "line size %zu", line);
    ck_assert_msg(line == mm_hw_line_size(), "two answers: %zu and %zu", line, mm_hw_line_size());
    mm_cache_t c[MM_HW_MAX_CACHES];
    int n = mm_hw_caches(c, MM_HW_MAX_CACHES);
    long os = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
    const char *name = mm_hw_line_source_name(from);
    if (from == MM_LINE_HWLOC)
        ck_assert_msg(n >= 1 && c[0].line == line, "from hwloc, but hwloc says %zu",
                      n >= 1 ? c[0].line : 0);
    else if (from == MM_LINE_SYSCONF)
        ck_assert_msg(os > 0 && (size_t)os == line, "from sysconf, but sysconf says %ld", os);
    else
        ck_assert_msg(line == MM_HW_ASSUMED_LINE && strcmp(name, "assumed") == 0,
                      "assumed %zu (%s)", line, name);
    if (from == MM_LINE_HWLOC && os > 0)
        ck_assert_msg((size_t)os <= line, "sysconf says %ld, more than hwloc's %zu", os, line);
}
MM_END_TEST

MM_TEST(test_hw_facts)
{
    mm_cache_t c[MM_HW_MAX_CACHES];
    int n = mm_hw_caches(c, MM_HW_MAX_CACHES);
    ck_assert_msg(n >= 1, "hwloc found no data cache");
    for (int i = 1; i < n; i++)
        ck_assert_msg(c[i].level > c[i - 1].level && c[i].size >= c[i - 1].size,
                      "caches out of order at %d", i);
    ck_assert(mm_hw_cores() >= 1 && mm_hw_pus() >= mm_hw_cores() && mm_hw_numa_nodes() >= 1);
    MM_ASSERT_OK(mm_hw_pin_to_core(0));
    MM_ASSERT_OK(mm_hw_unpin());
}
MM_END_TEST

/* The CUDA error mapping, on the runtime's numbers (no toolkit needed): every "no usable device"
 * error becomes -ENODEV, so that the labs skip their GPU tests instead of failing them. */
MM_TEST(test_cuda_errno_mapping)
{
    static const int no_device[] = { 3, 34, 35, 46, 100, 101, 802, 803, 804 };
    static const int other[][2] = { { 0, 0 },          { 1, -EINVAL }, { 2, -ENOMEM },
                                     { 600, -EAGAIN }, { 712, -EEXIST }, { 700, -EIO },
                                     { 999, -EIO },    { -1, -EIO } };
    for (size_t i = 0; i < sizeof no_device / sizeof no_device[0]; i++)
        ck_assert_msg(mm_cuda_errno_of(no_device[i]) == -ENODEV,
                      "cudaError %d means no usable device: want -ENODEV, got %d", no_device[i],
                      mm_cuda_errno_of(no_device[i]));
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
        ck_assert_msg(mm_cuda_errno_of(other[i][0]) == other[i][1],
                      "cudaError %d: want %d, got %d", other[i][0], other[i][1],
                      mm_cuda_errno_of(other[i][0]));
}
MM_END_TEST
