/* Lab 07: the transformer training trace and its replay (see trace.h). Provided: not yours to
 * edit; the grader builds its own copy. The lifetimes follow what PyTorch's autograd does for a
 * GPT-2 block in fp32: a forward op's output lives until the backward op that needs it. */
#include "trace.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

const ca_model_t CA_GPT2_SMALL = { 12, 4, 512, 768, 12, 50257 };

enum { LAYER_PARAMS = 12 }; /* ln1 w,b; qkv w,b; proj w,b; ln2 w,b; fc1 w,b; fc2 w,b */

typedef struct {
    ca_trace_t *t;
    size_t cap;
    uint64_t *size_of; /* per tensor id */
    size_t ids_cap;
    uint64_t live;
    int err;
} builder_t;

static void push(builder_t *b, ca_op_t op)
{
    if (b->err)
        return;
    if (b->t->nops == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 4096;
        ca_op_t *v = realloc(b->t->ops, cap * sizeof *v);
        if (!v) {
            b->err = -ENOMEM;
            return;
        }
        b->t->ops = v;
        b->cap = cap;
    }
    b->t->ops[b->t->nops++] = op;
}

static uint32_t new_tensor(builder_t *b, uint64_t size, unsigned stream)
{
    if (b->err)
        return 0;
    if (b->t->nslots == b->ids_cap) {
        size_t cap = b->ids_cap ? 2 * b->ids_cap : 1024;
        uint64_t *v = realloc(b->size_of, cap * sizeof *v);
        if (!v) {
            b->err = -ENOMEM;
            return 0;
        }
        b->size_of = v;
        b->ids_cap = cap;
    }
    uint32_t id = (uint32_t)b->t->nslots++;
    b->size_of[id] = size;
    push(b, (ca_op_t){ CA_OP_ALLOC, (uint8_t)stream, id, size });
    b->live += size;
    if (b->live > b->t->peak_live) {
        b->t->peak_live = b->live;
        b->t->peak_op = b->t->nops - 1;
    }
    return id;
}

static uint32_t alloc0(builder_t *b, uint64_t size)
{
    return new_tensor(b, size, 0);
}

static void drop(builder_t *b, uint32_t id)
{
    if (b->err)
        return;
    push(b, (ca_op_t){ CA_OP_FREE, 0, id, 0 });
    b->live -= b->size_of[id];
}

/* The model's shape in bytes. */
typedef struct {
    uint64_t tok, act, attn, logits, h;
    uint64_t psize[2 + LAYER_PARAMS * 64 + 2];
    unsigned nparams;
} shape_t;

static void shape(const ca_model_t *m, shape_t *s)
{
    uint64_t h = m->hidden, f = 4;
    s->h = h;
    s->tok = (uint64_t)m->batch * m->seq;
    s->act = s->tok * h * f;
    s->attn = (uint64_t)m->batch * m->heads * m->seq * m->seq * f;
    s->logits = s->tok * m->vocab * f;
    unsigned n = 0;
    s->psize[n++] = (uint64_t)m->vocab * h * f; /* token embedding (tied with the LM head) */
    s->psize[n++] = (uint64_t)m->seq * h * f;   /* position embedding */
    for (unsigned l = 0; l < m->layers; l++) {
        uint64_t p[LAYER_PARAMS] = { h, h, 3 * h * h, 3 * h, h * h, h,
                                     h, h, 4 * h * h, 4 * h, 4 * h * h, h };
        for (unsigned i = 0; i < LAYER_PARAMS; i++)
            s->psize[n++] = p[i] * f;
    }
    s->psize[n++] = h * f; /* final layer norm */
    s->psize[n++] = h * f;
    s->nparams = n;
}

/* Per-step state: parameter gradients (0: none yet this step), the saved tensors of each layer. */
typedef struct {
    const ca_model_t *m;
    shape_t s;
    uint32_t param[2 + LAYER_PARAMS * 64 + 2], grad[2 + LAYER_PARAMS * 64 + 2];
    uint32_t adam_m[2 + LAYER_PARAMS * 64 + 2], adam_v[2 + LAYER_PARAMS * 64 + 2];
    int have_grad[2 + LAYER_PARAMS * 64 + 2], have_adam;
} model_state_t;

typedef struct {
    uint32_t x_in, mean1, rstd1, h1, qkv, probs, ctx, x1, mean2, rstd2, h2, f1, g;
} saved_t;

static void grad_of(builder_t *b, model_state_t *ms, unsigned p)
{
    if (!ms->have_grad[p]) {
        ms->grad[p] = alloc0(b, ms->s.psize[p]);
        ms->have_grad[p] = 1;
    }
}

