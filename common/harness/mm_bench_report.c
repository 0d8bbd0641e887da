/* Benchmark harness, the report (see mm_bench.h): the one JSON object every benchmark prints,
 * sealed to the grader when it asks (mm_seal.h), and the sealing and confinement that start
 * before any code under test runs (mm_bench_open). */
#include "mm_bench.h"
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mm_confine.h"
#include "mm_interpose.h"
#include "mm_seal.h"

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

/* Set by mm_bench_begin when the check fails: every metric is then reported failed. */
static const char *refused_fn;

#define REFUSAL "the benchmark refuses to score: %s is defined inside the program, not taken " \
                "from the system's C library (code under test may not replace what the " \
                "baseline and the timer call)"

void mm_bench_begin(mm_json_t *j, const char *lab)
{
    refused_fn = mm_interposed_fn();
    if (refused_fn)
        fprintf(stderr, "mlmem: " REFUSAL "\n", refused_fn);
    mm_json_str(j, "lab", lab);
    mm_json_object(j, "metrics");
}

int mm_bench_series_wanted(void)
{
    const char *v = getenv("MLMEM_BENCH_SERIES");
    return !(v && strcmp(v, "0") == 0);
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
