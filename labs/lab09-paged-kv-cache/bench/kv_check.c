/* Lab 09 benchmark: the checker of a replay's log (see kv_check.h). */
#include "kv_check.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define R8(n) (((size_t)(n) + 7) & ~(size_t)7) /* the log's pieces are 8-byte aligned */
#define MAX_TOKENS (1u << 20)                  /* far above any sequence of the traces */

/* What the log says of one sequence id, rebuilt here. */
typedef struct {
    int live, fresh;         /* fresh: added (or rebuilt) in this step, not appended to */
    uint32_t len, tlen, kfrom, kcap, tcap, hcap;
    uint32_t *table;
    kv_token_t *tok;
    uint64_t *h;             /* per block: a chained hash of its contents and fill */
    int32_t req;             /* the request it is (an index in the trace) */
    uint32_t mask;           /* the samples whose output it matches so far */
} view_t;

struct kv_check {
    const kv_trace_t *t;
    uint32_t nb, bs, step;
    view_t v[KV_MAX_SEQS];
    int32_t ids[KV_MAX_SEQS], prev[KV_MAX_SEQS]; /* the live ids, ascending: now, a step ago */
    uint32_t nids, nprev;
    uint32_t *stamp, *at, *nown, *claim;   /* per physical block, this step */
    uint64_t *bh, *claim_h, *ident;        /* ident: the contents it last held, full */
    int32_t (*prod)[KV_MAX_SAMPLES];       /* per request and sample: most output seen, -1 */
    uint32_t *held;                        /* per request and sample: step last held */
    uint64_t *pkey;                        /* prompts by hash (open addressing) */
    int32_t *preq;
    size_t pcap;
    uint8_t *plen_ok;                      /* a prompt of this length exists */
    uint32_t max_plen;
    uint64_t queries, hits;
    char *why;
    size_t cap;
};

