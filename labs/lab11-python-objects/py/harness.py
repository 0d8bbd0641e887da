"""Lab 11 tests (provided), in Python: which of a test's inputs the interpreter counts references
to, objects that hold 64 KiB for the tests that watch memory, and what the part C tests measure
of your train_loop. The C tests (tests/check_*.c) call these and compare what they return with
what they expect, or replay it (tests/replay.c)."""
import faulthandler
import gc
import sys
import tracemalloc

import numpy as np

import minigrad as mg

# A crash of your process (a segfault, a fatal error) prints its "Fatal Python error" line and
# the Python lines that ran into it; the grader quotes the first line in the failed test.
faulthandler.enable()

WARMUP_STEPS, MEASURED_STEPS = 40, 200


def mortal_ints(*values):
    """values as ints made now, each moved 257 further from zero: (0, 4, -1) -> (257, 261, -258).
    Python 3.12+ makes the small ints (-5 to 256) immortal (PEP 683), and a leaked reference to
    one of them is not counted; one of these is counted on every Python."""
    return tuple(v + 257 if v >= 0 else v - 257 for v in values)


class BigKey:
    """A key for group_by that holds a big(): equal for items of the same first byte. A leaked
    reference to one keeps 64 KiB the harness sees from outside (tests/support.h)."""

    def __init__(self, w, big):
        self.tag, self.pad = w[0], big(7)

    def __hash__(self):
        return self.tag

    def __eq__(self, other):
        return self.tag == other.tag


class BigStr(str):
    """A str that holds a big() (pad), as a TensorBuf's format."""


class BigList(list):
    """A list that holds a big() (pad), as a TensorBuf's shape."""


def padded(cls, big, value):
    """cls(value) holding a new big(): a reference leaked to it keeps 64 KiB."""
    x = cls(value)
    x.pad = big(1)
    return x


def uncounted(objs):
    """The objects of objs whose references the interpreter does not count: immortal ones (PEP
    683, Python 3.12+: None, True, False, small ints, one-character and many interned strings,
    static types). Nothing leaked to those shows in sys.gettotalrefcount(), so the objects a
    test counts references to must be made at run time: [] for them on every Python."""
    out = []
    for x in objs:
        n = sys.getrefcount(x)
        again = x
        if sys.getrefcount(again) != n + 1:
            out.append(x)
    return out


def run(train_loop, steps):
    """train_loop.train(steps) -> its result, and the losses on_step reported."""
    seen = []
    result = train_loop.train(steps, seed=11, on_step=lambda s, l: seen.append((s, l)))
    return result, seen


def predicted_means(fn):
    """fn()'s result, and the mean of every prediction the MLP made while it ran (the value
    each step's flush_log() hook must give back), in order."""
    means, call = [], mg.MLP.__call__

    def recording(self, x):
        out = call(self, x)
        means.append(float(out.data.mean()))
        return out
    mg.MLP.__call__ = recording
    try:
        return fn(), means
    finally:
        mg.MLP.__call__ = call


def log_mismatch(train_loop, means):
    """'' if the last len(means) values of train_loop.flush_log() are each step's mean
    prediction, in order, else what differs."""
    try:
        values = train_loop.flush_log()
    except Exception as e:  # noqa: BLE001 (what was raised is the answer)
        return f"flush_log() raised {type(e).__name__}: {e}"
    if not isinstance(values, list) or len(values) < len(means):
        n = len(values) if isinstance(values, list) else type(values).__name__
        return f"flush_log() gave {n} values after {len(means)} steps: one per step expected " \
               "(each the mean prediction of its step)"
    for step, (got, want) in enumerate(zip(values[-len(means):], means)):
        if type(got) is not float or abs(got - want) > 1e-6 * max(1.0, abs(want)):
            return f"flush_log()'s value for step {step} is {got!r}, its mean prediction " \
                   f"{want!r}: each hook must give back its own step's value (a lambda binds " \
                   "the variable, not its value at the time)"
    return ""


