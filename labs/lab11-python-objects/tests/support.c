/* Lab 11 tests: the harness's end of the workloads of serve/ (see support.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <stdint.h>
#include "mm_call.h"
#include "mm_proc.h"
#include "replay.h"
#include "support.h"

/* Fails the test when a workload answered an error of the boundary's or the interpreter's
 * (rc < 0): what it said is in text. */
static void assert_served(const char *workload, int rc, const char *text)
{
    ck_assert_msg(rc >= 0, "%s: %s%s%s", workload, strerror(-rc), text[0] ? ": " : "", text);
}

/* The py workload; rc 0 or 1 (Python raised), the value or the exception in text. */
static int py(int eval, const char *code, char *text)
{
    static po_py_in_t req;
    ck_assert_msg(strlen(code) < sizeof req.code, "a test's Python code is too long");
    req.eval = eval;
    snprintf(req.code, sizeof req.code, "%s", code);
    text[0] = 0;
    int rc = mm_call_work("py", &req, sizeof req, text, PO_TEXT_MAX);
    text[PO_TEXT_MAX - 1] = 0;
    assert_served("py", rc, text);
    return rc;
}

/* The statements tu_run ran last: what a failed query's message says it came after. */
static char last_run[400];

/* printf(fmt, ap) into code[PO_CODE_MAX]; fails the test when it does not fit. */
static void format_code(char *code, const char *fmt, va_list ap)
{
    int n = vsnprintf(code, PO_CODE_MAX, fmt, ap);
    ck_assert_msg(n >= 0 && n < PO_CODE_MAX, "a test's Python code is too long");
}

void tu_run(const char *fmt, ...)
{
    char code[PO_CODE_MAX], text[PO_TEXT_MAX];
    va_list ap;
    va_start(ap, fmt);
    format_code(code, fmt, ap);
    va_end(ap);
    if (py(0, code, text) != 0)
        ck_abort_msg("%s\n  (in the test's Python code:\n%s)", text, code);
    snprintf(last_run, sizeof last_run, "%.*s", (int)sizeof last_run - 1, code);
}

void tu_expect(const char *want, const char *fmt, ...)
{
    char expr[PO_CODE_MAX], call[PO_CODE_MAX + 16], got[PO_TEXT_MAX];
    va_list ap;
    va_start(ap, fmt);
    format_code(expr, fmt, ap);
    va_end(ap);
    snprintf(call, sizeof call, "ascii(%s)", expr);
    if (py(1, call, got) != 0)
        ck_abort_msg("asked for %s: it raised %s; expected %s\n  (after:\n%s)", expr, got, want,
                     last_run);
    ck_assert_msg(strcmp(got, want) == 0, "asked for %s: got %s; expected %s\n  (after:\n%s)",
                  expr, got, want, last_run);
}

/* 1 if `name` is one of the '|'-joined names of `names`. */
static int among(const char *name, const char *names)
{
    size_t n = strlen(name);
    for (const char *p = names; *p; p += strcspn(p, "|"), p += *p == '|')
        if (strcspn(p, "|") == n && strncmp(p, name, n) == 0)
            return 1;
    return 0;
}

/* 1 if the exception class named `got` is one `exc` allows: one it names, or a built-in
 * subclass of one (the harness knows the hierarchy: no answer can claim a class is many). */
static int raised_one_of(const char *got, const char *exc)
{
    static const char *const parent[][2] = {
        { "UnicodeError", "ValueError" }, { "UnicodeDecodeError", "UnicodeError" },
        { "UnicodeEncodeError", "UnicodeError" }, { "UnicodeTranslateError", "UnicodeError" },
        { "ZeroDivisionError", "ArithmeticError" }, { "OverflowError", "ArithmeticError" },
        { "KeyError", "LookupError" }, { "IndexError", "LookupError" },
    };
    const char *name = got;
    for (int hops = 0; name; hops++) {
        if (among(name, exc))
            return 1;
        const char *up = NULL;
        for (size_t i = 0; i < sizeof parent / sizeof parent[0] && hops < 4; i++)
            if (strcmp(parent[i][0], name) == 0)
                up = parent[i][1];
        name = up;
    }
    return 0;
}

void tu_expect_raises(const char *what, const char *exc, const char *fmt, ...)
{
    char fn[PO_CODE_MAX], got[PO_TEXT_MAX];
    va_list ap;
    va_start(ap, fmt);
    format_code(fn, fmt, ap);
    va_end(ap);
    if (py(2, fn, got) != 0)
        ck_abort_msg("%s: %s", what ? what : fn, got);
    if (!exc[0])
        ck_assert_msg(!got[0], "%s: raised %s; expected it to return", what ? what : fn, got);
    else if (!got[0])
        ck_abort_msg("%s: returned; expected it to raise %s", what ? what : fn, exc);
    else
        ck_assert_msg(raised_one_of(got, exc), "%s: raised %s; expected %s", what ? what : fn,
                      got, exc);
}