static int bad(kv_check_t *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(kv_check_t *k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(k->why, k->cap, fmt, ap);
    va_end(ap);
    return -1;
}

static uint64_t mix(uint64_t h, uint64_t x)
{
    uint64_t z = h ^ (x + 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The hash of tokens[0..n) that prompts are indexed by, step by step (never 0). */
static uint64_t prompt_hash(uint64_t h, kv_token_t t) { return mix(h, (uint32_t)t) | 1; }

static void prompt_index(kv_check_t *k, int32_t r)
{
    const kv_request_t *q = &k->t->req[r];
    uint64_t h = 1;
    for (uint32_t i = 0; i < q->prompt_len; i++)
        h = prompt_hash(h, q->prompt[i]);
    size_t at = h & (k->pcap - 1);
    while (k->pkey[at])
        at = (at + 1) & (k->pcap - 1);
    k->pkey[at] = h;
    k->preq[at] = r;
    k->plen_ok[q->prompt_len] = 1;
}

int kv_check_new(kv_check_t **out, const kv_trace_t *t, uint32_t num_blocks,
                 uint32_t block_size)
{
    kv_check_t *k = calloc(1, sizeof *k);
    if (!k)
        return -ENOMEM;
    k->t = t;
    k->nb = num_blocks;
    k->bs = block_size;
    for (k->pcap = 16; k->pcap < 2 * t->n + 2; k->pcap *= 2)
        ;
    for (size_t i = 0; i < t->n; i++)
        k->max_plen = t->req[i].prompt_len > k->max_plen ? t->req[i].prompt_len : k->max_plen;
    k->stamp = calloc(num_blocks, sizeof *k->stamp);
    k->at = calloc(num_blocks, sizeof *k->at);
    k->nown = calloc(num_blocks, sizeof *k->nown);
    k->claim = calloc(num_blocks, sizeof *k->claim);
    k->bh = calloc(num_blocks, sizeof *k->bh);
    k->claim_h = calloc(num_blocks, sizeof *k->claim_h);
    k->ident = calloc(num_blocks, sizeof *k->ident);
    k->prod = malloc((t->n + 1) * sizeof *k->prod);
    k->held = calloc((t->n + 1) * KV_MAX_SAMPLES, sizeof *k->held);
    k->pkey = calloc(k->pcap, sizeof *k->pkey);
    k->preq = calloc(k->pcap, sizeof *k->preq);
    k->plen_ok = calloc(k->max_plen + 1, 1);
    if (!k->stamp || !k->at || !k->nown || !k->claim || !k->bh || !k->claim_h || !k->ident ||
        !k->prod || !k->held || !k->pkey || !k->preq || !k->plen_ok) {
        kv_check_free(k);
        return -ENOMEM;
    }
    memset(k->prod, 0xff, (t->n + 1) * sizeof *k->prod); /* -1: never seen */
    for (size_t i = 0; i < t->n; i++)
        prompt_index(k, (int32_t)i);
    *out = k;
    return 0;
}

void kv_check_free(kv_check_t *k)
{
    if (!k)
        return;
    for (int i = 0; i < KV_MAX_SEQS; i++) {
        free(k->v[i].table);
        free(k->v[i].tok);
        free(k->v[i].h);
    }
    free(k->stamp);
    free(k->at);
    free(k->nown);
    free(k->claim);
    free(k->bh);
    free(k->claim_h);
    free(k->ident);
    free(k->prod);
    free(k->held);
    free(k->pkey);
    free(k->preq);
    free(k->plen_ok);
    free(k);
}

/* Rehashes v's blocks from the one holding token `from` on. */
static void rehash(const kv_check_t *k, view_t *v, uint32_t from)
{
    for (uint32_t i = from / k->bs; i < v->tlen; i++) {
        uint32_t lo = i * k->bs, hi = lo + k->bs < v->len ? lo + k->bs : v->len;
        uint64_t h = mix(i ? v->h[i - 1] : 7, hi - lo);
        for (uint32_t j = lo; j < hi; j++)
            h = mix(h, (uint32_t)v->tok[j]);
        v->h[i] = h;
    }
}

/* Reads one sequence's record at rec[*at..n) into its view. 0, or -1 (k->why). */
static int apply_seq(kv_check_t *k, const unsigned char *rec, size_t n, size_t *at,
                     int32_t *last)
{
    kv_rec_seq_t r;
    if (n - *at < R8(sizeof r))
        return bad(k, "the log of step %u is cut short", k->step);
    memcpy(&r, rec + *at, sizeof r);
    *at += R8(sizeof r);
    if (r.id <= *last || r.id >= KV_MAX_SEQS || r.len > MAX_TOKENS || r.tlen > MAX_TOKENS)
        return bad(k, "the log of step %u names sequence %d out of order or with %u tokens",
                   k->step, r.id, r.len);
    *last = r.id;
    view_t *v = &k->v[r.id];
    uint32_t pl = v->live ? v->len : 0, pt = v->live ? v->tlen : 0;
    size_t tb = (size_t)(r.tlen - (r.tfrom <= r.tlen ? r.tfrom : 0)) * sizeof *v->table;
    size_t kb = (size_t)(r.len - (r.kfrom <= r.len ? r.kfrom : 0)) * sizeof *v->tok;
    if (r.kfrom > (pl < r.len ? pl : r.len) || r.tfrom > (pt < r.tlen ? pt : r.tlen) ||
        n - *at < R8(tb) + R8(kb))
        return bad(k, "the log of step %u is malformed at sequence %d", k->step, r.id);
    if (kv_grow((void **)&v->table, &v->tcap, r.tlen, sizeof *v->table) ||
        kv_grow((void **)&v->h, &v->hcap, r.tlen, sizeof *v->h) ||
        kv_grow((void **)&v->tok, &v->kcap, r.len, sizeof *v->tok))
        return bad(k, "out of host memory");
    memcpy(v->table + r.tfrom, rec + *at, tb);
    *at += R8(tb);
    memcpy(v->tok + r.kfrom, rec + *at, kb);
    *at += R8(kb);
    v->fresh = !v->live || r.kfrom < pl || r.tfrom + 1 < pt;
    v->kfrom = r.kfrom;
    v->len = r.len;
    v->tlen = r.tlen;
    if (v->tlen != (v->len + k->bs - 1) / k->bs)
        return bad(k, "step %u: sequence %d has %u tokens in %u blocks: the block tables do "
                   "not map %u-token blocks", k->step, r.id, v->len, v->tlen, k->bs);
    rehash(k, v, v->kfrom);
    return 0;
}

/* The samples of request r whose output tokens are v's tokens[from..len) (positions past the
 * prompt), out of `mask`. */
static uint32_t samples_matching(const kv_check_t *k, const view_t *v, int32_t r,
                                 uint32_t from, uint32_t mask)
{
    const kv_request_t *q = &k->t->req[r];
    uint32_t out = 0;
    for (uint32_t s = 0; s < q->n; s++) {
        if (!(mask >> s & 1) || v->len - q->prompt_len > q->out_len[s] - 1)
            continue;
        uint32_t i = from;
        while (i < v->len && v->tok[i] == kv_gen_token(q->id, s, i - q->prompt_len))
            i++;
        out |= (uint32_t)(i == v->len) << s;
    }
    return out;
}

/* Finds the request and samples a fresh sequence is: a prompt followed by output tokens. */
static int match(kv_check_t *k, view_t *v, int32_t id)
{
    uint64_t h = 1;
    for (uint32_t i = 1; i <= v->len && i <= k->max_plen; i++) {
        h = prompt_hash(h, v->tok[i - 1]);
        if (!k->plen_ok[i])
            continue;
        for (size_t at = h & (k->pcap - 1); k->pkey[at]; at = (at + 1) & (k->pcap - 1)) {
            const kv_request_t *q = &k->t->req[k->preq[at]];
            if (k->pkey[at] != h || q->prompt_len != i ||
                memcmp(q->prompt, v->tok, i * sizeof *v->tok) != 0)
                continue;
            uint32_t m = samples_matching(k, v, k->preq[at], i, 0xffu);
            if (m) {
                v->req = k->preq[at];
                v->mask = m;
                return 0;
            }
        }
    }
    return bad(k, "step %u: sequence %d (%u tokens) is no request's prompt followed by one of "
               "its samples' output tokens (kv_gen_token)", k->step, id, v->len);
}

/* Checks a sequence's tokens (fresh: which request it is; else its new tokens) and records
 * how far each sample it may be has got. */
static int check_tokens(kv_check_t *k, view_t *v, int32_t id)
{
    if (v->fresh ? match(k, v, id) : 0)
        return -1;
    const kv_request_t *q = &k->t->req[v->req];
    if (!v->fresh && !(v->mask = samples_matching(k, v, v->req, v->kfrom, v->mask)))
        return bad(k, "step %u: sequence %d's tokens %u.. are not the next output tokens of "
                   "request %u", k->step, id, v->kfrom, q->id);
    int32_t got = (int32_t)(v->len - q->prompt_len);
    for (uint32_t s = 0; s < q->n; s++)
        if (v->mask >> s & 1 && k->prod[v->req][s] < got)
            k->prod[v->req][s] = got;
    if (v->mask & (v->mask - 1))
        return 0;
    uint32_t s = (uint32_t)__builtin_ctz(v->mask), *held = &k->held[v->req * KV_MAX_SAMPLES + s];
    if (*held == k->step)
        return bad(k, "step %u: two live sequences are both sample %u of request %u", k->step,
                   s, q->id);
    *held = k->step;
    return 0;
}

/* Counts v's blocks; a block in several tables must be at the same logical index and hold the
 * same contents in each. */
static int count_blocks(kv_check_t *k, const view_t *v, int32_t id, kv_count_t *c)
{
    for (uint32_t i = 0; i < v->tlen; i++) {
        uint32_t b = v->table[i];
        if (b >= k->nb)
            return bad(k, "step %u: sequence %d maps block %u to physical block %u of %u",
                       k->step, id, i, b, k->nb);
        if (k->stamp[b] != k->step) {
            k->stamp[b] = k->step;
            k->at[b] = i;
            k->bh[b] = v->h[i];
            k->nown[b] = 1;
            c->used++;
            c->slots_used += (i + 1) * k->bs <= v->len ? k->bs : v->len - i * k->bs;
        } else if (k->at[b] != i || k->bh[b] != v->h[i]) {
            return bad(k, "step %u: physical block %u is in two tables with different contents "
                       "(sequence %d's block %u is one)", k->step, b, id, i);
        } else if (++k->nown[b] == 2) {
            c->shared++;
        }
    }
    c->logical += v->tlen;
    return 0;
}

/* A fresh sequence that is a fork: no output yet, and the same table as a fresh sequence of
 * its request before it (the q-th live one) in this step. */
static int is_fork(const kv_check_t *k, const view_t *v, uint32_t q)
{
    if (v->len != k->t->req[v->req].prompt_len)
        return 0;
    for (uint32_t j = 0; j < q; j++) {
        const view_t *u = &k->v[k->ids[j]];
        if (u->fresh && u->req == v->req && u->tlen == v->tlen &&
            memcmp(u->table, v->table, v->tlen * sizeof *v->table) == 0)
            return 1;
    }
    return 0;
}

/* The prefix cache, as seen from outside: a kv_seq_add's full blocks are queries; its leading
 * ones that are blocks already holding those contents (before this step, or filled by another
 * sequence added in this step) are hits. */
static void count_prefix(kv_check_t *k, const view_t *v)
{
    uint32_t nfull = v->len / k->bs;
    int stop = 0;
    k->queries += nfull;
    for (uint32_t i = 0; i < nfull; i++) {
        uint32_t b = v->table[i];
        int hit = k->ident[b] == v->h[i] || (k->claim[b] == k->step && k->claim_h[b] == v->h[i]);
        stop |= !hit;
        k->hits += !stop;
        k->claim[b] = k->step;
        k->claim_h[b] = v->h[i];
    }
}

long kv_check_step(kv_check_t *k, const unsigned char *rec, size_t n, kv_rec_step_t *h,
                   kv_count_t *c, char *why, size_t cap)
{
    k->why = why;
    k->cap = cap;
    k->step++;
    memset(c, 0, sizeof *c);
    if (n < R8(sizeof *h))
        return bad(k, "the log of step %u is cut short", k->step);
    memcpy(h, rec, sizeof *h);
    size_t at = R8(sizeof *h);
    int32_t last = -1;
    if (h->nseq > KV_MAX_SEQS)
        return bad(k, "the log of step %u has %u sequences", k->step, h->nseq);
    memcpy(k->prev, k->ids, k->nids * sizeof *k->ids);
    k->nprev = k->nids;
    k->nids = 0;
    for (uint32_t q = 0; q < h->nseq; q++) {
        if (apply_seq(k, rec, n, &at, &last))
            return -1;
        k->ids[k->nids++] = last;
    }
    for (uint32_t q = 0; q < k->nprev; q++) /* live a step ago, and not logged now: ended */
        k->v[k->prev[q]].live = 0;
    for (uint32_t q = 0; q < k->nids; q++) {
        view_t *v = &k->v[k->ids[q]];
        v->live = 1;
        if (check_tokens(k, v, k->ids[q]) || count_blocks(k, v, k->ids[q], c))
            return -1;
    }
    c->seqs = k->nids;
    for (uint32_t q = 0; q < k->nids; q++)
        if (k->v[k->ids[q]].fresh && !is_fork(k, &k->v[k->ids[q]], q))
            count_prefix(k, &k->v[k->ids[q]]);
    for (uint32_t q = 0; q < k->nids; q++) {
        const view_t *v = &k->v[k->ids[q]];
        for (uint32_t b = 0; b < v->len / k->bs; b++)
            k->ident[v->table[b]] = v->h[b];
    }
    c->queries = k->queries;
    c->hits = k->hits;
    return (long)at;
}

int kv_check_end(kv_check_t *k, char *why, size_t cap)
{
    k->why = why;
    k->cap = cap;
    for (int32_t i = 0; i < KV_MAX_SEQS; i++)
        if (k->v[i].live)
            return bad(k, "sequence %d is still live after the last step", i);
    for (size_t r = 0; r < k->t->n; r++)
        for (uint32_t s = 0; s < k->t->req[r].n; s++)
            if (k->prod[r][s] < (int32_t)k->t->req[r].out_len[s] - 1)
                return bad(k, "sample %u of request %u was last seen with %d of its %u output "
                           "tokens (its last token is decoded in the step that frees it)", s,
                           k->t->req[r].id, k->prod[r][s], k->t->req[r].out_len[s]);
    return 0;
}
