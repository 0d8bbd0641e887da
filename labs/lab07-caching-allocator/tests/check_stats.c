/* Lab 07 tests: statistics, exactly on a known sequence, and long random sequences of allocs,
 * frees, stream uses, completions and empty_cache checked against invariants after every step,
 * from the outside: the device's own counters and a model of what must be live and pending. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "allocator.h"
#include "mm_check.h"
#include "support.h"

MM_TEST(test_stats_consistent)
{
    td_t t;
    td_open(&t, 64 * MIB);
    ca_stats_t s = td_stats(&t), zero;
    memset(&zero, 0, sizeof zero);
    ck_assert_msg(memcmp(&s, &zero, sizeof s) == 0, "a new allocator's statistics are all zero");
    void *p1 = td_alloc(&t, 1000, 0), *p2 = td_alloc(&t, 3000000, 0);
    td_free(&t, p1);
    s = td_stats(&t);
    ck_assert_msg(s.allocated_bytes[CA_STAT_ALL].current == 3000320 &&
                  s.allocated_bytes[CA_STAT_ALL].peak == 3000320 + 1024 &&
                  s.allocated_bytes[CA_STAT_SMALL].current == 0 &&
                  s.allocated_bytes[CA_STAT_SMALL].peak == 1024 &&
                  s.allocated_bytes[CA_STAT_LARGE].current == 3000320,
                  "allocated_bytes: rounded sizes, current and peak, per pool");
    ck_assert_msg(s.reserved_bytes[CA_STAT_ALL].current == 22 * MIB &&
                  s.reserved_bytes[CA_STAT_SMALL].current == 2 * MIB &&
                  s.reserved_bytes[CA_STAT_LARGE].current == 20 * MIB,
                  "reserved_bytes: one 2 MiB and one 20 MiB segment");
    ck_assert_msg(s.active_bytes[CA_STAT_ALL].current == 3000320 &&
                  s.allocations.current == 1 && s.allocations.peak == 2 &&
                  s.segments.current == 2 && s.raw_allocs == 2 && s.raw_frees == 0,
                  "active, allocations, segments and raw calls after 2 allocs and 1 free");
    ca_reset_peak_stats(t.a);
    s = td_stats(&t);
    ck_assert_msg(s.allocated_bytes[CA_STAT_ALL].peak == 3000320 && s.allocations.peak == 1 &&
                  s.reserved_bytes[CA_STAT_ALL].peak == 22 * MIB,
                  "ca_reset_peak_stats: every peak becomes its current value");
    td_free(&t, p2);
    MM_ASSERT_OK(ca_empty_cache(t.a));
    s = td_stats(&t);
    ck_assert_msg(s.reserved_bytes[CA_STAT_ALL].current == 0 && s.segments.current == 0 &&
                  s.raw_frees == 2 && s.reserved_bytes[CA_STAT_ALL].peak == 22 * MIB,
                  "empty_cache: nothing reserved, two raw frees, the peak stays");
    td_close(&t);
}
MM_END_TEST

/* ---- the random sequence and its model ---- */

enum { NS = 4, MAXLIVE = 48, MAXPEND = 64, OPS = 3000 };
#define CAPACITY (128 * MIB)

typedef struct {
    unsigned char *p;
    size_t size, block;
    uint32_t tag;
    ca_stream_t stream;
    unsigned uses; /* bit s: also used on stream s (not its own) */
} live_t;

typedef struct {
    unsigned char *p;
    size_t block;
    int small;
    uint64_t seq[NS]; /* done when completed[s] >= seq[s] for every used s */
    unsigned uses;
} pend_t;

typedef struct {
    td_t t;
    mm_rng_t r;
    live_t live[MAXLIVE];
    pend_t pend[MAXPEND];
    size_t nlive, npend;
    uint64_t launched[NS], completed[NS], ooms, max_alloc;
    unsigned long op;
    ca_stats_t st; /* your statistics after the last call (one call for them per step) */
} model_t;

static void refresh(model_t *m)
{
    m->st = td_stats(&m->t);
}

static int pend_done(const model_t *m, const pend_t *e)
{
    for (int s = 0; s < NS; s++)
        if ((e->uses >> s & 1) && m->completed[s] < e->seq[s])
            return 0;
    return 1;
}

/* What the allocator does when it processes events: finished frees leave the pending list. */
static void model_process(model_t *m)
{
    size_t keep = 0;
    for (size_t i = 0; i < m->npend; i++)
        if (!pend_done(m, &m->pend[i]))
            m->pend[keep++] = m->pend[i];
    m->npend = keep;
}

static void model_sync(model_t *m)
{
    memcpy(m->completed, m->launched, sizeof m->completed);
    model_process(m);
}

/* PyTorch's rounding, the harness's own (part A's tests check yours): the next multiple of
 * 512, at least 512. */
static size_t rounded(size_t size)
{
    size_t up = (size + CA_MIN_BLOCK - 1) / CA_MIN_BLOCK * CA_MIN_BLOCK;
    return up ? up : CA_MIN_BLOCK;
}

