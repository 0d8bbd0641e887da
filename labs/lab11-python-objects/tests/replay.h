/* Lab 11 tests, part C: the harness's own replay of what train() did. Your process records each
 * step (py/harness.py, trajectory) and hands the numbers over; the harness recomputes every step
 * of SGD from the first parameters on the batches recorded, in double precision, and compares
 * each loss, each logged mean and the last parameters. Numbers that replay are a real training
 * run of the model: making them up is training it. */
#ifndef TU_REPLAY_H
#define TU_REPLAY_H
#include <stddef.h>

/* The model and the loop as src/train_loop.py's contract fixes them: minigrad's MLP (relu(x @ w1
 * + b1) @ w2 + b2), BATCH samples a step, plain SGD at LR. */
enum { TR_D_IN = 32, TR_HIDDEN = 128, TR_BATCH = 64 };
#define TR_LR 0.05
#define TR_PARAMS (TR_D_IN * TR_HIDDEN + 2 * TR_HIDDEN + 1)

/* A trajectory of `steps` steps, float32s in this order: w1 (D_IN x HIDDEN), b1 (HIDDEN), w2
 * (HIDDEN), b2 (1) as made; each step's inputs (BATCH x D_IN), then each step's targets (BATCH);
 * the losses on_step gave, the losses the result lists, the last `steps` values of flush_log();
 * the parameters at the end, as at the start. */
size_t tr_floats(int steps);

/* What the replay found: the mean replayed loss over the first and the last 10 steps. */
typedef struct {
    double first10, last10;
} tr_summary_t;

/* Replays trajectory t of `steps` (>= 20) steps. 0 and *sum, or -1 with the first difference in
 * why ("step 7: on_step's loss 0.41 against 0.52 replayed"). */
int tr_replay(const float *t, int steps, tr_summary_t *sum, char *why, size_t cap);

/* Fails the test unless train(steps, seed=11) in your process passes your process's checks of
 * what it reports (harness.reports_wrong and log_mismatch, with their message), replays (its
 * trajectory, through the trajectory workload) and learns: the mean replayed loss of its last
 * 10 steps below 0.6 of its first 10's. */
void tu_assert_train_replays(int steps);

#endif
