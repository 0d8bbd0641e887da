/* Benchmark harness: warm-up, paired repeats, median ratio; and the one JSON object every lab's
 * benchmark prints for the grader:
 *   {"lab": "01", "metrics": {NAME: {"value": V, "unit": U, "detail": D} |
 *                                   {"skipped": REASON} | {"error": WHY}, ...},
 *    "series": {...}, "info": {...}}
 * Metric names and thresholds are declared in the lab's lab.toml; the grader scores them. */
#ifndef MM_BENCH_H
#define MM_BENCH_H
#include "mm_attr.h"
#include <stddef.h>
#include <stdio.h>
#include "mm_json.h"

typedef struct {
    const char *name;
    void (*run)(void *arg); /* one timed repetition */
    void *arg;
} mm_bench_case_t;

#define MM_BENCH_MAX_REPS 101

/* Times `base` and `yours` back to back in each of `reps` rounds (after `warmup` rounds) and
 * returns the median over rounds of t_base / t_yours in *ratio: both sides of each ratio see the
 * same machine load, so a busy neighbour moves it less than it moves either time. Also writes
 * each side's median seconds (t_base, t_yours; may be NULL). reps 1..MM_BENCH_MAX_REPS.
 * Returns 0, -EINVAL or -ENOMEM. */
MM_MUST_CHECK int mm_bench_paired_ratio(const mm_bench_case_t *base, const mm_bench_case_t *yours,
                          unsigned warmup, unsigned reps, double *ratio, double *t_base,
                          double *t_yours);

/* What mm_bench_gated_ratio measured. */
typedef struct {
    double speedup;   /* median over counted rounds of t_base / t_yours */
    double vs_ideal;  /* median over counted rounds of t_ideal / t_yours (about 1: as good) */
    double contrast;  /* median over all rounds of t_base / t_ideal: the effect this run showed */
    double t_base, t_yours; /* medians over counted rounds, seconds */
    unsigned counted; /* rounds in which t_base / t_ideal >= min_contrast */
} mm_bench_gated_t;

/* The gate inside the measurement: in each of `reps` rounds (after `warmup`) times `base` (the
 * naive layout), `ideal` (the benchmark's own version of the effect, never the student's code)
 * and `yours`, in turn. A round counts only if this machine showed the effect in it,
 * t_base / t_ideal >= min_contrast, so a load that comes and goes during the run costs rounds,
 * not points. Fills *g (see mm_bench_gated_t; with no round counted, speedup, vs_ideal and the
 * times are 0). reps 1..MM_BENCH_MAX_REPS. Returns 0, -EINVAL or -ENOMEM. */
MM_MUST_CHECK int mm_bench_gated_ratio(const mm_bench_case_t *base, const mm_bench_case_t *ideal,
                         const mm_bench_case_t *yours, unsigned warmup, unsigned reps,
                         double min_contrast, mm_bench_gated_t *g);

/* Median of v[0..n) (n >= 1); sorts v in place, ascending (its quantiles are then v[k]). */
double mm_median(double *v, size_t n);

/* Where the report goes: the file named by MLMEM_BENCH_JSON (set by the grader, so that text the
 * code under test prints cannot pass for the report), else stdout. Never NULL. */
FILE *mm_bench_output(void);

#if defined(__GNUC__) || defined(__clang__)
#define MM_BENCH_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define MM_BENCH_PRINTF(fmt, args)
#endif

/* Opens the report: starts the JSON object on mm_bench_output() and calls mm_bench_begin. What a
 * benchmark's main calls first. */
void mm_bench_open(mm_json_t *j, const char *lab);

/* Writes the opening of the bench object and opens "metrics". First checks that the C library
 * functions the baselines and the timer call (memcpy, malloc, clock_gettime, pthread_create, ...)
 * come from the system's libraries and not from a definition inside the program (a student's file
 * that defines one); if one does not, the benchmark refuses to score: it says why on stderr, and
 * every metric written after, measured or skipped, is reported failed with that reason. */
void mm_bench_begin(mm_json_t *j, const char *lab);

/* Inside "metrics", one metric each: measured (value, unit and a detail people read), skipped
 * (this run or machine cannot show the effect: not scored, with the reason), or failed (the code
 * under test did not produce it: scored zero, with why). The ...f forms take the detail or the
 * reason as printf's format and arguments, of any length. */
void mm_bench_metric(mm_json_t *j, const char *name, double value, const char *unit,
                     const char *detail);
void mm_bench_metricf(mm_json_t *j, const char *name, double value, const char *unit,
                      const char *fmt, ...) MM_BENCH_PRINTF(5, 6);
void mm_bench_skip(mm_json_t *j, const char *name, const char *reason);
void mm_bench_skipf(mm_json_t *j, const char *name, const char *fmt, ...) MM_BENCH_PRINTF(3, 4);
void mm_bench_fail(mm_json_t *j, const char *name, const char *why);
void mm_bench_failf(mm_json_t *j, const char *name, const char *fmt, ...) MM_BENCH_PRINTF(3, 4);

/* The same reason for every metric of `names` (NULL-terminated): skipped, or failed. */
void mm_bench_skip_all(mm_json_t *j, const char *const *names, const char *fmt, ...)
    MM_BENCH_PRINTF(3, 4);
void mm_bench_fail_all(mm_json_t *j, const char *const *names, const char *fmt, ...)
    MM_BENCH_PRINTF(3, 4);

/* Inside "metrics": a speed-up from mm_bench_paired_ratio, with the detail people read:
 * "<base_name> 17.7 ms, yours 4.9 ms (medians of 25 rounds, <workload>)"; the workload is
 * printf's format and arguments. */
void mm_bench_speedup(mm_json_t *j, const char *name, double ratio, const char *base_name,
                      double t_base, double t_yours, unsigned reps, const char *workload_fmt, ...)
    MM_BENCH_PRINTF(8, 9);

/* Closes "metrics"; the caller may then add "series" / "info" objects and call mm_json_end. */
void mm_bench_end_metrics(mm_json_t *j);

/* Whether this run should measure the plots' series where they cost time of their own (work the
 * metrics do not need): 1 unless MLMEM_BENCH_SERIES=0, which the grader sets on the runs whose
 * series nobody draws (the reference's, and each round after the first). */
int mm_bench_series_wanted(void);

#endif
