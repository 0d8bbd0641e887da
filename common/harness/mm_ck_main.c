/* main() for every lab's Check test program: seeds the run, turns the tests that MM_TEST
 * registered into Check suites (one per file) and test cases (one per test), runs them (fork mode
 * unless CK_FORK=no), records test completion for the grader, and prints each test's result,
 * a skipped test as skipped (Check itself would list it as passed). */
#include "mm_check.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include "mm_confine.h"
#include "mm_seal.h"

static uint64_t run_seed;
static const char *done_file; /* where completion lines go, for the report printed at the end */
static int done_fd = -1;      /* it, open from the start: a confined test cannot open files */
static int confine_tests;     /* the grader asked for each test's child to be confined */

uint64_t mm_test_seed(void) { return run_seed; }

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

mm_rng_t mm_test_rng(const char *test)
{
    return mm_rng_new(run_seed ^ fnv1a(test));
}

static const char *current = "?"; /* the running test (each runs in its own child) */
static int this_skipped; /* the running test called MM_SKIP */

/* A lab whose student code runs in a process of its own links the harness's end of the call
 * boundary (common/harness/mm_call.c); elsewhere these are absent. */
extern int mm_call_setup(void) __attribute__((weak));
extern void mm_call_on_fail(void (*fail)(const char *msg)) __attribute__((weak));
extern void mm_student_stop(void) __attribute__((weak));

static const mm_test_t *find_test(const char *name);

/* Fails the running test with the boundary's message, placed at the test's own MM_TEST line. */
static void fail_test(const char *msg)
{
    const mm_test_t *t = find_test(current);
    _ck_assert_failed(t ? t->file : __FILE__, t ? t->line : __LINE__, "Failed", "%s", msg);
}

void mm_test_begin(const char *name)
{
    current = name;
    this_skipped = 0;
    if (mm_student_stop)
        mm_student_stop(); /* every test starts with a fresh student process */
}

/* Starts the student program (a lab with calls.toml) before the tests fork: 0, or -errno. */
static int setup_calls(void)
{
    if (!mm_call_setup)
        return 0;
    mm_call_on_fail(fail_test);
    return mm_call_setup();
}

/* Records a test's completion (what: MM_SEAL_DONE) or skip (MM_SEAL_SKIP, and why): sealed for
 * the grader (mm_seal.h, whose kinds grader/confinement/seal.py reads) when it listens, and in the done file
 * as "<what> <test> <why>\n" for the report printed at the end (read back by find_mark). */
static void record(const char *what, const char *why)
{
    if (mm_seal_on() && mm_seal_record(what, current, why) != 0)
        perror("mlmem: recording test completion for the grader");
    if (done_fd < 0)
        return;
    char line[512];
    int n = snprintf(line, sizeof line, "%s %s %s\n", what, current, why);
    if (n > 0 && write(done_fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1) < 0)
        perror("mlmem: recording test completion");
}

void mm_test_reached_end(void)
{
    if (!this_skipped)
        record(MM_SEAL_DONE, "");
}

void mm_test_skip(const char *fmt, ...)
{
    char why[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    for (char *p = why; *p; p++)
        if (*p == '\n')
            *p = ' ';
    record(MM_SEAL_SKIP, why);
    this_skipped = 1;
}

/* A fresh seed from the kernel's random source, so that runs started close together (a class
 * graded in one batch) get unrelated seeds; the clock and pid only if that source fails. */
static uint64_t fresh_seed(void)
{
    uint64_t seed;
    if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) == (ssize_t)sizeof seed)
        return seed;
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return mm_rng_next(&(mm_rng_t){ (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec }) ^
           (uint64_t)getpid();
}

static void init_seed(void)
{
    const char *s = getenv("MLMEM_SEED");
    run_seed = s && *s ? strtoull(s, NULL, 0) : fresh_seed();
    if (getenv("MLMEM_HIDE_SEED"))
        printf("mlmem: seed set by the course staff (secret)\n");
    else
        printf("mlmem: seed %llu (replay with MLMEM_SEED=%llu)\n", (unsigned long long)run_seed,
               (unsigned long long)run_seed);
    unsetenv("MLMEM_SEED");
    unsetenv("MLMEM_HIDE_SEED");
    fflush(stdout);
}

/* Every test MM_TEST declared: the lab's, and any instructor-only tests built with them. */
static mm_test_t *registered;
static size_t nregistered;

void mm_test_register(mm_test_t *t)
{
    t->next = registered;
    registered = t;
    nregistered++;
}

static const mm_test_t *find_test(const char *name)
{
    for (const mm_test_t *t = registered; t; t = t->next)
        if (strcmp(t->name, name) == 0)
            return t;
    return NULL;
}

