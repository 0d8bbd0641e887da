/* Lab 09: the scheduler step (include/scheduler.h): first-come-first-served admission under the
 * block budget, one decoded token per sequence per step, preemption of the request admitted
 * last when the cache runs out, and re-admission that prefills prompt + output so far. */
#include "scheduler.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A request inside the scheduler. */
typedef struct {
    const kv_request_t *r;
    int32_t seq[KV_MAX_SAMPLES];       /* -1: not live (finished, or not admitted) */
    uint32_t produced[KV_MAX_SAMPLES]; /* output tokens so far */
    uint32_t live;                     /* samples not finished */
} req_t;

struct kv_sched {
    kv_cache_t *c;
    uint32_t max_seqs, running_seqs;
    req_t **wait;                /* circular: wait[(whead + k) % wcap], k < nwait */
    uint32_t whead, nwait, wcap;
    req_t **run;                 /* admission order */
    uint32_t nrun, rcap;
    kv_token_t *buf;             /* a sample's prompt + output, for re-admission */
    uint32_t bufcap;
};

static int grow(void *pp, uint32_t *cap, size_t elem)
{
    uint32_t ncap = *cap ? 2 * *cap : 16;
    void *p = realloc(*(void **)pp, ncap * elem);
    if (!p)
        return -ENOMEM;
    *(void **)pp = p;
    *cap = ncap;
    return 0;
}

/* The waiting queue: a ring that grows (keeping its order). */
static int wait_grow(kv_sched_t *s)
{
    uint32_t old = s->wcap;
    if (grow(&s->wait, &s->wcap, sizeof *s->wait))
        return -ENOMEM;
    for (uint32_t k = 0; k < s->whead; k++) /* unwrap the part before the head */
        s->wait[(old + k) % s->wcap] = s->wait[k];
    return 0;
}

static void reset(req_t *q)
{
    for (uint32_t k = 0; k < KV_MAX_SAMPLES; k++) {
        q->seq[k] = -1;
        q->produced[k] = 0;
    }
    q->live = q->r->n;
}

int kv_sched_create(kv_sched_t **out, kv_cache_t *cache, const kv_sched_config_t *cfg)
{
    if (!out || !cache || !cfg || cfg->max_seqs == 0)
        return -EINVAL;
    kv_sched_t *s = calloc(1, sizeof *s);
    if (!s)
        return -ENOMEM;
    s->c = cache;
    s->max_seqs = cfg->max_seqs;
    *out = s;
    return 0;
}

void kv_sched_destroy(kv_sched_t *s)
{
    if (!s)
        return;
    for (uint32_t k = 0; k < s->nwait; k++)
        free(s->wait[(s->whead + k) % s->wcap]);
    for (uint32_t k = 0; k < s->nrun; k++)
        free(s->run[k]);
    free(s->wait);
    free(s->run);
    free(s->buf);
    free(s);
}

int kv_sched_submit(kv_sched_t *s, const kv_request_t *r)
{
    if (!s || !r || r->n < 1 || r->n > KV_MAX_SAMPLES || r->n > s->max_seqs || !r->prompt ||
        r->prompt_len == 0)
        return -EINVAL;
    for (uint32_t k = 0; k < r->n; k++)
        if (r->out_len[k] == 0 || (uint64_t)r->prompt_len + r->out_len[k] > KV_MAX_SEQ_LEN)
            return -EINVAL;
    if (s->nwait == s->wcap && wait_grow(s))
        return -ENOMEM;
    req_t *q = malloc(sizeof *q);
    if (!q)
        return -ENOMEM;
    q->r = r;
    reset(q);
    s->wait[(s->whead + s->nwait++) % s->wcap] = q;
    return 0;
}

/* Frees the last admitted running request's sequences (its output so far is kept) and puts it
 * at the head of the queue (room there was made before the step). Returns it. */
static req_t *preempt_last(kv_sched_t *s)
{
    req_t *v = s->run[--s->nrun];
    for (uint32_t k = 0; k < v->r->n; k++)
        if (v->seq[k] >= 0) {
            kv_seq_free(s->c, v->seq[k]);
            v->seq[k] = -1;
            s->running_seqs--;
        }
    s->whead = (s->whead + s->wcap - 1) % s->wcap;
    s->wait[s->whead] = v;
    s->nwait++;
    return v;
}

/* Decodes one token for each live sample of q. Returns 1 if q was preempted, 0, or -EIO. */
static int decode(kv_sched_t *s, req_t *q, kv_step_t *st)
{
    for (uint32_t k = 0; k < q->r->n; k++) {
        if (q->seq[k] < 0)
            continue;
        kv_token_t t = kv_gen_token(q->r->id, k, q->produced[k]);
        int rc;
        while ((rc = kv_append(s->c, q->seq[k], t)) == -ENOMEM) {
            st->preempted++;
            if (preempt_last(s) == q)
                return 1;
        }
        if (rc)
            return -EIO;
        st->decoded++;
        if (++q->produced[k] == q->r->out_len[k]) {
            kv_seq_free(s->c, q->seq[k]);
            q->seq[k] = -1;
            q->live--;
            s->running_seqs--;
        }
    }
    return 0;
}