void tu_cat(tu_text_t *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->s + t->n, sizeof t->s - t->n, fmt, ap);
    va_end(ap);
    ck_assert_msg(n >= 0 && (size_t)n < sizeof t->s - t->n, "a test's expected answer is too long");
    t->n += (size_t)n;
}

void tu_cat_tuple(tu_text_t *t, const long *v, int n)
{
    tu_cat(t, "(");
    for (int i = 0; i < n; i++)
        tu_cat(t, "%s%ld", i ? ", " : "", v[i]);
    tu_cat(t, n == 1 ? ",)" : ")");
}

void tu_cat_hex(tu_text_t *t, const void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tu_cat(t, "%02x", ((const unsigned char *)p)[i]);
}

static const tu_format_t formats[] = {
    { 'b', 1, "|i1", 0 }, { 'B', 1, "|u1", 0 }, { 'h', 2, "<i2", 0 }, { 'H', 2, "<u2", 0 },
    { 'i', 4, "<i4", 0 }, { 'I', 4, "<u4", 0 }, { 'q', 8, "<i8", 0 }, { 'Q', 8, "<u8", 0 },
    { 'f', 4, "<f4", 1 }, { 'd', 8, "<f8", 1 },
};

const tu_format_t *tu_pick_format(mm_rng_t *r, int ints_only)
{
    size_t n = sizeof formats / sizeof formats[0] - (ints_only ? 2 : 0);
    return &formats[mm_rng_range(r, 0, n - 1)];
}

void tu_encode(const tu_format_t *f, double v, unsigned char *out)
{
    union { int8_t b; uint8_t B; int16_t h; uint16_t H; int32_t i; uint32_t I; int64_t q;
            uint64_t Q; float f; double d; } u;
    switch (f->code) {
    case 'b': u.b = (int8_t)v; break;
    case 'B': u.B = (uint8_t)v; break;
    case 'h': u.h = (int16_t)v; break;
    case 'H': u.H = (uint16_t)v; break;
    case 'i': u.i = (int32_t)v; break;
    case 'I': u.I = (uint32_t)v; break;
    case 'q': u.q = (int64_t)v; break;
    case 'Q': u.Q = (uint64_t)v; break;
    case 'f': u.f = (float)v; break;
    default: u.d = v; break;
    }
    memcpy(out, &u, (size_t)f->itemsize);
}

long tu_c_strides(const long *shape, int ndim, long itemsize, long *strides)
{
    long s = itemsize, n = itemsize;
    for (int d = ndim - 1; d >= 0; d--) {
        strides[d] = s;
        s *= shape[d] > 0 ? shape[d] : 1;
        n *= shape[d];
    }
    return n;
}

const char *tu_eval(const char *expr, char *buf, size_t cap)
{
    char text[PO_TEXT_MAX];
    if (py(1, expr, text) != 0)
        ck_abort_msg("%s raised %s", expr, text);
    snprintf(buf, cap, "%s", text);
    return buf;
}

long tu_long(const char *expr)
{
    char text[PO_TEXT_MAX], *end;
    tu_eval(expr, text, sizeof text);
    errno = 0;
    long v = strtol(text, &end, 10);
    ck_assert_msg(text[0] && !*end && errno == 0, "%s is not an int: %s", expr, text);
    return v;
}

void tu_assert_counted(const char *expr)
{
    char call[512], found[PO_TEXT_MAX];
    int n = snprintf(call, sizeof call, "ascii(harness.uncounted(%s))[:200]", expr);
    ck_assert_msg(n > 0 && (size_t)n < sizeof call, "tu_assert_counted: expression too long");
    tu_eval(call, found, sizeof found);
    ck_assert_msg(strcmp(found, "[]") == 0, "the test's inputs %s include objects whose "
                  "references this Python does not count (immortal, PEP 683): %s", expr, found);
}

long tu_refs_left(const char *expr, int reps)
{
    static po_refs_in_t req;
    static po_refs_out_t ans;
    ck_assert_msg(strlen(expr) < sizeof req.code, "tu_refs_left: expression too long");
    req.reps = reps;
    snprintf(req.code, sizeof req.code, "%s", expr);
    memset(&ans, 0, sizeof ans);
    int rc = mm_call_work("refs_left", &req, sizeof req, &ans, sizeof ans);
    ans.text[sizeof ans.text - 1] = 0;
    assert_served("refs_left", rc, ans.text);
    ck_assert_msg(rc == 0, "%s raised %s", expr, ans.text);
    return (long)ans.left;
}

void tu_getbuffer(const char *name, int flags, po_getbuffer_out_t *out)
{
    po_getbuffer_in_t req = { .flags = flags };
    ck_assert_msg(strlen(name) < sizeof req.name, "tu_getbuffer: name too long");
    snprintf(req.name, sizeof req.name, "%s", name);
    memset(out, 0, sizeof *out);
    int rc = mm_call_work("getbuffer", &req, sizeof req, out, sizeof *out);
    out->text[sizeof out->text - 1] = 0;
    out->raised[sizeof out->raised - 1] = 0;
    out->format[sizeof out->format - 1] = 0;
    assert_served("getbuffer", rc, out->text);
    ck_assert_msg(rc == 0, "%s raised %s", name, out->text);
}

