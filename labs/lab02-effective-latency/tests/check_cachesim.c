/* Lab 02 tests, part C: the set-associative LRU cache simulator against hand-computed traces and
 * against a second, independent model. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cachesim.h"
#include "mm_call.h"
#include "mm_check.h"
#include "../serve/cache_trace.h"

typedef struct {
    uint64_t addr;
    size_t size;
    int missed; /* what el_cache_access must return */
} step_t;

static void run_steps(el_cache_t *c, const step_t *s, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        int got = el_cache_access(c, s[i].addr, s[i].size);
        ck_assert_msg(got == s[i].missed, "%s, access %zu (%zu bytes at %llu): %d lines missed, "
                      "expected %d", what, i, s[i].size, (unsigned long long)s[i].addr, got,
                      s[i].missed);
    }
}

static void assert_stats(const el_cache_t *c, uint64_t h, uint64_t m, uint64_t e, const char *what)
{
    el_cache_stats_t s = el_cache_stats(c);
    ck_assert_msg(s.hits == h && s.misses == m && s.evictions == e,
                  "%s: hits %llu misses %llu evictions %llu, expected %llu %llu %llu", what,
                  (unsigned long long)s.hits, (unsigned long long)s.misses,
                  (unsigned long long)s.evictions, (unsigned long long)h, (unsigned long long)m,
                  (unsigned long long)e);
}

MM_TEST(test_cache_direct_mapped)
{
    /* 4 sets x 1 way x 16 B: addresses 0, 64, 128 ... all map to set 0 and evict each other. */
    const step_t s[] = { { 0, 1, 1 },  { 4, 1, 0 },  { 64, 1, 1 }, { 0, 1, 1 }, { 16, 1, 1 },
                         { 80, 1, 1 }, { 20, 1, 1 }, { 32, 1, 1 }, { 36, 1, 0 } };
    el_cache_t *c = NULL;
    MM_ASSERT_OK(el_cache_create(&c, 4, 1, 16));
    run_steps(c, s, sizeof s / sizeof *s, "direct-mapped 4 x 1 x 16");
    assert_stats(c, 2, 7, 4, "direct-mapped 4 x 1 x 16");
    el_cache_destroy(c);
}
MM_END_TEST

MM_TEST(test_cache_lru_order)
{
    /* One set of 2 ways, lines of 8 B; A = 0, B = 8, C = 16. LRU (not FIFO) picks the victim:
     * A B A C(evicts B) A B(evicts C) C(evicts A) B A(evicts C). */
    const step_t s[] = { { 0, 1, 1 },  { 8, 1, 1 },  { 0, 1, 0 },  { 16, 1, 1 }, { 0, 1, 0 },
                         { 8, 1, 1 },  { 16, 1, 1 }, { 8, 1, 0 },  { 0, 1, 1 } };
    el_cache_t *c = NULL;
    MM_ASSERT_OK(el_cache_create(&c, 1, 2, 8));
    run_steps(c, s, sizeof s / sizeof *s, "2-way LRU");
    assert_stats(c, 3, 6, 4, "2-way LRU");
    el_cache_destroy(c);
}
MM_END_TEST

MM_TEST(test_cache_line_crossing)
{
    /* 4 sets x 2 ways x 16 B. An access counts once per line it touches. */
    const step_t s[] = {
        { 12, 8, 2 },  /* bytes 12..19: lines 0 and 1 */
        { 12, 8, 0 },  /* both hit now */
        { 0, 64, 2 },  /* lines 0..3: 0 and 1 hit, 2 and 3 miss */
        { 63, 1, 0 },  /* line 3 */
        { 32, 16, 0 }, /* exactly line 2 */
        { 60, 8, 1 },  /* lines 3 (hit) and 4 (set 0, second way: no eviction) */
        { 128, 16, 1 } /* line 8, set 0 is full: evicts line 0, its least recently used */
    };
    el_cache_t *c = NULL;
    MM_ASSERT_OK(el_cache_create(&c, 4, 2, 16));
    run_steps(c, s, sizeof s / sizeof *s, "line-crossing accesses");
    assert_stats(c, 7, 6, 1, "line-crossing accesses");
    el_cache_destroy(c);
}
MM_END_TEST

/* A second model, written differently: every way remembers when it was last used. */
typedef struct {
    size_t sets, ways, line;
    uint64_t *tag, *used, clock, hits, misses, evictions; /* used == 0: invalid way */
} model_t;

static int model_line(model_t *m, uint64_t ln)
{
    size_t base = (size_t)(ln % m->sets) * m->ways, victim = base;
    m->clock++;
    for (size_t w = base; w < base + m->ways; w++) {
        if (m->used[w] && m->tag[w] == ln) {
            m->used[w] = m->clock;
            m->hits++;
            return 0;
        }
        if (m->used[w] < m->used[victim])
            victim = w;
    }
    m->misses++;
    m->evictions += m->used[victim] != 0;
    m->tag[victim] = ln;
    m->used[victim] = m->clock;
    return 1;
}

static int model_access(model_t *m, uint64_t addr, size_t size)
{
    int missed = 0;
    for (uint64_t ln = addr / m->line; ln <= (addr + size - 1) / m->line; ln++)
        missed += model_line(m, ln);
    return missed;
}

/* A trace of random accesses through your cache in one call of the cache_trace workload, each
 * access's result checked against the model's. The trace and the results are read from the
 * harness's own copies (t): the shared arrays (q) are the student's process's to change. */
typedef struct {
    uint64_t *addr, *size;
    int32_t *missed;
} trace_t;

