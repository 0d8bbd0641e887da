/* Benchmark harness (see mm_bench.h). */
#include "mm_bench.h"
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "mm_confine.h"
#include "mm_seal.h"
#include "mm_timer.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double mm_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double time_once(const mm_bench_case_t *c)
{
    uint64_t t0 = mm_now_ns();
    c->run(c->arg);
    return mm_elapsed_s(t0);
}

/* Under the grader the report is kept in memory and sent sealed at its end (mm_seal.h). */
static char *report_buf;
static size_t report_len;

FILE *mm_bench_output(void)
{
    FILE *f = mm_seal_on() && !report_buf ? open_memstream(&report_buf, &report_len) : NULL;
    return f ? f : stdout;
}

/* mm_json_end's hook: the whole report, sealed, to the grader. */
static void send_report(mm_json_t *j)
{
    fclose(j->f);
    int rc = mm_seal_report(report_buf, report_len);
    if (rc)
        fprintf(stderr, "mlmem: sending the report to the grader failed: %s\n", strerror(-rc));
    free(report_buf);
    report_buf = NULL;
    j->f = stdout;
}

/* Starts sealing and confinement when the grader asks; a failure of either ends the program (a
 * report that cannot be sealed, or code under test that cannot be confined, must not be scored). */
static void guard(void)
{
    int sealed = mm_seal_init();
    char why[256] = "";
    if (sealed < 0) {
        fprintf(stderr, "mlmem: cannot read the grader's key: %s\n", strerror(-sealed));
        exit(2);
    }
    char cwd[4096];
    if (mm_confine_wanted() && (!getcwd(cwd, sizeof cwd) || mm_confine(cwd, why, sizeof why) < 0)) {
        fprintf(stderr, "mlmem: the benchmark could not be confined: %s\n", why);
        exit(2);
    }
}

int mm_bench_paired_ratio(const mm_bench_case_t *base, const mm_bench_case_t *yours,
                          unsigned warmup, unsigned reps, double *ratio, double *t_base,
                          double *t_yours)
{
    if (!base || !yours || !ratio || reps == 0 || reps > MM_BENCH_MAX_REPS)
        return -EINVAL;
    double *t = calloc(3 * (size_t)reps, sizeof *t);
    if (!t)
        return -ENOMEM;
    for (unsigned w = 0; w < warmup; w++) {
        base->run(base->arg);
        yours->run(yours->arg);
    }
    for (unsigned r = 0; r < reps; r++) {
        t[r] = time_once(base);
        t[reps + r] = time_once(yours);
        t[2 * reps + r] = t[r] / t[reps + r];
    }
    *ratio = mm_median(&t[2 * reps], reps);
    if (t_base)
        *t_base = mm_median(t, reps);
    if (t_yours)
        *t_yours = mm_median(&t[reps], reps);
    free(t);
    return 0;
}

/* Medians over the counted rounds: t[0..reps) base, t[reps..) ideal, t[2 reps..) yours. */
static void gated_medians(const double *t, unsigned reps, double min_contrast, double *scratch,
                          mm_bench_gated_t *g)
{
    double *sp = scratch, *vi = scratch + reps, *tb = scratch + 2 * reps, *ty = scratch + 3 * reps;
    unsigned n = 0;
    for (unsigned r = 0; r < reps; r++) {
        if (t[r] / t[reps + r] < min_contrast)
            continue;
        sp[n] = t[r] / t[2 * reps + r];
        vi[n] = t[reps + r] / t[2 * reps + r];
        tb[n] = t[r];
        ty[n++] = t[2 * reps + r];
    }
    g->counted = n;
    if (n > 0) {
        g->speedup = mm_median(sp, n), g->vs_ideal = mm_median(vi, n);
        g->t_base = mm_median(tb, n), g->t_yours = mm_median(ty, n);
    }
    for (unsigned r = 0; r < reps; r++)
        sp[r] = t[r] / t[reps + r];
    g->contrast = mm_median(sp, reps);
}

