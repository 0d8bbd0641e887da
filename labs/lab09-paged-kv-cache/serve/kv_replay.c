/* Lab 09's replay workload (kv_replay, serve/kv_serve.h): a shipped trace through the student's
 * scheduler and cache, in the student's process, logging after every step each live sequence's
 * block table and tokens (what changed since its last record). The benchmark rebuilds the
 * state from the log, checks it and counts every figure itself. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "kv_serve.h"
#include "trace.h"

/* What the log last said of one sequence id. */
typedef struct {
    int live;
    uint32_t len, tlen, kcap, tcap;
    uint32_t *table;
    kv_token_t *tok;
} snap_t;

static struct {
    int on, done;
    kv_trace_t t;
    kv_cache_t *c;
    kv_sched_t *s;
    size_t next;
    uint32_t steps, stats_every;
    uint32_t scan; /* the ids logging looks at: 0 .. scan - 1 */
    snap_t seq[KV_MAX_SEQS];
    uint32_t *tab, tabcap, tokcap; /* one sequence's table and tokens, as read */
    kv_token_t *tok;
    unsigned char *rec; /* the step's record being built, or not yet delivered */
    size_t rec_len, rec_cap, pending;
} R;

static void replay_end(void)
{
    kv_sched_destroy(R.s);
    kv_destroy(R.c);
    kv_trace_free(&R.t);
    for (int i = 0; i < KV_MAX_SEQS; i++) {
        free(R.seq[i].table);
        free(R.seq[i].tok);
    }
    free(R.tab);
    free(R.tok);
    free(R.rec);
    memset(&R, 0, sizeof R);
}

static int replay_begin(const kv_replay_in_t *a)
{
    replay_end();
    int rc = kv_trace_load(a->trace, &R.t);
    if (rc)
        return rc;
    kv_config_t cfg = { a->num_blocks, a->block_size, true, NULL };
    kv_sched_config_t sc = { a->max_seqs };
    if ((rc = kv_create(&R.c, &cfg)) || (rc = kv_sched_create(&R.s, R.c, &sc))) {
        replay_end();
        return rc < 0 ? rc : -EIO;
    }
    R.on = 1;
    R.stats_every = a->stats_every ? a->stats_every : 1;
    R.scan = a->max_seqs < KV_MAX_SEQS / 2 ? 2 * a->max_seqs : KV_MAX_SEQS;
    return 0;
}

/* Appends n bytes to the record (8-byte aligned pieces). 0 or -ENOMEM. */
static int put(const void *p, size_t n)
{
    size_t need = R.rec_len + ((n + 7) & ~(size_t)7);
    if (need > R.rec_cap) {
        size_t cap = R.rec_cap ? R.rec_cap : 1 << 16;
        while (cap < need)
            cap *= 2;
        unsigned char *q = realloc(R.rec, cap);
        if (!q)
            return -ENOMEM;
        R.rec = q;
        R.rec_cap = cap;
    }
    memcpy(R.rec + R.rec_len, p, n);
    memset(R.rec + R.rec_len + n, 0, need - R.rec_len - n);
    R.rec_len = need;
    return 0;
}

/* The first index where a[0..na) and b[0..nb) differ (min(na, nb) if one is a prefix). */
static uint32_t first_diff(const void *a, uint32_t na, const void *b, uint32_t nb, size_t sz)
{
    uint32_t n = na < nb ? na : nb, i = 0;
    if (memcmp(a, b, (size_t)n * sz) == 0) /* the usual case: only appended to */
        return n;
    while (i < n && memcmp((const char *)a + i * sz, (const char *)b + i * sz, sz) == 0)
        i++;
    return i;
}

/* Swaps two buffers and their capacities. */
static void swap_buf(void **a, uint32_t *acap, void **b, uint32_t *bcap)
{
    void *p = *a;
    uint32_t c = *acap;
    *a = *b;
    *acap = *bcap;
    *b = p;
    *bcap = c;
}

/* Logs sequence id if live (its table and tokens read through the student's cache). What was
 * read becomes the sequence's snapshot by swapping buffers: nothing is copied twice. */