def reports_wrong(result, seen, steps):
    """'' if train(steps)'s result and the losses on_step reported are as its docstring says and
    the model learned, else why not."""
    losses = result.get("losses") if isinstance(result, dict) else None
    if not isinstance(losses, list) or len(losses) != steps:
        return f"train({steps}) must return {{'losses': a list of {steps} losses, ...}}"
    if [s for s, _ in seen] != list(range(steps)):
        return "on_step(step, loss) must be called once per step, in order"
    if not all(type(l) is float for _, l in seen):
        return "on_step's loss must be a Python float"
    first, last = sum(l for _, l in seen[:10]) / 10, sum(l for _, l in seen[-10:]) / 10
    if not last < 0.6 * first:
        return f"the model no longer learns: mean loss {first:.4f} over the first 10 steps, " \
               f"{last:.4f} over the last 10"
    return ""


def trajectory(train_loop, steps):
    """What train(steps, seed=11) did, as float32 bytes for the C tests to replay step by step
    (tests/replay.h gives the layout): the model's parameters as made, each step's inputs and
    targets as the model and mse saw them, each step's loss as on_step gave it and as the result
    lists it, the last `steps` values of flush_log(), and the parameters at the end. Or, as a
    str, why that run is not what train()'s docstring says (learns' checks, on the same run)."""
    seen_x, seen_y, first = [], [], []
    init, call, mse = mg.MLP.__init__, mg.MLP.__call__, mg.mse

    def recording_init(self, *args):
        init(self, *args)
        first.extend(p.data.copy() for p in self.params)

    def recording_call(self, x):
        seen_x.append(x.data.copy())
        return call(self, x)

    def recording_mse(pred, target):
        seen_y.append(target.data.copy())
        return mse(pred, target)
    mg.MLP.__init__, mg.MLP.__call__, mg.mse = recording_init, recording_call, recording_mse
    try:
        (result, seen), means = predicted_means(lambda: run(train_loop, steps))
    finally:
        mg.MLP.__init__, mg.MLP.__call__, mg.mse = init, call, mse
    why = reports_wrong(result, seen, steps) or log_mismatch(train_loop, means[-steps:])
    if why:
        return why
    listed = [float(getattr(l, "data", l)) for l in result["losses"]]  # a Tensor's value too
    parts = first + seen_x + seen_y + [[l for _, l in seen], listed,
                                       train_loop.flush_log()[-steps:]]
    parts += [p.data for p in result["model"].params]
    return b"".join(np.asarray(p, np.float32).tobytes() for p in parts)


def learns(train_loop, steps=150):
    """'' if train() still trains and reports as its docstring says, and flush_log() gives back
    each step's mean prediction, else why not."""
    (result, seen), means = predicted_means(lambda: run(train_loop, steps))
    return reports_wrong(result, seen, steps) or log_mismatch(train_loop, means[-steps:])


def losses_hold_graphs(train_loop, steps=20):
    """How many of the returned losses are not Python floats (each holds its step's graph)."""
    result, _ = run(train_loop, steps)
    return sum(type(l) is not float for l in result["losses"])


def survivors(train_loop, steps=20):
    """(Tensors, open Stagers) alive after train() returned and its result was dropped, after a
    full collection: what the loop left behind for good."""
    gc.collect()
    tensors0, stagers0 = mg.live_tensors(), mg.Stager.live
    result, _ = run(train_loop, steps)
    del result
    gc.collect()
    return mg.live_tensors() - tensors0, mg.Stager.live - stagers0


def growth(train_loop):
    """Bytes tracemalloc saw still allocated at the end of MEASURED_STEPS steps beyond what was
    allocated after the first WARMUP_STEPS (a collection before each reading), and the steps."""
    marks = {}

    def on_step(step, loss):
        if step in (WARMUP_STEPS - 1, WARMUP_STEPS + MEASURED_STEPS - 1):
            gc.collect()
            marks[step] = tracemalloc.get_traced_memory()[0]
    tracemalloc.start()
    try:
        result = train_loop.train(WARMUP_STEPS + MEASURED_STEPS, seed=11, on_step=on_step)
    finally:
        tracemalloc.stop()
    del result
    if len(marks) != 2:
        return None
    return marks[WARMUP_STEPS + MEASURED_STEPS - 1] - marks[WARMUP_STEPS - 1], MEASURED_STEPS