static int by_file_then_line(const void *a, const void *b)
{
    const mm_test_t *x = *(mm_test_t *const *)a, *y = *(mm_test_t *const *)b;
    int c = strcmp(x->file, y->file);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* The suite of a test file: its name without the folder, "check_" and ".c". */
static void suite_name(const char *file, char *out, size_t cap)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    if (strncmp(base, "check_", 6) == 0)
        base += 6;
    snprintf(out, cap, "%s", base);
    char *dot = strrchr(out, '.');
    if (dot)
        *dot = 0;
}

/* The registered tests, sorted (NULL if there are none); *n: how many. */
static mm_test_t **sorted_tests(size_t *n)
{
    mm_test_t **all = nregistered ? calloc(nregistered, sizeof *all) : NULL;
    *n = 0;
    for (mm_test_t *t = registered; all && t; t = t->next)
        all[(*n)++] = t;
    if (all)
        qsort(all, *n, sizeof *all, by_file_then_line);
    return all;
}

/* The first checked fixture of every test under the grader: confines the test's child
 * (mm_confine.h) before the lab's fixtures and the test run code under test. */
static void confine_child(void)
{
    char cwd[4096], why[256] = "";
    ck_assert_msg(getcwd(cwd, sizeof cwd) != NULL, "mlmem: no working folder to confine to");
    int rc = mm_confine(cwd, why, sizeof why);
    ck_assert_msg(rc >= 0, "mlmem: the grader could not confine this test: %s", why);
}

/* One suite per file, one test case per test (named like it, so that a result names its test
 * and a fixture wraps that test alone). Check keeps the suites' names, not copies: they go in
 * names[0..n), for the caller to free after the runner. */
static SRunner *make_runner(mm_test_t **tests, size_t n, char **names)
{
    size_t nnames = 0;
    SRunner *sr = NULL;
    Suite *s = NULL;
    for (size_t i = 0; i < n; i++) {
        const mm_test_t *t = tests[i];
        if (!s || strcmp(t->file, tests[i - 1]->file) != 0) {
            char name[256];
            suite_name(t->file, name, sizeof name);
            names[nnames] = strdup(name);
            s = suite_create(names[nnames] ? names[nnames] : "?");
            nnames++;
            if (!sr)
                sr = srunner_create(s);
            else
                srunner_add_suite(sr, s);
        }
        TCase *tc = tcase_create(t->name);
        if (confine_tests)
            tcase_add_checked_fixture(tc, confine_child, NULL);
        const mm_fixture_t *f = t->fixture;
        if (f && (f->setup || f->teardown))
            tcase_add_checked_fixture(tc, f->setup, f->teardown);
        if (f && (f->parent_setup || f->parent_teardown))
            tcase_add_unchecked_fixture(tc, f->parent_setup, f->parent_teardown);
        if (f && f->timeout_s > 0)
            tcase_set_timeout(tc, f->timeout_s);
        t->add(tc);
        suite_add_tcase(s, tc);
    }
    return sr;
}

/* What the tests recorded (reached the end / skipped, and why), read back after the run. */
typedef struct {
    int known;  /* the done file could be read */
    char *text; /* its contents (NULL if empty) */
} marks_t;

static marks_t read_marks(const char *path)
{
    marks_t m = { 0, NULL };
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f)
        return m;
    m.known = 1;
    size_t cap = 0, len = 0;
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        if (len + got + 1 > cap) {
            cap = 2 * (len + got + 1);
            char *grown = realloc(m.text, cap);
            if (!grown)
                break;
            m.text = grown;
        }
        memcpy(m.text + len, buf, got);
        len += got;
        m.text[len] = 0;
    }
    fclose(f);
    return m;
}

/* The rest of the line "<what> <test> <why>" of the marks (as record writes them): its why, or
 * NULL if there is no such line; the last one if there are several. */
static const char *find_mark(const marks_t *m, const char *what, const char *test)
{
    const char *hit = NULL;
    size_t lw = strlen(what), lt = strlen(test);
    for (const char *p = m->text; p && *p;) {
        if (strncmp(p, what, lw) == 0 && p[lw] == ' ' && strncmp(p + lw + 1, test, lt) == 0 &&
            p[lw + 1 + lt] == ' ')
            hit = p + lw + 1 + lt + 1;
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    return hit;
}

static const char *group_of(mm_test_t **tests, size_t n, const char *test, char *out, size_t cap)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(tests[i]->name, test) == 0) {
            suite_name(tests[i]->file, out, cap);
            return out;
        }
    return "?";
}

