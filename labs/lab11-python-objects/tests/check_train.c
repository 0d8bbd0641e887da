/* Lab 11 tests, part C: your src/train_loop.py still trains, and leaves nothing behind: no loss
 * holding its graph, no Tensor kept by a global, no staging buffer left open, and memory flat
 * over 200 steps (tracemalloc). The measurements are the provided py/harness.py's, run in your
 * process with your train_loop; the harness checks the numbers they answer. */
#include <stdio.h>
#include "support.h"

/* Bytes per step that tracemalloc may see kept (a float per step in a list, and noise). */
#define MAX_GROWTH_PER_STEP 512

MM_TEST(test_train_losses_are_floats)
{
    tu_load_train_loop();
    long n = tu_long("harness.losses_hold_graphs(train_loop)");
    ck_assert_msg(n == 0, "%ld of the 20 losses train() returned are not floats: each keeps its "
                  "step's whole graph alive", n);
}
MM_END_TEST

MM_TEST(test_train_leaves_no_tensors)
{
    tu_load_train_loop();
    long tensors = tu_long("harness.survivors(train_loop)[0]");
    ck_assert_msg(tensors == 0, "%ld Tensors outlive train() and its result (after gc.collect()): "
                  "something global still refers to them", tensors);
}
MM_END_TEST

MM_TEST(test_train_closes_stagers)
{
    tu_load_train_loop();
    long stagers = tu_long("harness.survivors(train_loop)[1]");
    ck_assert_msg(stagers == 0, "%ld Stagers of 20 steps are still open after train() and "
                  "gc.collect(): their buffers are never given back", stagers);
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
}
MM_END_TEST