static uint32_t layer_forward(builder_t *b, const shape_t *s, uint32_t x, saved_t *sv)
{
    sv->x_in = x;
    sv->mean1 = alloc0(b, s->tok * 4);
    sv->rstd1 = alloc0(b, s->tok * 4);
    sv->h1 = alloc0(b, s->act);
    sv->qkv = alloc0(b, 3 * s->act);
    uint32_t scores = alloc0(b, s->attn);
    sv->probs = alloc0(b, s->attn);
    drop(b, scores);
    uint32_t heads = alloc0(b, s->act); /* probs @ v, in head layout */
    sv->ctx = alloc0(b, s->act);        /* transposed back, contiguous */
    drop(b, heads);
    uint32_t proj = alloc0(b, s->act);
    sv->x1 = alloc0(b, s->act); /* residual */
    drop(b, proj);
    sv->mean2 = alloc0(b, s->tok * 4);
    sv->rstd2 = alloc0(b, s->tok * 4);
    sv->h2 = alloc0(b, s->act);
    sv->f1 = alloc0(b, 4 * s->act);
    sv->g = alloc0(b, 4 * s->act); /* GELU */
    uint32_t f2 = alloc0(b, s->act);
    uint32_t x2 = alloc0(b, s->act); /* residual: the next layer's input */
    drop(b, f2);
    return x2;
}

/* A linear layer's backward: the input's gradient and the weight and bias gradients; the saved
 * input is no longer needed. The caller frees the output's gradient. */
static uint32_t linear_backward(builder_t *b, model_state_t *ms, unsigned w, uint32_t saved_in,
                                uint64_t in_bytes)
{
    uint32_t din = alloc0(b, in_bytes);
    grad_of(b, ms, w);
    grad_of(b, ms, w + 1);
    drop(b, saved_in);
    return din;
}

/* LayerNorm's backward; frees the output's gradient, the saved statistics and input. */
static uint32_t norm_backward(builder_t *b, model_state_t *ms, unsigned w, uint32_t dout,
                              uint32_t mean, uint32_t rstd, uint32_t saved_in)
{
    uint32_t din = alloc0(b, ms->s.act);
    grad_of(b, ms, w);
    grad_of(b, ms, w + 1);
    drop(b, dout);
    drop(b, mean);
    drop(b, rstd);
    drop(b, saved_in);
    return din;
}

/* The gradients of a residual's two branches, summed into a new tensor. */
static uint32_t add_residual(builder_t *b, const shape_t *s, uint32_t a, uint32_t c)
{
    uint32_t sum = alloc0(b, s->act);
    drop(b, a);
    drop(b, c);
    return sum;
}

static uint32_t mlp_backward(builder_t *b, model_state_t *ms, unsigned p, uint32_t dx2,
                             saved_t *sv)
{
    const shape_t *s = &ms->s;
    uint32_t dg = linear_backward(b, ms, p + 10, sv->g, 4 * s->act); /* fc2 */
    uint32_t df1 = alloc0(b, 4 * s->act);                           /* GELU */
    drop(b, dg);
    drop(b, sv->f1);
    uint32_t dh2 = linear_backward(b, ms, p + 8, sv->h2, s->act); /* fc1 */
    drop(b, df1);
    uint32_t dln2 = norm_backward(b, ms, p + 6, dh2, sv->mean2, sv->rstd2, sv->x1);
    return add_residual(b, s, dln2, dx2);
}

static uint32_t attention_backward(builder_t *b, model_state_t *ms, unsigned p, uint32_t dx1,
                                   saved_t *sv)
{
    const shape_t *s = &ms->s;
    uint32_t dctx = linear_backward(b, ms, p + 4, sv->ctx, s->act); /* output projection */
    uint32_t dheads = alloc0(b, s->act);                            /* back to head layout */
    drop(b, dctx);
    uint32_t dprobs = alloc0(b, s->attn);
    uint32_t dqkv = alloc0(b, 3 * s->act);
    uint32_t dscores = alloc0(b, s->attn); /* softmax backward */
    drop(b, dprobs);
    drop(b, sv->probs);
    drop(b, dscores);
    drop(b, dheads);
    drop(b, sv->qkv);
    uint32_t dh1 = linear_backward(b, ms, p + 2, sv->h1, s->act); /* qkv projection */
    drop(b, dqkv);
    uint32_t dln1 = norm_backward(b, ms, p, dh1, sv->mean1, sv->rstd1, sv->x_in);
    return add_residual(b, s, dln1, dx1);
}

static uint32_t layer_backward(builder_t *b, model_state_t *ms, unsigned l, uint32_t dx2,
                               saved_t *sv)
{
    unsigned p = 2 + l * LAYER_PARAMS;
    uint32_t dx1 = mlp_backward(b, ms, p, dx2, sv);
    return attention_backward(b, ms, p, dx1, sv);
}

/* Forward through the LM head and the loss, backward to the last layer's output gradient. */
static uint32_t head(builder_t *b, model_state_t *ms, uint32_t x)
{
    const shape_t *s = &ms->s;
    unsigned lnf = ms->s.nparams - 2;
    uint32_t meanf = alloc0(b, s->tok * 4), rstdf = alloc0(b, s->tok * 4);
    uint32_t hf = alloc0(b, s->act);
    uint32_t logits = alloc0(b, s->logits);
    uint32_t lsm = alloc0(b, s->logits); /* log_softmax: saved for its backward */
    drop(b, logits);
    uint32_t loss = alloc0(b, 4), weight = alloc0(b, 4);
    uint32_t dloss = alloc0(b, 4);
    uint32_t dlsm = alloc0(b, s->logits);
    drop(b, dloss);
    drop(b, loss);
    drop(b, weight);
    uint32_t dlogits = alloc0(b, s->logits);
    drop(b, dlsm);
    drop(b, lsm);
    grad_of(b, ms, 0); /* the tied embedding, as the LM head */
    uint32_t dhf = alloc0(b, s->act);
    drop(b, dlogits);
    drop(b, hf);
    return norm_backward(b, ms, lnf, dhf, meanf, rstdf, x);
}

