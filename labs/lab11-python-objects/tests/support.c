/* Lab 11 tests: the harness's end of the workloads of serve/ (see support.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mm_call.h"
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

void tu_ok(const char *code)
{
    char text[PO_TEXT_MAX];
    if (py(0, code, text) != 0)
        ck_abort_msg("%s\n  (in the test's Python code:\n%s)", text, code);
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
    char why[PO_TEXT_MAX];
    tu_eval("harness.learns(train_loop)", why, sizeof why);
    ck_assert_msg(!why[0], "%s", why);
}