static int small(size_t size)
{
    return rounded(size) <= MIB;
}

static int overlaps(const unsigned char *p, size_t n, const unsigned char *q, size_t k)
{
    return p < q + k && q < p + n;
}

static void check_new_block(const model_t *m, const unsigned char *p, size_t size, size_t block)
{
    size_t want = rounded(size);
    if (want <= MIB)
        MM_CHECK(block == want, "op %lu: a small-pool block of %zu bytes for %zu: small "
                 "blocks are always split to the rounded size", m->op, block, size);
    else
        MM_CHECK(block >= want && block - want <= MIB && block % 512 == 0,
                 "op %lu: large block of %zu bytes for %zu: at most 1 MiB unsplit extra",
                 m->op, block, size);
    for (size_t i = 0; i < m->nlive; i++)
        MM_CHECK(!overlaps(p, block, m->live[i].p, m->live[i].block),
                 "op %lu: new block %p overlaps live block %p", m->op, (const void *)p,
                 (const void *)m->live[i].p);
    for (size_t i = 0; i < m->npend; i++)
        MM_CHECK(!overlaps(p, block, m->pend[i].p, m->pend[i].block),
                 "op %lu: new block %p reuses %p, freed while another stream used it, "
                 "before that stream's work was known to be done", m->op, (const void *)p,
                 (const void *)m->pend[i].p);
}

static size_t random_size(mm_rng_t *r)
{
    if (mm_rng_range(r, 0, 99) == 0)
        return 300 * MIB; /* more than the device has: must fail cleanly */
    return (size_t)mm_rng_range(r, 1, (uint64_t)1 << mm_rng_range(r, 1, 24));
}

static void step_alloc(model_t *m)
{
    size_t size = random_size(&m->r);
    ca_stream_t s = (ca_stream_t)mm_rng_range(&m->r, 0, NS - 2);
    uint64_t retries = m->st.num_alloc_retries;
    void *p = NULL;
    int rc = ca_alloc(m->t.a, size, s, &p);
    refresh(m);
    if (m->st.num_alloc_retries != retries)
        model_sync(m); /* the retry released the cache after a synchronize */
    else
        model_process(m);
    if (rc == -ENOMEM) {
        m->ooms++;
        MM_CHECK(m->st.num_alloc_retries == retries + 1,
                 "op %lu: -ENOMEM only after exactly one retry", m->op);
        return;
    }
    MM_CHECK(rc == 0 && size < CAPACITY, "op %lu: ca_alloc(%zu) returned %d", m->op, size, rc);
    live_t l = { p, size, ca_block_size(m->t.a, p), (uint32_t)m->op, s, 0 };
    MM_CHECK((uintptr_t)p % 512 == 0 && ca_simdev_owns(m->t.dev, p, l.block),
             "op %lu: block %p not 512-aligned or not in device memory", m->op, p);
    check_new_block(m, p, size, l.block);
    td_fill(&m->t, p, size, l.tag);
    m->live[m->nlive++] = l;
}

/* The program uses a live block on another stream too (torch: x.record_stream(s)). */
static void step_use(model_t *m)
{
    live_t *l = &m->live[mm_rng_range(&m->r, 0, m->nlive - 1)];
    ca_stream_t u = (ca_stream_t)mm_rng_range(&m->r, 0, NS - 1);
    MM_ASSERT_OK(ca_record_stream(m->t.a, l->p, u));
    ca_simdev_launch(m->t.dev, u);
    m->launched[u]++;
    if (u != l->stream)
        l->uses |= 1u << u;
}

/* Lets every stream finish and the allocator see it (keeps the pending list bounded). */
static void drain(model_t *m)
{
    for (ca_stream_t u = 0; u < NS; u++)
        ca_simdev_complete(m->t.dev, u);
    MM_ASSERT_OK(ca_process_events(m->t.a));
    memcpy(m->completed, m->launched, sizeof m->completed);
    model_process(m);
}

static void step_free(model_t *m)
{
    if (m->npend == MAXPEND)
        drain(m);
    size_t i = (size_t)mm_rng_range(&m->r, 0, m->nlive - 1);
    live_t l = m->live[i];
    MM_CHECK(td_intact(&m->t, l.p, l.size, l.tag), "op %lu: live block %p was overwritten", m->op,
             (void *)l.p);
    MM_ASSERT_OK(ca_free(m->t.a, l.p));
    m->live[i] = m->live[--m->nlive];
    if (!l.uses)
        return; /* back in the pool at once */
    pend_t e = { l.p, l.block, small(l.size), { 0 }, l.uses };
    memcpy(e.seq, m->launched, sizeof e.seq);
    m->pend[m->npend++] = e;
}