static void check_random_trace(mm_rng_t *r, el_cache_t *c, model_t *m, el_trace_in_t *q,
                               const trace_t *t)
{
    uint64_t span = 3 * m->sets * m->ways * m->line;
    for (uint64_t i = 0; i < q->n; i++) {
        t->addr[i] = mm_rng_range(r, 0, span);
        t->size[i] = mm_rng_range(r, 1, 2 * m->line);
    }
    memcpy((void *)(uintptr_t)q->addr, t->addr, q->n * sizeof *t->addr);
    memcpy((void *)(uintptr_t)q->size, t->size, q->n * sizeof *t->size);
    q->cache = (uintptr_t)c;
    MM_ASSERT_OK(mm_call_work("cache_trace", q, sizeof *q, NULL, 0));
    memcpy(t->missed, (const void *)(uintptr_t)q->missed, q->n * sizeof *t->missed);
    for (uint64_t i = 0; i < q->n; i++) {
        int want = model_access(m, t->addr[i], (size_t)t->size[i]);
        MM_CHECK(t->missed[i] == want, "%zu sets x %zu ways x %zu B, access %llu (%llu bytes at "
                 "%llu): %d lines missed, the model says %d", m->sets, m->ways, m->line,
                 (unsigned long long)i, (unsigned long long)t->size[i],
                 (unsigned long long)t->addr[i], t->missed[i], want);
    }
}

MM_TEST(test_cache_random_traces)
{
    enum { ACCESSES = 5000 };
    static uint64_t addr[ACCESSES], size[ACCESSES];
    static int32_t missed[ACCESSES];
    const trace_t t = { addr, size, missed };
    mm_rng_t r = MM_RNG();
    el_trace_in_t q = { 0, ACCESSES, (uintptr_t)mm_shared_alloc(ACCESSES * sizeof(uint64_t)),
                        (uintptr_t)mm_shared_alloc(ACCESSES * sizeof(uint64_t)),
                        (uintptr_t)mm_shared_alloc(ACCESSES * sizeof(int32_t)) };
    for (int round = 0; round < 40; round++) {
        model_t m = { (size_t)1 << mm_rng_range(&r, 0, 6), (size_t)mm_rng_range(&r, 1, 8),
                      (size_t)4 << mm_rng_range(&r, 0, 5), NULL, NULL, 0, 0, 0, 0 };
        m.tag = calloc(m.sets * m.ways, sizeof *m.tag);
        m.used = calloc(m.sets * m.ways, sizeof *m.used);
        ck_assert(m.tag && m.used);
        el_cache_t *c = NULL;
        MM_ASSERT_OK(el_cache_create(&c, m.sets, m.ways, m.line));
        check_random_trace(&r, c, &m, &q, &t);
        assert_stats(c, m.hits, m.misses, m.evictions, "a random trace");
        el_cache_destroy(c);
        free(m.tag);
        free(m.used);
    }
}
MM_END_TEST

MM_TEST(test_cache_reset_keeps_contents)
{
    el_cache_t *c = NULL;
    MM_ASSERT_OK(el_cache_create(&c, 2, 2, 64));
    MM_ASSERT_ERR(el_cache_access(c, 1000, 8), 1);
    el_cache_reset_stats(c);
    assert_stats(c, 0, 0, 0, "after el_cache_reset_stats");
    MM_ASSERT_ERR(el_cache_access(c, 1000, 8), 0);
    assert_stats(c, 1, 0, 0, "the line loaded before the reset must still be there");
    el_cache_reset_stats(NULL);
    el_cache_stats_t z = el_cache_stats(NULL);
    ck_assert_msg(z.hits == 0 && z.misses == 0 && z.evictions == 0, "stats of NULL must be 0");
    el_cache_destroy(c);
    el_cache_destroy(NULL);
}
MM_END_TEST

MM_TEST(test_cache_create_bad_args)
{
    el_cache_t *c = NULL;
    MM_ASSERT_ERR(el_cache_create(NULL, 4, 2, 64), -EINVAL);
    MM_ASSERT_ERR(el_cache_create(&c, 0, 2, 64), -EINVAL);
    MM_ASSERT_ERR(el_cache_create(&c, 3, 2, 64), -EINVAL);
    MM_ASSERT_ERR(el_cache_create(&c, 4, 0, 64), -EINVAL);
    MM_ASSERT_ERR(el_cache_create(&c, 4, EL_MAX_WAYS + 1, 64), -EINVAL);
    MM_ASSERT_ERR(el_cache_create(&c, 4, 2, 0), -EINVAL);
    MM_ASSERT_ERR(el_cache_create(&c, 4, 2, 48), -EINVAL);
    ck_assert_msg(c == NULL, "a failed create must not set *out");
}
MM_END_TEST

MM_TEST(test_cache_access_bad_args)
{
    el_cache_t *c = NULL;
    MM_ASSERT_OK(el_cache_create(&c, 4, 2, 64));
    MM_ASSERT_ERR(el_cache_access(NULL, 0, 8), -EINVAL);
    MM_ASSERT_ERR(el_cache_access(c, 0, 0), -EINVAL);
    MM_ASSERT_ERR(el_cache_access(c, 0, EL_MAX_ACCESS + 1), -EINVAL);
    MM_ASSERT_ERR(el_cache_access(c, UINT64_MAX - 2, 8), -EINVAL);
    assert_stats(c, 0, 0, 0, "rejected accesses must not be counted");
    MM_ASSERT_ERR(el_cache_access(c, UINT64_MAX - 7, 8), 1);
    assert_stats(c, 0, 1, 0, "the last 8 bytes of the address space are one line");
    el_cache_destroy(c);
}
MM_END_TEST