/* Step 1: decode every running request; finished ones leave the list. */
static int decode_all(kv_sched_t *s, kv_step_t *st)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < s->nrun; i++) {
        int rc = decode(s, s->run[i], st);
        if (rc < 0)
            return rc;
        if (rc == 1)
            break; /* it was the last one: nothing after it */
        if (s->run[i]->live == 0) {
            free(s->run[i]);
            st->finished++;
        } else {
            s->run[kept++] = s->run[i];
        }
    }
    s->nrun = kept;
    return 0;
}

/* True when no sample of q has produced a token yet (new, or preempted before its first). */
static int fresh(const req_t *q)
{
    for (uint32_t k = 0; k < q->r->n; k++)
        if (q->produced[k])
            return 0;
    return 1;
}

/* Writes sample k's tokens so far (prompt, then its output) to s->buf; returns their number,
 * or -ENOMEM. */
static int64_t sample_tokens(kv_sched_t *s, const req_t *q, uint32_t k)
{
    uint32_t n = q->r->prompt_len + q->produced[k];
    if (n > s->bufcap) {
        kv_token_t *b = realloc(s->buf, (size_t)n * sizeof *b);
        if (!b)
            return -ENOMEM;
        s->buf = b;
        s->bufcap = n;
    }
    memcpy(s->buf, q->r->prompt, (size_t)q->r->prompt_len * sizeof *s->buf);
    for (uint32_t i = 0; i < q->produced[k]; i++)
        s->buf[q->r->prompt_len + i] = kv_gen_token(q->r->id, k, i);
    return n;
}

/* Blocks q needs to be admitted now: its prompt's (then forked), or the sum over its unfinished
 * samples of prompt + output. Returns them, -ENOMEM or -EIO. */
static int64_t blocks_for_req(kv_sched_t *s, const req_t *q)
{
    const kv_request_t *r = q->r;
    if (fresh(q)) {
        int64_t need = kv_blocks_needed(s->c, r->prompt, r->prompt_len);
        return need < 0 ? -EIO : need;
    }
    int64_t sum = 0;
    for (uint32_t k = 0; k < r->n; k++) {
        if (q->produced[k] == r->out_len[k])
            continue;
        int64_t n = sample_tokens(s, q, k), need;
        if (n < 0)
            return n;
        if ((need = kv_blocks_needed(s->c, s->buf, (uint32_t)n)) < 0)
            return -EIO;
        sum += need;
    }
    return sum;
}

/* Adds q's sequences to the cache (the rules admitted it): 0 or -EIO. */
static int add_seqs(kv_sched_t *s, req_t *q)
{
    const kv_request_t *r = q->r;
    if (fresh(q)) {
        if (kv_seq_add(s->c, r->prompt, r->prompt_len, &q->seq[0]))
            return -EIO;
        for (uint32_t k = 1; k < r->n; k++)
            if (kv_fork(s->c, q->seq[0], &q->seq[k]))
                return -EIO;
        return 0;
    }
    for (uint32_t k = 0; k < r->n; k++) {
        if (q->produced[k] == r->out_len[k])
            continue;
        int64_t n = sample_tokens(s, q, k); /* fits: blocks_for_req grew the buffer */
        if (n < 0 || kv_seq_add(s->c, s->buf, (uint32_t)n, &q->seq[k]))
            return -EIO;
    }
    return 0;
}

/* Admits the queue's head if the rules allow: 1 admitted, 0 not, -EIO, -ENOMEM. */
static int admit_head(kv_sched_t *s, uint32_t watermark)
{
    req_t *q = s->wait[s->whead];
    kv_stats_t cs;
    if (s->running_seqs + q->live > s->max_seqs)
        return 0;
    int64_t need = blocks_for_req(s, q);
    if (need < 0)
        return (int)need;
    if (kv_get_stats(s->c, &cs))
        return -EIO;
    if ((uint64_t)need + watermark > (uint64_t)cs.free_blocks + cs.cached_blocks)
        return 0;
    if (s->nrun == s->rcap && grow(&s->run, &s->rcap, sizeof *s->run))
        return -ENOMEM;
    if (add_seqs(s, q))
        return -EIO;
    s->running_seqs += q->live;
    s->whead = (s->whead + 1) % s->wcap;
    s->nwait--;
    s->run[s->nrun++] = q;
    return 1;
}

int kv_sched_step(kv_sched_t *s, kv_step_t *res)
{
    if (!s)
        return -EINVAL;
    kv_step_t st = { 0 };
    kv_stats_t cs;
    /* Every running request may come back to the queue: room for all of them first. */
    while (s->wcap < s->nwait + s->nrun + 1)
        if (wait_grow(s))
            return -ENOMEM;
    int rc = decode_all(s, &st);
    if (rc || kv_get_stats(s->c, &cs))
        return rc ? rc : -EIO;
    uint32_t watermark = (uint32_t)((uint64_t)cs.num_blocks * KV_SCHED_WATERMARK_PCT / 100);
    while (s->nwait > 0 && (rc = admit_head(s, watermark)) == 1)
        st.admitted++;
    if (rc < 0)
        return rc;
    st.running_reqs = s->nrun;
    st.running_seqs = s->running_seqs;
    st.waiting = s->nwait;
    if (res)
        *res = st;
    return 0;
}

int kv_sched_idle(const kv_sched_t *s)
{
    return !s || (s->nwait == 0 && s->nrun == 0);
}
