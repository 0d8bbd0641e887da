"""Lab 11, part C (provided; do not edit: the grader uses its own copy): a tiny autograd on NumPy.
As in PyTorch, every Tensor an operation makes keeps its inputs and a closure that computes their
gradients (its graph) for as long as it lives: keep a loss, and you keep the whole step."""
import mmap
import weakref

import numpy as np

_live_tensors = weakref.WeakSet()


def live_tensors():
    """How many Tensors are alive right now."""
    return len(_live_tensors)


class Tensor:
    """An array, the Tensors it was made from (parents) and how to pass a gradient back to them."""

    def __init__(self, data, parents=(), backward=None):
        self.data = np.asarray(data, dtype=np.float32)
        self.parents = parents
        self._backward = backward
        self.grad = None
        _live_tensors.add(self)

    def item(self):
        """The value of a one-element Tensor as a Python float (no graph attached)."""
        return float(self.data.reshape(-1)[0])

    def __matmul__(self, other):
        return Tensor(self.data @ other.data, (self, other),
                      lambda g: (g @ other.data.T, self.data.T @ g))

    def __add__(self, other):
        return Tensor(self.data + other.data, (self, other),
                      lambda g: (g, g.sum(axis=0).reshape(other.data.shape)))

    def relu(self):
        mask = self.data > 0
        return Tensor(self.data * mask, (self,), lambda g: (g * mask,))

    def backward(self):
        """Gradients of this one-element Tensor with respect to every Tensor of its graph."""
        order, seen, stack = [], set(), [(self, False)]
        while stack:   # depth first, each Tensor after its parents
            t, parents_done = stack.pop()
            if parents_done:
                order.append(t)
            elif id(t) not in seen:
                seen.add(id(t))
                stack.append((t, True))
                stack.extend((p, False) for p in t.parents)
        self.grad = np.ones_like(self.data)
        for t in reversed(order):
            if t._backward is not None and t.grad is not None:
                for p, g in zip(t.parents, t._backward(t.grad)):
                    p.grad = g if p.grad is None else p.grad + g


def mse(pred, target):
    """Mean squared error of two Tensors of one shape, as a one-element Tensor."""
    diff = pred.data - target.data
    n = diff.size
    return Tensor(np.array((diff * diff).mean(), dtype=np.float32), (pred,),
                  lambda g: (g * 2.0 * diff / n,))


class MLP:
    """Two layers: relu(x @ w1 + b1) @ w2 + b2."""

    def __init__(self, d_in, hidden, rng):
        self.params = [Tensor(rng.normal(0, d_in ** -0.5, (d_in, hidden))),
                       Tensor(np.zeros((1, hidden))),
                       Tensor(rng.normal(0, hidden ** -0.5, (hidden, 1))),
                       Tensor(np.zeros((1, 1)))]

    def __call__(self, x):
        w1, b1, w2, b2 = self.params
        return ((x @ w1 + b1).relu() @ w2) + b2

    def step(self, lr):
        """Plain SGD; then the gradients are cleared."""
        for p in self.params:
            if p.grad is not None:
                p.data -= lr * p.grad
                p.grad = None


class Stager:
    """A staging buffer for one batch (as pinned host memory is for a copy to the GPU): it must be
    closed, by close() or a `with` block, to give its memory back. Stager.live counts the open
    ones."""
    live = 0

    def __init__(self, nbytes):
        # A mapping of its own, as page-locked host memory is: the kernel gets its pages back
        # when the last array viewing it is gone.
        self.buf = np.frombuffer(mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE), np.uint8)
        Stager.live += 1

    def stage(self, batch):
        """batch (a float32 array) copied into the buffer, as an array viewing the buffer."""
        view = self.buf[:batch.nbytes].view(np.float32).reshape(batch.shape)
        view[...] = batch
        return view

    def close(self):
        if self.buf is not None:
            self.buf = None
            Stager.live -= 1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