static int log_seq(int32_t id, uint32_t *nseq)
{
    snap_t *p = &R.seq[id];
    int64_t len = kv_seq_len(R.c, id), tlen = len < 0 ? len : kv_block_table(R.c, id, NULL, 0);
    if (len < 0 || tlen < 0) {
        p->live = 0;
        return 0;
    }
    if (len > KV_MAX_SEQ_LEN || tlen > KV_MAX_SEQ_LEN ||
        kv_grow((void **)&R.tab, &R.tabcap, (uint32_t)tlen + 1, sizeof *R.tab) ||
        kv_grow((void **)&R.tok, &R.tokcap, (uint32_t)len + 1, sizeof *R.tok))
        return -ENOMEM;
    if (kv_block_table(R.c, id, R.tab, (uint32_t)tlen) != tlen ||
        kv_read(R.c, id, R.tok, (uint32_t)len) != len)
        return -EIO;
    kv_rec_seq_t r = { id, (uint32_t)len, (uint32_t)tlen, 0, 0 };
    if (p->live) {
        r.tfrom = first_diff(p->table, p->tlen, R.tab, r.tlen, sizeof *R.tab);
        r.kfrom = first_diff(p->tok, p->len, R.tok, r.len, sizeof *R.tok);
    }
    swap_buf((void **)&p->table, &p->tcap, (void **)&R.tab, &R.tabcap);
    swap_buf((void **)&p->tok, &p->kcap, (void **)&R.tok, &R.tokcap);
    p->live = 1;
    p->len = r.len;
    p->tlen = r.tlen;
    (*nseq)++;
    return put(&r, sizeof r) ?: put(p->table + r.tfrom, (r.tlen - r.tfrom) * sizeof *p->table) ?:
           put(p->tok + r.kfrom, (r.len - r.kfrom) * sizeof *p->tok);
}

/* Logs the live sequences among ids from .. to - 1. 0, or a negative errno. */
static int log_ids(uint32_t from, uint32_t to, uint32_t *nseq)
{
    int rc = 0;
    for (uint32_t id = from; id < to && !rc; id++)
        rc = log_seq((int32_t)id, nseq);
    return rc;
}

/* Runs one step and builds its record in R.rec. 0, or a negative errno (*where says what).
 * Sequence ids are the lowest free (kvcache.h), so the live ones are below twice max_seqs;
 * should the scheduler run more sequences than those ids hold, every id is looked at from then
 * on. */
static int one_step(int32_t *where)
{
    kv_rec_step_t h;
    int rc;
    memset(&h, 0, sizeof h);
    *where = 1;
    while (R.next < R.t.n && R.t.arrival[R.next] <= R.steps)
        if ((rc = kv_sched_submit(R.s, &R.t.req[R.next++])))
            return rc;
    *where = 2;
    if ((rc = kv_sched_step(R.s, &h.res)))
        return rc;
    R.done = R.next == R.t.n && kv_sched_idle(R.s);
    *where = 3;
    if ((R.steps % R.stats_every == 0 || R.done) && (rc = kv_get_stats(R.c, &h.st)))
        return rc;
    h.submitted = (uint32_t)R.next;
    R.rec_len = 0;
    if ((rc = put(&h, sizeof h)))
        return rc;
    if ((rc = log_ids(0, R.scan, &h.nseq)))
        return rc;
    if (h.nseq < h.res.running_seqs && R.scan < KV_MAX_SEQS) { /* ids past the lowest free */
        rc = log_ids(R.scan, KV_MAX_SEQS, &h.nseq);
        R.scan = KV_MAX_SEQS;
        if (rc)
            return rc;
    }
    memcpy(R.rec, &h, sizeof h); /* nseq is known now */
    R.steps++;
    return 0;
}

int serve_kv_replay(const void *in, size_t in_len, void *out, size_t out_len)
{
    kv_replay_in_t a;
    kv_replay_out_t o = { 0, 0, 0 };
    if (in_len != sizeof a || out_len != sizeof o)
        return -EINVAL;
    memcpy(&a, in, sizeof a);
    int rc = a.begin ? replay_begin(&a) : R.on ? 0 : -EINVAL;
    unsigned char *log = (unsigned char *)(uintptr_t)a.log;
    uint32_t logged = 0;
    while (rc == 0 && logged < a.max_steps && (R.pending || !R.done)) {
        if (!R.pending && (rc = one_step(&o.where)))
            break;
        R.pending = 1;
        if (R.rec_len > a.cap - o.used) {
            rc = o.used ? 0 : -ENOSPC;
            break;
        }
        memcpy(log + o.used, R.rec, R.rec_len);
        o.used += R.rec_len;
        R.pending = 0;
        logged++;
    }
    o.done = R.on && R.done && !R.pending;
    memcpy(out, &o, sizeof o);
    if (rc < 0 || o.done)
        replay_end();
    return rc < 0 ? rc : (int)logged;
}