int mm_bench_gated_ratio(const mm_bench_case_t *base, const mm_bench_case_t *ideal,
                         const mm_bench_case_t *yours, unsigned warmup, unsigned reps,
                         double min_contrast, mm_bench_gated_t *g)
{
    if (!base || !ideal || !yours || !g || reps == 0 || reps > MM_BENCH_MAX_REPS)
        return -EINVAL;
    double *t = calloc(7 * (size_t)reps, sizeof *t);
    if (!t)
        return -ENOMEM;
    *g = (mm_bench_gated_t){ 0 };
    for (unsigned w = 0; w < warmup; w++) {
        base->run(base->arg);
        ideal->run(ideal->arg);
        yours->run(yours->arg);
    }
    for (unsigned r = 0; r < reps; r++) {
        t[r] = time_once(base);
        t[reps + r] = time_once(ideal);
        t[2 * reps + r] = time_once(yours);
    }
    gated_medians(t, reps, min_contrast, t + 3 * reps, g);
    free(t);
    return 0;
}

/* The C library functions the benchmarks' baselines, the timer and the median call. */
#define FN(f) { #f, (void (*)(void))(f) }
static const struct { const char *name; void (*fn)(void); } system_fns[] = {
    FN(memcpy), FN(memmove), FN(memset), FN(memcmp), FN(malloc), FN(calloc), FN(realloc),
    FN(free), FN(posix_memalign), FN(aligned_alloc), FN(qsort), FN(clock_gettime),
    FN(pthread_create), FN(pthread_join), FN(pread), FN(mmap), FN(munmap), FN(madvise),
};
#undef FN

/* Where an address lies: in the program itself (the first object dl_iterate_phdr reports) or
 * in a shared library. */
typedef struct {
    uintptr_t addr;
    unsigned seen;      /* objects visited so far */
    int in_program;     /* the address is in the program itself */
    int fixed_address;  /* the program is not position-independent (load bias 0) */
} where_t;

static int find_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    where_t *w = arg;
    unsigned first = w->seen++ == 0;
    if (first)
        w->fixed_address = info->dlpi_addr == 0;
    for (unsigned i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && w->addr >= lo && w->addr < lo + ph->p_memsz) {
            w->in_program = (int)first;
            return 1;
        }
    }
    return 0;
}

/* The first of system_fns that the program defines itself (a definition in the code under test
 * would win over the C library's for the whole program, the baseline and the timer included),
 * or NULL. Sanitizer builds, whose run-time library defines these on purpose, and programs that
 * are not position-independent (there the address of a library function is a stub inside the
 * program) are not checked: the build already keeps the student's definitions to the
 * student's own calls (common/student-object.sh). */
static const char *interposed_fn(void)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    return NULL;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
    return NULL;
#endif
#endif
    for (size_t i = 0; i < sizeof system_fns / sizeof system_fns[0]; i++) {
        where_t w = { .addr = (uintptr_t)system_fns[i].fn };
        dl_iterate_phdr(find_object, &w);
        if (w.fixed_address)
            return NULL;
        if (w.in_program)
            return system_fns[i].name;
    }
    return NULL;
}

/* Set by mm_bench_begin when the check fails: every metric is then reported failed. */
static const char *refused_fn;

#define REFUSAL "the benchmark refuses to score: %s is defined inside the program, not taken " \
                "from the system's C library (code under test may not replace what the " \
                "baseline and the timer call)"

void mm_bench_begin(mm_json_t *j, const char *lab)
{
    refused_fn = interposed_fn();
    if (refused_fn)
        fprintf(stderr, "mlmem: " REFUSAL "\n", refused_fn);
    mm_json_str(j, "lab", lab);
    mm_json_object(j, "metrics");
}

void mm_bench_open(mm_json_t *j, const char *lab)
{
    guard();
    mm_json_begin(j, mm_bench_output());
    if (mm_seal_on())
        j->on_end = send_report;
    mm_bench_begin(j, lab);
}

