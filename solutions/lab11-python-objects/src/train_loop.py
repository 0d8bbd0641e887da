"""Lab 11, part C: a training loop that runs out of memory. It trains a small regression model
(minigrad, on NumPy) and logs as it goes, and every step leaves memory behind that nothing frees.
Find each leak with tracemalloc and gc (README.md, part C) and fix it; train() must keep doing
what its docstring says."""
import numpy as np

import minigrad as mg

D_IN, HIDDEN, BATCH, N_SAMPLES, LR = 32, 128, 64, 4096, 0.05

# The logger's callbacks, run by flush_log(): a module-level list lives as long as the module.
_LOG_HOOKS = []


def make_data(rng):
    """A regression problem: N_SAMPLES inputs of D_IN features and one target each (float32)."""
    x = rng.normal(size=(N_SAMPLES, D_IN)).astype(np.float32)
    w = rng.normal(size=(D_IN, 1)).astype(np.float32)
    y = np.tanh(x @ w) + 0.1 * rng.normal(size=(N_SAMPLES, 1)).astype(np.float32)
    return x, y.astype(np.float32)


def flush_log():
    """Runs the logged callbacks (each returns the mean prediction of its step)."""
    return [hook() for hook in _LOG_HOOKS]


def train(steps, seed=0, on_step=None):
    """Trains for `steps` steps of SGD on batches of BATCH samples drawn with numpy's generator
    seeded with `seed`. Calls on_step(step, loss) after each step, loss a Python float. Returns
    {"losses": the loss of each step, Python floats, "model": the trained mg.MLP}."""
    rng = np.random.default_rng(seed)
    x, y = make_data(rng)
    model = mg.MLP(D_IN, HIDDEN, rng)
    losses = []
    for step in range(steps):
        idx = rng.integers(0, N_SAMPLES, BATCH)
        with mg.Stager(BATCH * D_IN * 4) as stager:
            pred = model(mg.Tensor(stager.stage(x[idx])))
            loss = mg.mse(pred, mg.Tensor(y[idx]))
            loss.backward()
            model.step(LR)
        value = loss.item()
        losses.append(value)
        mean = float(pred.data.mean())
        _LOG_HOOKS.append(lambda mean=mean: mean)   # the value now, not the variable
        del pred, loss
        if on_step is not None:
            on_step(step, value)
    return {"losses": losses, "model": model}
