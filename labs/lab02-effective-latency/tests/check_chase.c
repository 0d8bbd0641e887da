/* Lab 02 tests, part B: Sattolo's single cycle, the pointer chase and the staircase. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "chase.h"
#include "mm_call.h"
#include "mm_check.h"
#include "../serve/chase_chain.h"

/* Follows next[] from 0 and checks that it visits all n indices once, then comes back. */
static void assert_one_cycle(const size_t *next, size_t n)
{
    unsigned char *seen = calloc(n, 1);
    MM_CHECK(seen, "out of memory");
    size_t at = 0;
    for (size_t step = 0; step < n; step++) {
        MM_CHECK(at < n, "next[] leads to %zu, outside 0..%zu", at, n - 1);
        MM_CHECK(!seen[at], "n = %zu: index %zu comes back after only %zu steps: next[] has "
                 "a cycle shorter than n, so a chase would run in a smaller working set", n, at,
                 step);
        seen[at] = 1;
        at = next[at];
    }
    MM_CHECK(at == 0, "n = %zu: after n steps the walk is at %zu, not back at 0", n, at);
    free(seen);
}

MM_TEST(test_sattolo_one_cycle)
{
    mm_rng_t r = MM_RNG();
    for (int round = 0; round < 20; round++) {
        size_t n = (size_t)mm_rng_range(&r, 2, 100000);
        size_t *next = malloc(n * sizeof *next);
        ck_assert_ptr_nonnull(next);
        mm_rng_t g = mm_rng_new(mm_rng_next(&r));
        MM_ASSERT_OK(el_sattolo(next, n, &g));
        assert_one_cycle(next, n);
        free(next);
    }
}
MM_END_TEST

MM_TEST(test_sattolo_tiny)
{
    mm_rng_t g = MM_RNG();
    size_t one[1] = { 99 }, two[2] = { 7, 7 };
    MM_ASSERT_OK(el_sattolo(one, 1, &g));
    ck_assert_msg(one[0] == 0, "n = 1: the only cycle is 0 -> 0, got next[0] = %zu", one[0]);
    MM_ASSERT_OK(el_sattolo(two, 2, &g));
    ck_assert_msg(two[0] == 1 && two[1] == 0, "n = 2: the only cycle is 0 -> 1 -> 0, got "
                  "next = {%zu, %zu}", two[0], two[1]);
}
MM_END_TEST

/* n = 4 has 3! = 6 cycles through all four indices; Sattolo draws each with chance 1/6. */
MM_TEST(test_sattolo_uniform)
{
    mm_rng_t g = MM_RNG();
    unsigned count[4][4][4] = { { { 0 } } }; /* by next[0], next[1], next[2] */
    for (int draw = 0; draw < 6000; draw++) {
        size_t next[4];
        MM_ASSERT_OK(el_sattolo(next, 4, &g));
        assert_one_cycle(next, 4);
        count[next[0]][next[1]][next[2]]++;
    }
    unsigned kinds = 0;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            for (int c = 0; c < 4; c++) {
                unsigned k = count[a][b][c];
                kinds += k > 0;
                ck_assert_msg(k == 0 || (k > 850 && k < 1150), "the cycle starting {%d, %d, %d} "
                              "came %u times in 6000 draws; each of the 6 should come ~1000 times",
                              a, b, c, k);
            }
    ck_assert_msg(kinds == 6, "only %u of the 6 possible cycles of 4 ever came out", kinds);
}
MM_END_TEST

MM_TEST(test_sattolo_reproducible)
{
    enum { N = 1000 };
    size_t a[N], b[N], c[N];
    mm_rng_t r = MM_RNG();
    uint64_t seed = mm_rng_next(&r);
    mm_rng_t ga = mm_rng_new(seed), gb = mm_rng_new(seed), gc = mm_rng_new(seed + 1);
    MM_ASSERT_OK(el_sattolo(a, N, &ga));
    MM_ASSERT_OK(el_sattolo(b, N, &gb));
    MM_ASSERT_OK(el_sattolo(c, N, &gc));
    ck_assert_msg(memcmp(a, b, sizeof a) == 0, "the same seed must give the same permutation "
                  "(draw only from rng)");
    ck_assert_msg(memcmp(a, c, sizeof a) != 0, "different seeds gave the same permutation");
    size_t successor = 0;
    for (size_t i = 0; i < N; i++)
        successor += a[i] == (i + 1) % N;
    ck_assert_msg(successor < 20, "%zu of %d entries are next[i] = i + 1: a sequential chain is "
                  "one cycle too, but a prefetcher guesses it", successor, N);
}
MM_END_TEST

