/* Test harness on top of Check, shared by every lab's tests (main() lives in mm_ck_main.c).
 *
 *   MM_TEST(name) { ...asserts...; } MM_END_TEST
 *   MM_TEST_F(name, &fixture) { ... } MM_END_TEST      (a test with set-up, tear-down, time limit)
 *
 * Each test is declared once: MM_TEST registers it (a constructor in the test's own object), and
 * main() runs every registered test, in the order of their files' paths, then of their lines.
 * Each file is a Check suite named after it (check_counters.c: "counters"); each test is a test
 * case of its own, named like the test, so `CK_RUN_SUITE=counters` or `CK_RUN_CASE=test_x` runs
 * a part. Points are in lab.toml, which must name the same tests (the grader's tests check).
 *
 * MM_TEST records that the test's body returned. Check's fork mode reports a test whose
 * code calls exit(0) as passed; the grader counts a test as passed only when Check says so AND
 * the end was reached. MM_SKIP(reason...) ends a test that needs hardware this machine lacks; the
 * grader shows it as skipped, never as passed. Randomness comes from MM_RNG(), seeded from the
 * run's seed (printed at start; set MLMEM_SEED to replay) and the test's name.
 *
 * Cost: in fork mode every ck_assert* sends a record to the parent through a pipe, so a loop
 * asserting once per element of a large array can take seconds. Find the first mismatch in a
 * plain loop, then assert once with the index and both values. */
#ifndef MM_CHECK_H
#define MM_CHECK_H
#include <check.h>
#include <stdint.h>
#include <string.h>
#include "mm_rng.h"

/* What MM_TEST_F adds around a test. Any member may be left 0. */
typedef struct mm_fixture {
    /* Before / after the test, in the test's own process (Check's checked fixture): a failed
     * assert in setup fails the test; teardown runs only if the test did not fail. */
    void (*setup)(void);
    void (*teardown)(void);
    /* Before / after the test, in the parent process, whatever the test did, a crash included
     * (Check's unchecked fixture): for what must be undone in any case. What parent_setup sets in
     * memory, the test sees. */
    void (*parent_setup)(void);
    void (*parent_teardown)(void);
    /* The test's time limit in seconds (times CK_TIMEOUT_MULTIPLIER); 0: the lab's, lab.toml's
     * test_timeout_s. The grader stops a program that reports no result for test_timeout_s plus
     * a margin, so a longer limit here needs test_timeout_s raised as well. */
    double timeout_s;
} mm_fixture_t;

/* One registered test (MM_TEST makes it). */
typedef struct mm_test {
    const char *name, *file;
    int line;
    void (*add)(TCase *tc);        /* adds the Check test to tc */
    const mm_fixture_t *fixture;   /* NULL: none */
    struct mm_test *next;
} mm_test_t;
void mm_test_register(mm_test_t *t);

#define MM_TEST(name) MM_TEST_F(name, NULL)
#define MM_TEST_F(name, fixture_ptr)                                                  \
    static void name##_body(void);                                                    \
    START_TEST(name)                                                                  \
    {                                                                                 \
        mm_test_begin(#name);                                                         \
        name##_body();                                                                \
        mm_test_reached_end();                                                        \
    }                                                                                 \
    END_TEST                                                                          \
    static void name##_add(TCase *tc) { tcase_add_test(tc, name); }                   \
    __attribute__((constructor)) static void name##_register(void)                    \
    {                                                                                 \
        static mm_test_t entry = { #name, __FILE__, __LINE__, name##_add, fixture_ptr, \
                                   NULL };                                            \
        mm_test_register(&entry);                                                     \
    }                                                                                 \
    static void name##_body(void)
#define MM_END_TEST
#define MM_SKIP(...)                                                                  \
    do {                                                                              \
        mm_test_skip(__VA_ARGS__);                                                    \
        return;                                                                       \
    } while (0)
#define MM_RNG() mm_test_rng(__func__)

/* Like ck_assert_msg, for checks inside loops: records nothing when it passes. Check's fork
 * mode writes a record for every passing ck_assert*; millions of them (one per element of a large
 * buffer) overflow the sandbox's file-size limit and lose the whole lab's results. */
#define MM_CHECK(cond, ...)                                                           \
    do {                                                                              \
        if (!(cond))                                                                  \
            ck_abort_msg(__VA_ARGS__);                                                \
    } while (0)

/* Asserts that `call` returns 0 / the negative errno `err`, naming the call and both errnos:
 * MM_ASSERT_* through ck_assert_msg, MM_CHECK_* through MM_CHECK (nothing recorded on a pass:
 * for loops). */
#define MM_ASSERT_OK(call) MM_ASSERT_ERR(call, 0)
#define MM_ASSERT_ERR(call, err) MM_ERR_IS_(ck_assert_msg, call, err)
#define MM_CHECK_OK(call) MM_CHECK_ERR(call, 0)
#define MM_CHECK_ERR(call, err) MM_ERR_IS_(MM_CHECK, call, err)
#define MM_ERR_IS_(assert_, call, err)                                                \
    do {                                                                              \
        long mm_rc_ = (long)(call), mm_want_ = (long)(err);                           \
        assert_(mm_rc_ == mm_want_, "%s returned %ld (%s), expected %ld (%s)",        \
                #call, mm_rc_, mm_rc_ ? strerror((int)-mm_rc_) : "success",           \
                mm_want_, mm_want_ ? strerror((int)-mm_want_) : "success");           \
    } while (0)

/* The run's seed. */
uint64_t mm_test_seed(void);
/* A generator seeded from the run's seed and `test` (use MM_RNG()). */
mm_rng_t mm_test_rng(const char *test);
/* Used by MM_TEST and MM_SKIP: the running test's name, its completion, its skip. */
void mm_test_begin(const char *name);
void mm_test_reached_end(void);
void mm_test_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
