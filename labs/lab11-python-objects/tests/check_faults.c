/* Lab 11 tests, parts A and B under allocation failure: each scenario runs once per allocation it
 * makes, with that allocation failing (support.h, tu_sweep); every run must fail cleanly (NULL
 * and an exception), crash nothing (a crash ends your process: the harness sees that itself),
 * and leave no reference behind. Your functions are called from C (serve/counting.c), so the
 * failures land in your code and in what it calls. The objects whose references are
 * counted are made at run time (tu_assert_counted; sizes and items above 256): Python 3.12+ counts
 * no reference to an immortal object (PEP 683), so a leak of one would go unseen. */
#include <stdio.h>
#include "support.h"

/* What every sweep must show: clean failures, no leak, and some allocation actually failed.
 * The scenario (serve/counting.c) runs in your process; its argument is `arg_expr` evaluated
 * there before the sweep. Those findings are that process's word, so they can only fail a test;
 * what passes one is the kernel's count: the sweep again, over fresh big objects (`big_expr`, of
 * big), many times, each keeping nothing (support.h, tu_assert_nothing_kept). */
static void assert_clean_sweep(const char *what, const char *scenario, const char *arg_expr,
                               const char *big_expr)
{
    po_sweep_out_t s;
    tu_sweep(scenario, arg_expr, &s);
    ck_assert_msg(!s.bad[0], "%s: %s", what, s.bad);
    char first[160] = "";
    if (s.first_leak_at > 0 && s.first_leak_done)
        snprintf(first, sizeof first, "; the first leak: the run with no allocation failing left "
                 "%ld", (long)s.first_leak_refs);
    else if (s.first_leak_at > 0)
        snprintf(first, sizeof first, "; the first leak: with allocation %d failing, %ld "
                 "reference(s) left", (int)s.first_leak_at, (long)s.first_leak_refs);
    ck_assert_msg(s.refs_left == 0, "%s: %ld reference(s) left behind over %d runs, each with "
                  "one allocation failing%s", what, (long)s.refs_left, s.runs / 2, first);
    ck_assert_msg(s.failed_runs > 0, "%s: no allocation of it ever failed", what);
    char fn[PO_CODE_MAX], name[200];
    snprintf(fn, sizeof fn, "lambda big: sweep('%s', %s)", scenario, big_expr);
    snprintf(name, sizeof name, "%s, each allocation failing in turn", what);
    tu_assert_nothing_kept(name, fn);
}

/* The TensorBuf scenario also checks that a resize failing with MemoryError left its object
 * unchanged (serve/counting.c, resize_checked). */
MM_TEST(test_alloc_failures_tensorbuf)
{
    tu_assert_counted("harness.mortal_ints(3, 4, 5, 6)");
    assert_clean_sweep("TensorBuf, resize, transpose", "tensorbuf_life",
                       "(harness.mortal_ints(3, 4), 'f')",
                       "(harness.padded(harness.BigList, big, (512, 512)), "
                       "harness.padded(harness.BigStr, big, 'f'))");
}
MM_END_TEST

MM_TEST(test_alloc_failures_group_by)
{
    tu_run("items = list(harness.mortal_ints(*(i * 37 %% 13 for i in range(40))))\n");
    tu_assert_counted("items + [str(x) for x in items]");
    assert_clean_sweep("group_by(40 ints in 13 groups, str)", "group_by", "(items, str)",
                       "([big(i % 3) for i in range(6)], lambda w: harness.BigKey(w, big))");
}
MM_END_TEST

MM_TEST(test_alloc_failures_batches)
{
    /* A list, not an iterator: each run iterates it afresh. */
    tu_run("items = list(harness.mortal_ints(*range(20)))\n");
    tu_assert_counted("items");
    assert_clean_sweep("batches(20 items, 3), every batch taken", "batches_drain", "(items, 3)",
                       "([[big(i)] for i in range(7)], 3)");
}
MM_END_TEST

MM_TEST(test_alloc_failures_collate)
{
    /* CPython's own exporters, whose references the debug interpreter counts (not NumPy's); 8
     * kinds of sample, 264 samples of 261 floats: the collated shape's ints are above 256. */
    tu_run("import array\n"
          "n, = harness.mortal_ints(4)\n"
          "kinds = [array.array('f', [i] * n) for i in range(6)]\n"
          "kinds += [pyobj.TensorBuf((n,)), memoryview(bytes(4 * n)).cast('f')]\n");
    tu_assert_counted("kinds");
    assert_clean_sweep("collate(264 samples of 261 floats)", "collate", "kinds * 33",
                       "[big(i) for i in range(4)] + [memoryview(big(5))]");
}
MM_END_TEST