/* fmt and its arguments as a string on the heap (free it), or NULL without memory. */
static char *vformat(const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s)
        vsnprintf(s, (size_t)n + 1, fmt, again);
    va_end(again);
    return s;
}

#define NO_MEMORY "(the benchmark ran out of memory writing this line)"

/* One metric as {key: text}. */
static void metric_note(mm_json_t *j, const char *name, const char *key, const char *text)
{
    mm_json_object(j, name);
    mm_json_str(j, key, text);
    mm_json_close(j, '}');
}

/* What every metric says once the check in mm_bench_begin has failed. */
static void refused(mm_json_t *j, const char *name)
{
    char why[sizeof REFUSAL + 64];
    snprintf(why, sizeof why, REFUSAL, refused_fn);
    metric_note(j, name, "error", why);
}

void mm_bench_metric(mm_json_t *j, const char *name, double value, const char *unit,
                     const char *detail)
{
    if (refused_fn) {
        refused(j, name);
        return;
    }
    mm_json_object(j, name);
    mm_json_num(j, "value", value);
    mm_json_str(j, "unit", unit);
    mm_json_str(j, "detail", detail);
    mm_json_close(j, '}');
}

void mm_bench_skip(mm_json_t *j, const char *name, const char *reason)
{
    if (refused_fn)
        refused(j, name);
    else
        metric_note(j, name, "skipped", reason);
}

void mm_bench_fail(mm_json_t *j, const char *name, const char *why)
{
    if (refused_fn)
        refused(j, name);
    else
        metric_note(j, name, "error", why);
}

void mm_bench_metricf(mm_json_t *j, const char *name, double value, const char *unit,
                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *detail = vformat(fmt, ap);
    va_end(ap);
    mm_bench_metric(j, name, value, unit, detail ? detail : NO_MEMORY);
    free(detail);
}

/* say(j, name, text) for each name of names (NULL-terminated), text from fmt and ap. */
static void say_all(mm_json_t *j, const char *const *names,
                    void (*say)(mm_json_t *, const char *, const char *), const char *fmt,
                    va_list ap)
{
    char *text = vformat(fmt, ap);
    for (; *names; names++)
        say(j, *names, text ? text : NO_MEMORY);
    free(text);
}

void mm_bench_skipf(mm_json_t *j, const char *name, const char *fmt, ...)
{
    const char *const one[] = { name, NULL };
    va_list ap;
    va_start(ap, fmt);
    say_all(j, one, mm_bench_skip, fmt, ap);
    va_end(ap);
}

void mm_bench_failf(mm_json_t *j, const char *name, const char *fmt, ...)
{
    const char *const one[] = { name, NULL };
    va_list ap;
    va_start(ap, fmt);
    say_all(j, one, mm_bench_fail, fmt, ap);
    va_end(ap);
}

void mm_bench_skip_all(mm_json_t *j, const char *const *names, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say_all(j, names, mm_bench_skip, fmt, ap);
    va_end(ap);
}

void mm_bench_fail_all(mm_json_t *j, const char *const *names, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say_all(j, names, mm_bench_fail, fmt, ap);
    va_end(ap);
}

void mm_bench_speedup(mm_json_t *j, const char *name, double ratio, const char *base_name,
                      double t_base, double t_yours, unsigned reps, const char *workload_fmt, ...)
{
    va_list ap;
    va_start(ap, workload_fmt);
    char *workload = vformat(workload_fmt, ap);
    va_end(ap);
    mm_bench_metricf(j, name, ratio, "x", "%s %.1f ms, yours %.1f ms (medians of %u rounds, %s)",
                     base_name, t_base * 1e3, t_yours * 1e3, reps, workload ? workload : "?");
    free(workload);
}

void mm_bench_end_metrics(mm_json_t *j)
{
    mm_json_close(j, '}');
}
