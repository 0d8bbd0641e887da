/* Lab 11 tests, part C: SGD of minigrad's MLP replayed in the harness (see replay.h). */
#include "replay.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mm_call.h"
#include "support.h"

/* How far a reported float32 may be from the double replay: float32 arithmetic over a run. */
#define TR_TOL 1e-3

size_t tr_floats(int steps)
{
    return 2 * (size_t)TR_PARAMS + (size_t)steps * (TR_BATCH * TR_D_IN + TR_BATCH + 3);
}

typedef struct {
    double w1[TR_D_IN][TR_HIDDEN], b1[TR_HIDDEN], w2[TR_HIDDEN], b2;
} model_t;

static void load(model_t *m, const float *p)
{
    for (int k = 0; k < TR_D_IN; k++)
        for (int j = 0; j < TR_HIDDEN; j++)
            m->w1[k][j] = *p++;
    for (int j = 0; j < TR_HIDDEN; j++)
        m->b1[j] = *p++;
    for (int j = 0; j < TR_HIDDEN; j++)
        m->w2[j] = *p++;
    m->b2 = *p;
}

/* One step on batch (x, y): the loss and mean prediction before the update, then the update. */
static void sgd_step(model_t *m, const float *x, const float *y, double *loss, double *mean)
{
    static double pre[TR_BATCH][TR_HIDDEN], g[TR_BATCH];
    double p[TR_BATCH], gw1[TR_D_IN][TR_HIDDEN] = { { 0 } }, gb1[TR_HIDDEN] = { 0 };
    double gw2[TR_HIDDEN] = { 0 }, gb2 = 0;
    *loss = *mean = 0;
    for (int i = 0; i < TR_BATCH; i++) {
        p[i] = m->b2;
        for (int j = 0; j < TR_HIDDEN; j++) {
            double s = m->b1[j];
            for (int k = 0; k < TR_D_IN; k++)
                s += (double)x[i * TR_D_IN + k] * m->w1[k][j];
            pre[i][j] = s;
            p[i] += (s > 0 ? s : 0) * m->w2[j];
        }
        double d = p[i] - (double)y[i];
        *loss += d * d / TR_BATCH;
        *mean += p[i] / TR_BATCH;
        g[i] = 2.0 * d / TR_BATCH;
    }
    for (int i = 0; i < TR_BATCH; i++) {
        gb2 += g[i];
        for (int j = 0; j < TR_HIDDEN; j++) {
            double h = pre[i][j] > 0 ? pre[i][j] : 0, gp = pre[i][j] > 0 ? g[i] * m->w2[j] : 0;
            gw2[j] += h * g[i];
            gb1[j] += gp;
            for (int k = 0; k < TR_D_IN; k++)
                gw1[k][j] += (double)x[i * TR_D_IN + k] * gp;
        }
    }
    for (int j = 0; j < TR_HIDDEN; j++) {
        for (int k = 0; k < TR_D_IN; k++)
            m->w1[k][j] -= TR_LR * gw1[k][j];
        m->b1[j] -= TR_LR * gb1[j];
        m->w2[j] -= TR_LR * gw2[j];
    }
    m->b2 -= TR_LR * gb2;
}

static int close_to(double got, double want)
{
    return fabs(got - want) <= TR_TOL * (1 + fabs(want));
}

/* 0 if every parameter of m is close to the float32s at p, else -1 with the first in why. */
static int same_params(const model_t *m, const float *p, char *why, size_t cap)
{
    const double *v = &m->w1[0][0];
    for (int i = 0; i < TR_PARAMS; i++, v++) {
        double want = i < TR_D_IN * TR_HIDDEN ? *v
                    : i < TR_D_IN * TR_HIDDEN + TR_HIDDEN ? m->b1[i - TR_D_IN * TR_HIDDEN]
                    : i < TR_PARAMS - 1 ? m->w2[i - TR_D_IN * TR_HIDDEN - TR_HIDDEN] : m->b2;
        if (!close_to(p[i], want)) {
            snprintf(why, cap, "the parameters at the end: number %d is %g, %g replayed", i,
                     (double)p[i], want);
            return -1;
        }
    }
    return 0;
}

int tr_replay(const float *t, int steps, tr_summary_t *sum, char *why, size_t cap)
{
    static model_t m;
    const float *xs = t + TR_PARAMS, *ys = xs + (size_t)steps * TR_BATCH * TR_D_IN;
    const float *on_step = ys + (size_t)steps * TR_BATCH, *listed = on_step + steps;
    const float *logged = listed + steps, *last = logged + steps;
    load(&m, t);
    memset(sum, 0, sizeof *sum);
    for (int s = 0; s < steps; s++) {
        double loss, mean;
        sgd_step(&m, xs + (size_t)s * TR_BATCH * TR_D_IN, ys + (size_t)s * TR_BATCH, &loss, &mean);
        const char *what = !close_to(on_step[s], loss) ? "on_step's loss"
                         : !close_to(listed[s], loss) ? "the result's loss"
                         : !close_to(logged[s], mean) ? "flush_log()'s mean prediction" : NULL;
        if (what) {
            double got = what[0] == 'o' ? on_step[s] : what[4] == 'r' ? listed[s] : logged[s];
            snprintf(why, cap, "step %d: %s is %g, %g replayed", s, what, got,
                     what[0] == 'f' ? mean : loss);
            return -1;
        }
        sum->first10 += s < 10 ? loss / 10 : 0;
        sum->last10 += s >= steps - 10 ? loss / 10 : 0;
    }
    return same_params(&m, last, why, cap);
}

void tu_assert_train_replays(int steps)
{
    size_t bytes = tr_floats(steps) * sizeof(float);
    float *t = mm_shared_alloc(bytes);
    po_traj_in_t in = { steps, (uintptr_t)t, bytes };
    static po_traj_out_t out;
    int rc = mm_call_work("trajectory", &in, sizeof in, &out, sizeof out);
    out.text[sizeof out.text - 1] = 0;
    ck_assert_msg(rc != 2, "%s", out.text); /* your process's own check failed it */
    ck_assert_msg(rc == 0, "recording train(%d) failed: %s", steps, out.text);
    ck_assert_msg(out.len == (int64_t)bytes, "train(%d) recorded %lld bytes, %zu expected: the "
                  "model, the batch or the steps are not those of train_loop.py's contract "
                  "(D_IN %d, HIDDEN %d, BATCH %d)", steps, (long long)out.len, bytes, TR_D_IN,
                  TR_HIDDEN, TR_BATCH);
    char why[300];
    tr_summary_t sum;
    ck_assert_msg(tr_replay(t, steps, &sum, why, sizeof why) == 0, "train(%d) is not what SGD "
                  "of its model at learning rate %g gives, replayed here: %s", steps, TR_LR, why);
    ck_assert_msg(sum.last10 < 0.6 * sum.first10, "the model no longer learns (replayed here): "
                  "mean loss %.4f over the first 10 steps, %.4f over the last 10", sum.first10,
                  sum.last10);
    mm_shared_free(t);
}