static void step_other(model_t *m)
{
    unsigned k = (unsigned)mm_rng_range(&m->r, 0, 9);
    if (k < 6) {
        ca_stream_t u = (ca_stream_t)mm_rng_range(&m->r, 0, NS - 1);
        ca_simdev_complete(m->t.dev, u);
        m->completed[u] = m->launched[u];
    } else if (k < 9) {
        MM_ASSERT_OK(ca_process_events(m->t.a));
        model_process(m);
    } else {
        MM_ASSERT_OK(ca_empty_cache(m->t.a));
        model_sync(m);
        refresh(m);
        MM_CHECK(m->st.segments.current <= m->nlive,
                 "op %lu: after empty_cache every segment left holds a live block", m->op);
    }
}

/* Bytes live and pending per stat kind; the most events the pending frees can hold (one per
 * other stream that used the block; an allocator may release each as soon as it is done). */
static void sums(const model_t *m, uint64_t alloc[3], uint64_t pending[3], uint64_t *events)
{
    memset(alloc, 0, 3 * sizeof *alloc);
    memset(pending, 0, 3 * sizeof *pending);
    *events = 0;
    for (size_t i = 0; i < m->nlive; i++) {
        alloc[0] += m->live[i].block;
        alloc[small(m->live[i].size) ? 1 : 2] += m->live[i].block;
    }
    for (size_t i = 0; i < m->npend; i++) {
        pending[0] += m->pend[i].block;
        pending[m->pend[i].small ? 1 : 2] += m->pend[i].block;
        *events += (uint64_t)__builtin_popcount(m->pend[i].uses);
    }
}

static void check_invariants(model_t *m)
{
    refresh(m);
    const ca_stats_t s = m->st;
    ca_simdev_stats_t d = td_dev(&m->t);
    uint64_t alloc[3], pending[3], events;
    sums(m, alloc, pending, &events);
    if (alloc[0] > m->max_alloc)
        m->max_alloc = alloc[0];
    for (int k = 0; k < 3; k++) {
        MM_CHECK(s.allocated_bytes[k].current == alloc[k] &&
                 s.active_bytes[k].current == alloc[k] + pending[k],
                 "op %lu: stat kind %d: allocated %llu (want %llu), active %llu (want %llu: "
                 "allocated + freed blocks waiting for streams)", m->op, k,
                 (unsigned long long)s.allocated_bytes[k].current,
                 (unsigned long long)alloc[k], (unsigned long long)s.active_bytes[k].current,
                 (unsigned long long)(alloc[k] + pending[k]));
        MM_CHECK(s.active_bytes[k].current <= s.reserved_bytes[k].current &&
                 s.allocated_bytes[k].current <= s.allocated_bytes[k].peak &&
                 s.active_bytes[k].current <= s.active_bytes[k].peak &&
                 s.reserved_bytes[k].current <= s.reserved_bytes[k].peak,
                 "op %lu: active <= reserved and current <= peak must hold", m->op);
    }
    MM_CHECK(s.reserved_bytes[0].current == d.live_bytes &&
             s.reserved_bytes[0].peak == d.peak_bytes && s.segments.current == d.live_regions,
             "op %lu: reserved (current, peak) and segments must match the device's count",
             m->op);
    MM_CHECK(s.raw_allocs == d.alloc_calls && s.raw_frees == d.free_calls &&
             d.free_errors == 0, "op %lu: raw call counts must match the device's", m->op);
    MM_CHECK(s.allocations.current == m->nlive && s.num_ooms == m->ooms &&
             s.allocated_bytes[0].peak == m->max_alloc,
             "op %lu: allocations %llu (want %zu), OOMs %llu (want %llu) or allocated peak "
             "%llu (want %llu) wrong", m->op, (unsigned long long)s.allocations.current,
             m->nlive, (unsigned long long)s.num_ooms, (unsigned long long)m->ooms,
             (unsigned long long)s.allocated_bytes[0].peak,
             (unsigned long long)m->max_alloc);
    MM_CHECK(d.live_events >= m->npend && d.live_events <= events,
             "op %lu: %zu events outstanding for %zu pending frees (at most %llu): events "
             "are recorded at ca_free, one per other stream, and released once done",
             m->op, d.live_events, m->npend, (unsigned long long)events);
}

MM_TEST(test_random_sequences_invariants)
{
    model_t *m = calloc(1, sizeof *m);
    ck_assert_ptr_nonnull(m);
    m->r = MM_RNG();
    td_open(&m->t, CAPACITY);
    for (m->op = 0; m->op < OPS; m->op++) {
        unsigned k = (unsigned)mm_rng_range(&m->r, 0, 99);
        if (m->nlive == 0 || (k < 45 && m->nlive < MAXLIVE))
            step_alloc(m);
        else if (k < 85)
            step_free(m);
        else if (k < 92)
            step_use(m);
        else
            step_other(m);
        check_invariants(m);
    }
    while (m->nlive > 0)
        step_free(m);
    MM_ASSERT_OK(ca_empty_cache(m->t.a));
    model_sync(m);
    check_invariants(m);
    ck_assert_msg(td_dev(&m->t).live_bytes == 0, "all freed + empty_cache: nothing reserved");
    td_close(&m->t);
    free(m);
}
MM_END_TEST