void tu_sweep(const char *scenario, const char *arg_expr, po_sweep_out_t *out)
{
    static po_sweep_in_t req;
    ck_assert_msg(strlen(arg_expr) < sizeof req.arg, "tu_sweep: expression too long");
    snprintf(req.scenario, sizeof req.scenario, "%s", scenario);
    snprintf(req.arg, sizeof req.arg, "%s", arg_expr);
    memset(out, 0, sizeof *out);
    int rc = mm_call_work("sweep", &req, sizeof req, out, sizeof *out);
    out->text[sizeof out->text - 1] = 0;
    out->bad[sizeof out->bad - 1] = 0;
    ck_assert_msg(rc != -E2BIG, "%s: the scenario made more than %d allocations", scenario,
                  PO_SWEEP_MAX_RUNS);
    assert_served("sweep", rc, out->text);
    ck_assert_msg(rc == 0, "%s raised %s", arg_expr, out->text);
}

void tu_load_train_loop(void)
{
    char text[PO_TEXT_MAX] = "";
    int rc = mm_call_work("train_loop", NULL, 0, text, sizeof text);
    text[sizeof text - 1] = 0;
    assert_served("train_loop", rc, text);
    ck_assert_msg(rc == 0, "%s", text);
    tu_assert_train_replays(150);
}

/* ---- memory as the kernel counts it ------------------------------------------------------ */

/* Your process's RssAnon (/proc/<pid>/status), in KiB. */
static long rss_anon_kib(void)
{
    FILE *f = mm_proc_fopen(mm_student_pid(), "status");
    MM_CHECK(f, "cannot read /proc/<your process>/status: %s", strerror(errno));
    char line[256];
    long kib = -1;
    while (kib < 0 && fgets(line, sizeof line, f))
        if (sscanf(line, "RssAnon: %ld kB", &kib) != 1)
            kib = -1;
    fclose(f);
    MM_CHECK(kib >= 0, "/proc/<your process>/status has no RssAnon line");
    return kib;
}

/* The repeat workload; fails the test on an error of the boundary's. */
static void repeat(const char *expr, int reps, int hold)
{
    static po_repeat_in_t req;
    char text[PO_TEXT_MAX] = "";
    ck_assert_msg(strlen(expr) < sizeof req.code, "repeat: expression too long");
    req.reps = reps;
    req.hold = hold;
    snprintf(req.code, sizeof req.code, "%s", expr);
    int rc = mm_call_work("repeat", &req, sizeof req, text, sizeof text);
    text[sizeof text - 1] = 0;
    assert_served("repeat", rc, text);
    ck_assert_msg(rc == 0, "%s raised %s", expr, text);
}

long tu_rss_delta_kib(const char *expr, int reps, int hold)
{
    long before = rss_anon_kib();
    repeat(expr, reps, hold);
    return rss_anon_kib() - before;
}

int tu_memory_shows(void)
{
#if defined(__SANITIZE_ADDRESS__)
    return 0; /* freed memory waits in AddressSanitizer's quarantine: the count would show it */
#else
    static int state; /* 1: it shows; -1: it does not (the test is marked skipped); 0: not known */
    enum { N = 32 };
    if (state)
        return state > 0;
    repeat("lambda big: None", 1, 0); /* the heap's free pages given back first */
    long held = tu_rss_delta_kib("lambda big: big(1)", N, 1);
    repeat("lambda big: None", 1, 0); /* gives them back */
    state = held >= N * (PO_BIG_BYTES >> 10) * 3 / 4 ? 1 : -1;
    if (state < 0)
        mm_test_skip("holding %d KiB grew your process's RssAnon by only %ld KiB: this kernel "
                     "cannot show a leak's memory", N * (PO_BIG_BYTES >> 10), held);
    return state > 0;
#endif
}

long tu_kept_kib(const char *expr, int reps)
{
    repeat(expr, reps / 4 > 0 ? reps / 4 : 1, 0);
    return tu_rss_delta_kib(expr, reps, 0);
}

/* Calls per case, and what they may keep: a leak keeps at least 64 KiB a call (4 MiB in all);
 * the heap's own growth, settled, is far less. */
#define KEPT_REPS 64
#define KEPT_MAX_KIB 1024

void tu_assert_nothing_kept(const char *what, const char *expr)
{
    if (!tu_memory_shows())
        return;
    long kib = tu_kept_kib(expr, KEPT_REPS);
    ck_assert_msg(kib <= KEPT_MAX_KIB, "%s: %d calls on new objects kept %ld KiB of your "
                  "process's memory (read from /proc: at most %d KiB may stay): a reference "
                  "to them, or to what holds them, is never given back", what, KEPT_REPS, kib,
                  KEPT_MAX_KIB);
}