MM_TEST(test_sattolo_bad_args)
{
    mm_rng_t g = MM_RNG();
    size_t next[3] = { 5, 5, 5 };
    MM_ASSERT_ERR(el_sattolo(NULL, 3, &g), -EINVAL);
    MM_ASSERT_ERR(el_sattolo(next, 3, NULL), -EINVAL);
    MM_ASSERT_ERR(el_sattolo(next, 0, &g), -EINVAL);
    ck_assert_msg(next[0] == 5, "a rejected call must not write next[]");
}
MM_END_TEST

MM_TEST(test_chase_bad_args)
{
    double ns = -1;
    MM_ASSERT_ERR(el_chase_ns(1 << 16, 64, 1, NULL), -EINVAL);
    MM_ASSERT_ERR(el_chase_ns(1 << 16, 0, 1, &ns), -EINVAL);
    MM_ASSERT_ERR(el_chase_ns(1 << 16, 48, 1, &ns), -EINVAL);
    MM_ASSERT_ERR(el_chase_ns(1 << 16, 4, 1, &ns), -EINVAL);
    MM_ASSERT_ERR(el_chase_ns(64, 64, 1, &ns), -EINVAL);
    MM_ASSERT_ERR(el_chase_ns(1 << 16, 64, 0, &ns), -EINVAL);
    MM_ASSERT_ERR(el_chase_ns(1 << 16, 64, NAN, &ns), -EINVAL);
    MM_ASSERT_ERR(el_chase_ns(1 << 16, 64, 20000, &ns), -EINVAL);
    ck_assert_msg(ns == -1, "a rejected call must not write *ns");
}
MM_END_TEST

/* The chain el_chase_ns left in its buffer, as the student process read it out just before the
 * buffer was freed (the chase_chain workload: serve/chase_chain.c), followed here from node 0.
 * No clock involved. */
typedef struct {
    size_t n, line;     /* what the chase was asked for: n nodes of `line` bytes */
    int found;          /* a freed block began with a pointer into itself */
    int stray;          /* a node pointed outside the buffer or into the middle of a node */
    size_t stray_node;  /* ... that node */
    size_t visited;     /* nodes visited from node 0 before one came back */
    int closed;         /* the one that came back was node 0 */
    size_t same_stride; /* steps whose stride (next - this, mod n) is the step before's */
} chain_t;

/* Follows next[0..n) (a copy in this process) from node 0. */
static void look_at_chain(const uint64_t *next, chain_t *c)
{
    unsigned char *seen = calloc(c->n, 1);
    ck_assert_ptr_nonnull(seen);
    size_t at = 0, stride = SIZE_MAX;
    while (!seen[at]) {
        if (next[at] >= c->n) {
            c->stray = 1;
            c->stray_node = at;
            break;
        }
        seen[at] = 1;
        c->visited++;
        size_t to = (size_t)next[at], s = (to + c->n - at) % c->n;
        c->same_stride += s == stride;
        stride = s;
        at = to;
    }
    c->closed = !c->stray && at == 0;
    free(seen);
}

