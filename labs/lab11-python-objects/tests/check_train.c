/* Lab 11 tests, part C: your src/train_loop.py still trains, and leaves nothing behind: no loss
 * holding its graph, no Tensor kept by a global, no staging buffer left open, and memory flat
 * over 200 steps (tracemalloc). Those measurements are the provided py/harness.py's, run in your
 * process with your train_loop: that process's word, so they can only fail a test. What passes
 * one is memory as the kernel counts it, read by the harness from /proc (support.h): what train()
 * keeps after it returned, and what its result holds per step. */
#include <stdio.h>
#include "support.h"

/* Bytes per step that tracemalloc may see kept (a float per step in a list, and noise). */
#define MAX_GROWTH_PER_STEP 512

/* Seen from outside: train(KEPT_STEPS) run KEPT_RUNS times after one to settle, each result
 * dropped; a step's graph is about 100 KiB and a Stager's mapping 8 KiB, so what a leak keeps
 * is 1 MiB or more, far above what may stay. */
#define KEPT_STEPS 40
#define KEPT_RUNS 4
#define KEPT_MAX_KIB 256
/* What a result may hold per step beyond what train() keeps: a float and its list slot, and
 * the heap's noise (a step's graph is about 100 KiB). Measured as the result of
 * train(HELD_LONG) held against train(HELD_SHORT)'s. */
#define HELD_MAX_PER_STEP 8192
#define HELD_SHORT 10
#define HELD_LONG 50

/* The repeat workload's callable for train(steps, seed=11), into buf. */
static const char *train_case(char *buf, size_t cap, int steps)
{
    snprintf(buf, cap, "lambda big: train_loop.train(%d, seed=11)", steps);
    return buf;
}

/* KiB your process kept over KEPT_RUNS runs of train(KEPT_STEPS), their results dropped:
 * measured once per test (its own process), for both checks below. */
static long kept_by_train(void)
{
    static long kept = -1;
    char fn[96];
    if (kept < 0)
        kept = tu_kept_kib(train_case(fn, sizeof fn, KEPT_STEPS), KEPT_RUNS);
    return kept;
}

static void assert_train_keeps_nothing(void)
{
    if (!tu_memory_shows())
        return;
    long kib = kept_by_train();
    ck_assert_msg(kib <= KEPT_MAX_KIB, "%d runs of train(%d), their results dropped, kept %ld KiB "
                  "of your process's memory (read from /proc; at most %d KiB may stay): "
                  "something global still holds each step's Tensors or Stagers", KEPT_RUNS,
                  KEPT_STEPS, kib, KEPT_MAX_KIB);
}

/* Bytes per step that train()'s result holds, less what train() keeps after it returns (per
 * step, as kept_by_train measured it). */
static long held_per_step(void)
{
    char fn[96];
    long kept_per_step = kept_by_train() * 1024 / (KEPT_RUNS * KEPT_STEPS);
    tu_rss_delta_kib(train_case(fn, sizeof fn, HELD_SHORT), 1, 1);
    long grew = tu_rss_delta_kib(train_case(fn, sizeof fn, HELD_LONG), 1, 1);
    tu_rss_delta_kib("lambda big: None", 1, 0); /* drops the result held */
    return grew * 1024 / (HELD_LONG - HELD_SHORT) - kept_per_step;
}

static void assert_result_holds_little(void)
{
    if (!tu_memory_shows())
        return;
    long b = held_per_step();
    ck_assert_msg(b <= HELD_MAX_PER_STEP, "train()'s result holds %ld bytes of your process's "
                  "memory per step (read from /proc; at most %d): each loss it keeps holds its "
                  "step's graph", b, HELD_MAX_PER_STEP);
}

MM_TEST(test_train_losses_are_floats)
{
    tu_load_train_loop();
    long n = tu_long("harness.losses_hold_graphs(train_loop)");
    ck_assert_msg(n == 0, "%ld of the 20 losses train() returned are not floats: each keeps its "
                  "step's whole graph alive", n);
    assert_result_holds_little();
}
MM_END_TEST

MM_TEST(test_train_leaves_no_tensors)
{
    tu_load_train_loop();
    long tensors = tu_long("harness.survivors(train_loop)[0]");
    ck_assert_msg(tensors == 0, "%ld Tensors outlive train() and its result (after gc.collect()): "
                  "something global still refers to them", tensors);
    assert_train_keeps_nothing();
}
MM_END_TEST

MM_TEST(test_train_closes_stagers)
{
    tu_load_train_loop();
    long stagers = tu_long("harness.survivors(train_loop)[1]");
    ck_assert_msg(stagers == 0, "%ld Stagers of 20 steps are still open after train() and "
                  "gc.collect(): their buffers are never given back", stagers);
    assert_train_keeps_nothing();
}
MM_END_TEST

MM_TEST(test_train_memory_flat)
{
    tu_load_train_loop();
    char g[PO_TEXT_MAX];
    long grown, steps;
    tu_eval("harness.growth(train_loop)", g, sizeof g);
    ck_assert_msg(strcmp(g, "None") != 0, "on_step was not called at the steps measured");
    ck_assert_msg(sscanf(g, "(%ld, %ld)", &grown, &steps) == 2 && steps > 0,
                  "harness.growth answered %s", g);
    ck_assert_msg(grown <= MAX_GROWTH_PER_STEP * steps, "memory grew by %ld bytes over %ld steps "
                  "(%ld per step; at most %d allowed)", grown, steps, grown / steps,
                  MAX_GROWTH_PER_STEP);
    assert_train_keeps_nothing();
    assert_result_holds_little();
}
MM_END_TEST