/* Prints the run in Check's format ("file:line:R:suite:test:0: message", then a line of counts),
 * with S for a skipped test and E for one that stopped before its end without failing. The
 * verbosity is CK_VERBOSITY's: silent, minimal (counts), normal (and what did not pass), verbose
 * (every test; the default). Returns how many tests failed or erred. */
static int report(SRunner *sr, mm_test_t **tests, size_t n, const char *done_path)
{
    const char *v = getenv("CK_VERBOSITY");
    int level = !v ? 3 : !strcmp(v, "silent") ? 0 : !strcmp(v, "minimal") ? 1
                      : !strcmp(v, "normal") ? 2 : 3;
    marks_t marks = read_marks(done_path);
    int nrun = srunner_ntests_run(sr), passed = 0, failed = 0, errors = 0, skipped = 0;
    TestResult **res = srunner_results(sr);
    for (int i = 0; i < nrun; i++) {
        const char *test = tr_tcname(res[i]), *msg = tr_msg(res[i]);
        const char *skip = find_mark(&marks, MM_SEAL_SKIP, test);
        char kind = 'P';
        char why[512];
        if (tr_rtype(res[i]) == CK_FAILURE)
            kind = 'F', failed++;
        else if (tr_rtype(res[i]) != CK_PASS)
            kind = 'E', errors++;
        else if (skip) {
            kind = 'S', skipped++;
            snprintf(why, sizeof why, "SKIPPED: %.*s", (int)strcspn(skip, "\n"), skip);
            msg = why;
        } else if (marks.known && !find_mark(&marks, MM_SEAL_DONE, test)) {
            kind = 'E', errors++;
            msg = "the test stopped before its end without failing (something called exit() or "
                  "_exit()); Check counts that as a pass, the grader does not";
        } else
            passed++;
        char group[256];
        if (level >= 3 || (level == 2 && kind != 'P')) {
            const char *file = tr_lfile(res[i]);
            printf("%s:%d:%c:%s:%s:0: %s\n", file ? file : "?", tr_lno(res[i]), kind,
                   group_of(tests, n, test, group, sizeof group), test, msg ? msg : "");
        }
    }
    free(res);
    free(marks.text);
    int ran = nrun - skipped;
    if (level >= 1) {
        printf("%d%%: Checks: %d, Failures: %d, Errors: %d", ran ? 100 * passed / ran : 100, ran,
               failed, errors);
        if (skipped)
            printf(", Skipped: %d (not run: see the SKIPPED lines for why)", skipped);
        printf("\n");
    }
    return failed + errors;
}

/* Records go to a private temporary file (in TMPDIR, which the grader sets to the run's own folder)
 * so that the report can tell skips from passes; it stays open as done_fd, which every test's
 * child inherits. Returns its path or NULL. */
static char *private_done_file(void)
{
    static char path[4096];
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/mlmem-done-XXXXXX", dir && *dir ? dir : "/tmp");
    done_fd = mkstemp(path);
    return done_fd >= 0 ? path : NULL;
}

/* 1 if no two tests share a name (a result names its test); else says which and returns 0. */
static int names_unique(mm_test_t **tests, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (strcmp(tests[i]->name, tests[j]->name) == 0) {
                fprintf(stderr, "mlmem: two tests are named %s (%s:%d and %s:%d)\n",
                        tests[i]->name, tests[i]->file, tests[i]->line, tests[j]->file,
                        tests[j]->line);
                return 0;
            }
    return 1;
}

int main(void)
{
    int sealed = mm_seal_init();
    if (sealed < 0) {
        fprintf(stderr, "mlmem: cannot read the grader's key: %s\n", strerror(-sealed));
        return 2;
    }
    confine_tests = mm_confine_wanted();
    int calls = setup_calls();
    if (calls < 0) {
        fprintf(stderr, "mlmem: cannot start the program that runs your code: %s\n",
                strerror(-calls));
        return 2;
    }
    char *mine = private_done_file();
    done_file = mine;
    init_seed();
    size_t n;
    mm_test_t **tests = sorted_tests(&n);
    char **names = calloc(n ? n : 1, sizeof *names);
    SRunner *sr = names && names_unique(tests, n) ? make_runner(tests, n, names) : NULL;
    int status = 2;
    if (sr) {
        printf("Running %zu tests\n", n);
        fflush(stdout);
        srunner_run_all(sr, CK_SILENT);
        fflush(stdout);
        status = report(sr, tests, n, done_file) == 0 ? 0 : 1;
        srunner_free(sr);
    } else if (n == 0)
        fprintf(stderr, "mlmem: no tests (none declared with MM_TEST)\n");
    for (size_t i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
    free(tests);
    if (mine) {
        unlink(mine);
        close(done_fd);
    }
    return status;
}