/* Runs el_chase_ns(bytes, line, 1 ms) in the student process and looks at its chain. */
static void chase_and_look(size_t bytes, size_t line, chain_t *c)
{
    *c = (chain_t){ .n = bytes / line, .line = line };
    uint64_t *shared = mm_shared_alloc(c->n * sizeof *shared);
    el_chain_in_t in = { bytes, line, 1.0, (uint64_t)(uintptr_t)shared };
    el_chain_out_t out = { -1, 0, 0 };
    int w = mm_call_work("chase_chain", &in, sizeof in, &out, sizeof out);
    ck_assert_msg(w == 0, "the chase_chain workload failed (%d)", w);
    ck_assert_msg(out.rc == 0, "el_chase_ns(%zu KiB, %zu-byte nodes, 1 ms) returned %d (%s)",
                  bytes >> 10, line, out.rc, strerror(-out.rc));
    c->found = out.found;
    if (!c->found)
        return;
    uint64_t *next = malloc(c->n * sizeof *next); /* ours: the student cannot change it */
    ck_assert_ptr_nonnull(next);
    memcpy(next, shared, c->n * sizeof *next);
    look_at_chain(next, c);
    free(next);
}

/* The chase's chain must be one random cycle through every node: a shorter cycle measures a
 * smaller working set; a chain with a fixed stride (node i -> i + 1, lmbench's default) is
 * one cycle too, but the prefetchers fetch it ahead and the staircase comes out flat. */
MM_TEST(test_chase_random_cycle)
{
    static const size_t cases[][2] = {
        { 64 << 10, 64 }, { 96 << 10, 64 }, { 256 << 10, 128 }, { 1 << 20, 64 }
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t kib = cases[i][0] >> 10, line = cases[i][1];
        chain_t c;
        chase_and_look(cases[i][0], line, &c);
        ck_assert_msg(c.found, "%zu KiB in %zu-byte nodes: no block freed with el_pages_free "
                      "began with a pointer into itself: link the nodes in the buffer from "
                      "el_pages_alloc, a pointer at the start of each, and free it with "
                      "el_pages_free (chase.h)", kib, line);
        ck_assert_msg(!c.stray, "%zu KiB in %zu-byte nodes: node %zu points outside the buffer "
                      "or into the middle of a node", kib, line, c.stray_node);
        ck_assert_msg(c.closed && c.visited == c.n, "%zu KiB in %zu-byte nodes: the chain from "
                      "node 0 comes back after %zu of the %zu nodes: the chase runs in a smaller "
                      "working set than asked (one cycle: Sattolo)", kib, line, c.visited, c.n);
        ck_assert_msg(c.same_stride < c.n / 64, "%zu KiB in %zu-byte nodes: %zu of %zu steps "
                      "have the same stride as the step before: the prefetchers see such a "
                      "chain coming (link node i to next[i] of el_sattolo)", kib, line,
                      c.same_stride, c.n);
    }
}
MM_END_TEST

MM_TEST(test_chase_other_lines)
{
    double a = 0, b = 0;
    MM_ASSERT_OK(el_chase_ns(8 << 10, 128, 2, &a));
    MM_ASSERT_OK(el_chase_ns(2 * sizeof(void *), sizeof(void *), 2, &b));
    ck_assert_msg(a > 0 && a < 1000 && b > 0 && b < 1000, "small chases took %g and %g ns per "
                  "load", a, b);
}
MM_END_TEST

MM_TEST(test_staircase_fills)
{
    size_t sizes[3] = { 4 << 10, 8 << 10, 16 << 10 }, bad[3] = { 4 << 10, 4 << 10, 8 << 10 };
    double ns[3] = { 0, 0, 0 }, untouched[3] = { -1, -1, -1 };
    MM_ASSERT_OK(el_staircase(sizes, 3, 64, 2, ns));
    for (int i = 0; i < 3; i++)
        ck_assert_msg(ns[i] > 0 && ns[i] < 1000, "ns[%d] = %g for %zu bytes", i, ns[i], sizes[i]);
    MM_ASSERT_ERR(el_staircase(bad, 3, 64, 2, untouched), -EINVAL);
    size_t tiny[2] = { 64, 4096 };
    MM_ASSERT_ERR(el_staircase(tiny, 2, 64, 2, untouched), -EINVAL);
    MM_ASSERT_ERR(el_staircase(sizes, 0, 64, 2, untouched), -EINVAL);
    MM_ASSERT_ERR(el_staircase(NULL, 3, 64, 2, untouched), -EINVAL);
    ck_assert_msg(untouched[0] == -1 && untouched[2] == -1,
                  "bad sizes must be rejected before anything is measured");
}
MM_END_TEST