/* Adam, one parameter at a time; states created at the first step; then zero_grad(None). */
static void optimizer(builder_t *b, model_state_t *ms)
{
    for (unsigned p = 0; p < ms->s.nparams; p++) {
        if (!ms->have_adam) {
            ms->adam_m[p] = alloc0(b, ms->s.psize[p]);
            ms->adam_v[p] = alloc0(b, ms->s.psize[p]);
        }
        uint32_t denom = alloc0(b, ms->s.psize[p]); /* sqrt(v) + eps */
        drop(b, denom);
    }
    ms->have_adam = 1;
    for (unsigned p = 0; p < ms->s.nparams; p++) {
        drop(b, ms->grad[p]);
        ms->have_grad[p] = 0;
    }
}

static void train_step(builder_t *b, model_state_t *ms)
{
    const shape_t *s = &ms->s;
    saved_t sv[64];
    uint32_t input = new_tensor(b, s->tok * 8, 1), target = new_tensor(b, s->tok * 8, 1);
    push(b, (ca_op_t){ CA_OP_USE, 0, input, 0 });
    push(b, (ca_op_t){ CA_OP_USE, 0, target, 0 });
    uint32_t x = alloc0(b, s->act); /* token + position embeddings */
    for (unsigned l = 0; l < ms->m->layers; l++)
        x = layer_forward(b, s, x, &sv[l]);
    uint32_t dx = head(b, ms, x);
    for (unsigned l = ms->m->layers; l-- > 0;)
        dx = layer_backward(b, ms, l, dx, &sv[l]);
    grad_of(b, ms, 1); /* embedding backward */
    drop(b, dx);
    drop(b, input);
    drop(b, target);
    optimizer(b, ms);
}

int ca_trace_transformer(ca_trace_t *t, const ca_model_t *m, unsigned steps)
{
    if (!t || !m || steps == 0 || steps > CA_TRACE_MAX_STEPS || m->layers == 0 ||
        m->layers > 64 || !m->batch || !m->seq || !m->hidden || !m->heads || !m->vocab)
        return -EINVAL;
    memset(t, 0, sizeof *t);
    model_state_t *ms = calloc(1, sizeof *ms);
    if (!ms)
        return -ENOMEM;
    builder_t b = { t, 0, NULL, 0, 0, 0 };
    ms->m = m;
    shape(m, &ms->s);
    for (unsigned p = 0; p < ms->s.nparams; p++) {
        ms->param[p] = alloc0(&b, ms->s.psize[p]);
        t->param_bytes += ms->s.psize[p];
    }
    for (unsigned k = 1; k <= steps; k++) {
        t->step_begin[k] = t->nops;
        train_step(&b, ms);
    }
    t->step_begin[steps + 1] = t->nops;
    t->nsteps = steps;
    free(b.size_of);
    free(ms);
    if (b.err)
        ca_trace_free(t);
    return b.err;
}

void ca_trace_free(ca_trace_t *t)
{
    if (!t)
        return;
    free(t->ops);
    memset(t, 0, sizeof *t);
}

int ca_trace_replay(const ca_trace_t *t, size_t begin, size_t end, ca_allocator_t *a,
                    void **slots, size_t *failed_op)
{
    for (size_t i = begin; i < end; i++) {
        const ca_op_t *op = &t->ops[i];
        int rc = 0;
        if (op->kind == CA_OP_ALLOC)
            rc = ca_alloc(a, op->size, op->stream, &slots[op->id]);
        else if (op->kind == CA_OP_FREE)
            rc = ca_free(a, slots[op->id]);
        else
            rc = ca_record_stream(a, slots[op->id], op->stream);
        if (rc != 0) {
            if (failed_op)
                *failed_op = i;
            return rc;
        }
    }
    return 0;
}

int ca_trace_replay_raw(const ca_trace_t *t, size_t begin, size_t end, const ca_backend_t *be,
                        void **slots, size_t *failed_op)
{
    for (size_t i = begin; i < end; i++) {
        const ca_op_t *op = &t->ops[i];
        int rc = 0;
        if (op->kind == CA_OP_ALLOC)
            rc = be->raw_alloc(be->ctx, (op->size + 511) / 512 * 512, &slots[op->id]);
        else if (op->kind == CA_OP_FREE)
            rc = be->raw_free(be->ctx, slots[op->id]);
        if (rc != 0) {
            if (failed_op)
                *failed_op = i;
            return rc;
        }
    }
    return 0;
}
