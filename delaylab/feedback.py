"""What a learner receives at the end of a step, and the calendar that schedules it.

A pull at step s with delay D is revealed at the end of step s + D (``docs/readings.md``, shared
conventions). The :class:`Calendar` stores, for a batch of runs, which pulls are due at which
step; :meth:`Calendar.pop` returns them as :class:`Arrivals`.
"""

from __future__ import annotations

import numpy as np


class Arrivals:
    """Feedback revealed at the end of step ``t``: one entry per revealed pull.

    Attributes
    ----------
    t : int
        The step at whose end the feedback arrives.
    run : ndarray (n,)
        Batch column of each arrival.
    step : ndarray (n,)
        The step s at which the pull was made.
    arm : ndarray (n,)
        The arm pulled at s (in a linear setting: the index of the action in that round's set).
    value : ndarray (n,) or None
        The reward or loss, for settings that reveal it; ``None`` for conversions, where only
        conversions (value 1) are ever revealed.
    layer : ndarray (n,)
        0 for a run's first arrival at this step, 1 for its second, … (within a step, a run's
        arrivals come latest pull first). Entries of one layer have distinct runs, which lets
        sequential per-observation updates run vectorised, layer after layer.
    """

    __slots__ = ("t", "run", "step", "arm", "value", "_layer")

    def __init__(self, t, run, step, arm, value, layer=None):
        self.t, self.run, self.step, self.arm, self.value = t, run, step, arm, value
        self._layer = layer  # None: a single layer

    @property
    def single_layer(self) -> bool:
        """Whether the arrivals came without layers (``layer=None``: each run has at most one
        arrival, as :meth:`Calendar.pop` finds it), so that updates indexed by run, or by
        (run, arm), touch distinct entries."""
        return self._layer is None

    @property
    def layer(self) -> np.ndarray:
        if self._layer is None:
            return np.zeros(self.run.shape[0], dtype=np.int64)
        return self._layer

    @property
    def delay(self) -> np.ndarray:
        """Delay of each arrival, t − s."""
        return self.t - self.step

    def __len__(self) -> int:
        return self.run.shape[0]

    def values(self) -> np.ndarray:
        """The values (ones for conversions)."""
        return np.ones(len(self)) if self.value is None else self.value

    def add_to(self, out: np.ndarray, mask=None, weights=None) -> None:
        """out[run, arm] += weight of each arrival (default: its value, ones for conversions).

        ``out`` is (B, K); ``mask`` selects arrivals.
        """
        idx = self.run * out.shape[1] + self.arm
        w = self.value if weights is None else weights
        if mask is not None:
            idx = idx[mask]
            w = None if w is None else w[mask]
        flat = out.reshape(-1)
        if self._layer is None:  # at most one arrival per run: no repeated index
            flat[idx] += 1.0 if w is None else w
        else:
            flat += np.bincount(idx, weights=w, minlength=flat.size)

    def layers(self):
        """Yield index arrays of the arrivals, one layer at a time (distinct runs within each)."""
        if len(self) == 0:
            return
        if self._layer is None:
            yield np.arange(len(self))
            return
        for c in range(int(self._layer.max()) + 1):
            yield np.nonzero(self._layer == c)[0]


class AnonymousSums:
    """Aggregated anonymous feedback (Pike-Burke et al. 2018): only the sum of the rewards that
    arrive at the end of step ``t``, per run (``total``, shape (B,)), with no arm, no pull time
    and no count."""

    __slots__ = ("t", "total")

    def __init__(self, t: int, total: np.ndarray):
        self.t, self.total = t, total


_EMPTY_I = np.zeros(0, dtype=np.int64)


class Calendar:
    """Pending feedback of a batch of runs.

    For each (arrival step, run) a bucket holds a linked list of pull steps. Each run makes one
    pull per step, so inserting the pulls of a step never collides and is a single vectorised
    assignment; popping a bucket walks the lists in lockstep, one layer per iteration.
    Memory: rings of ``span`` steps, where ``span`` exceeds every delay that is scheduled.
    """

    def __init__(self, batch_size: int, span: int, with_values: bool):
        self.B, self.W = batch_size, max(1, int(span))
        self.head = np.full((self.W, batch_size), -1, dtype=np.int64)
        self.next = np.full((self.W, batch_size), -1, dtype=np.int64)
        self.arm = np.zeros((self.W, batch_size), dtype=np.int64)
        self.value = np.zeros((self.W, batch_size)) if with_values else None
        self._no_values = None if self.value is None else np.zeros(0)

    def add(self, t: int, due: np.ndarray, delay: np.ndarray, arms: np.ndarray, values=None) -> None:
        """Record the pulls of step t; those with ``due`` arrive at the end of step t + delay."""
        slot = t % self.W
        self.arm[slot] = arms
        if self.value is not None:
            self.value[slot] = values
        cols = np.nonzero(due)[0]
        if cols.size:
            a = (delay[cols] + t) % self.W
            self.next[slot, cols] = self.head[a, cols]
            self.head[a, cols] = t

    def pop(self, t: int) -> Arrivals:
        """Remove and return the pulls revealed at the end of step t."""
        slot = t % self.W
        row = self.head[slot]
        cols = np.nonzero(row >= 0)[0]
        if not cols.size:
            return Arrivals(t, _EMPTY_I, _EMPTY_I, _EMPTY_I, self._no_values)
        steps = row[cols]
        row[cols] = -1
        ring = steps % self.W
        nxt = self.next[ring, cols]
        layer = None
        if nxt.max() >= 0:  # some run has several arrivals at this step: walk the lists
            parts = [(cols, steps)]
            while nxt.max() >= 0:
                keep = nxt >= 0
                cols, steps = cols[keep], nxt[keep]
                parts.append((cols, steps))
                nxt = self.next[steps % self.W, cols]
            layer = np.repeat(np.arange(len(parts)), [c.size for c, _ in parts])
            cols = np.concatenate([c for c, _ in parts])
            steps = np.concatenate([st for _, st in parts])
            ring = steps % self.W
        value = None if self.value is None else self.value[ring, cols]
        return Arrivals(t, cols, steps, self.arm[ring, cols], value, layer)
