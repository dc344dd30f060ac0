r"""QPM-D (Joulani, György, Szepesvári 2013): a non-delayed bandit algorithm fed from queues.

The setting must reveal every reward with its arm (:class:`~delaylab.LabelledRewards`). Each
revealed reward goes into its arm's FIFO queue Q_k. A base algorithm (UCB1, as in Pike-Burke
et al. 2018, Section 5) runs as if nothing were delayed, on its own clock r = the number of
rewards it has received. At each step t::

    J ← the base's choice                      (UCB1: arm r for r < K, then argmax of its index)
    while Q_J is not empty:                    # feedback the base is waiting for is already here
        give the base the oldest reward of Q_J; r ← r + 1; J ← the base's new choice
    play A_t = J                               # the base waits for arm J's reward

Rewards revealed at the end of a step enter the queues latest pull first (the engine's order of
:class:`~delaylab.Arrivals`); with i.i.d. rewards any fixed order gives the same law.
Joulani et al. show the regret is that of the base algorithm plus an additive O(K E[τ]) term.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..indices import exploration, klucb_bernoulli
from .base import Policy, param_column, per_run
from .ucb import KLUCB, UCB1

__all__ = ["QPMD", "QPMDState"]


class QPMDState(NamedTuple):
    """What the compiled kernel of QPM-D (:mod:`delaylab.kernels.qpmd`) reads and updates: the
    policy's own arrays. The queues are rings of ``capacity`` slots; :meth:`QPMD.grow` replaces
    ``buf``, so the state is taken again after it."""

    #: (B, K) the number of rewards the base has received (updated)
    n: np.ndarray
    #: (B, K) their sum (updated)
    s: np.ndarray
    #: (B, K) the pulls (updated)
    pulls: np.ndarray
    #: (B, K, capacity) the queues' rewards (updated)
    buf: np.ndarray
    #: (B, K) int64, the slot of each queue's oldest reward (updated)
    head: np.ndarray
    #: (B, K) int64, the rewards waiting in each queue (updated)
    queue_len: np.ndarray
    #: (B,) int64, the arm the base waits for (updated)
    J: np.ndarray
    #: (B,) the base's exploration parameter per run: c (UCB1) or ε (KL-UCB)
    par: np.ndarray
    #: whether the base is UCB1 (else KL-UCB)
    ucb: bool


class QPMD(Policy):
    """QPM-D with a non-delayed base algorithm.

    Parameters
    ----------
    base : UCB1 or KLUCB
        The base algorithm (its hyperparameters are used; its state is QPM-D's own).

    State: ``n_`` and ``s_`` (B, K), the number and sum of the rewards the base has received;
    ``queue_len_`` (B, K), the rewards waiting in each queue; ``pulls_`` (B, K).
    """

    feedback = ("labelled",)

    def __init__(self, base=None):
        self.base = UCB1() if base is None else base

    @property
    def label(self):
        return "QPM-D"

    def n_cells(self):
        return {f"base.{k}": v for k, v in self.base.n_cells().items()} if isinstance(self.base, Policy) else {}

    def reset(self, problem):
        if not isinstance(self.base, (UCB1, KLUCB)):
            raise ValueError(f"QPMD: base must be delaylab.UCB1(...) or delaylab.KLUCB(...); got {self.base!r}")
        self._ucb = isinstance(self.base, UCB1)
        if self._ucb:
            self._par = param_column(self.base, "c", problem.batch, low=0.0, low_open=True)
        else:
            self._par = param_column(self.base, "eps", problem.batch, low=0.0)
        B, K = problem.size, problem.n_arms
        self.n_ = np.zeros((B, K))
        self.s_ = np.zeros((B, K))
        self.pulls_ = np.zeros((B, K))
        self._cap = 16  # queue capacity (doubled when needed)
        self._buf = np.zeros((B, K, self._cap))
        self._head = np.zeros((B, K), dtype=np.int64)
        self.queue_len_ = np.zeros((B, K), dtype=np.int64)
        self._K = K
        self.J_ = np.zeros(B, dtype=np.int64)  # the base's first choice: arm 0

    # ------------------------------------------------------------------ the base algorithm
    def _base_choice(self, n, s, par):
        """The base's choice at the state (n, s) of shape (…, K): arm ρ at its round
        ρ = Σ_k n_k < K, then the argmax of its index at decision ρ + 1 (as UCB1/KLUCB.choose)."""
        rho = n.sum(axis=-1)
        mean = s / np.maximum(n, 1.0)
        if self._ucb:  # ucb1_index(mean, n, ρ + 1, c), inlined (the same operations)
            idx = mean + np.sqrt(par * np.log(rho + 1)[..., None] / np.maximum(n, 1e-300))
        else:
            idx = klucb_bernoulli(mean, n, exploration((rho + 1)[..., None], par))
        idx[n <= 0] = np.inf
        return np.where(rho < self._K, rho.astype(np.int64), np.argmax(idx, axis=-1))

    def _par_of(self, r, extra_axes=0):
        if np.ndim(self._par) == 0:
            return self._par
        return self._par[r].reshape((len(r),) + (1,) * extra_axes + (1,))

    def choose(self, t, context=None):
        """Feed the base from the queues while it asks for an arm whose queue is not empty.

        Vectorised over runs; for each run waiting on arm J, the base's choices after 1, 2, …
        rewards popped from Q_J are computed at once, and exactly the pops up to its first
        change of mind (or until Q_J is empty) are applied.
        """
        K, cap = self._K, self._cap
        qlen, head, buf = self.queue_len_.reshape(-1), self._head.reshape(-1), self._buf.reshape(-1, cap)
        n_flat, s_flat = self.n_.reshape(-1), self.s_.reshape(-1)
        J = self.J_
        f_all = self._flat + J
        q_all = qlen[f_all]
        while True:
            r = np.flatnonzero(q_all)
            if not r.size:
                self.J_ = J
                return J.copy()
            f, q, Jr = f_all[r], q_all[r], J[r]
            i = np.arange(r.size)
            Qm = int(q.max())
            if Qm == 1:  # one reward waiting in each queue: pop it
                hd = head[f]
                v = buf[f, hd]
                n, s = self.n_[r], self.s_[r]
                n[i, Jr] += 1.0
                s[i, Jr] += v
                new = self._base_choice(n, s, self._par_of(r))
                pops, gained = 1, v
            else:
                j = np.arange(Qm)
                hd = head[f]
                vals = np.where(j < q[:, None], buf[f[:, None], (hd[:, None] + j) % cap], 0.0)
                pre = np.cumsum(vals, axis=1)  # rewards given to the base after 1 … Qm pops
                hot = Jr[:, None] == np.arange(K)  # (r, K)
                n = self.n_[r][:, None, :] + (j + 1.0)[None, :, None] * hot[:, None, :]
                s = self.s_[r][:, None, :] + pre[:, :, None] * hot[:, None, :]
                ch = self._base_choice(n, s, self._par_of(r, 1))  # (r, Qm)
                stop = (ch != Jr[:, None]) | (j >= q[:, None] - 1)
                last = np.argmax(stop, axis=1)  # pops − 1
                pops, gained, new = last + 1, pre[i, last], ch[i, last]
            head[f] = (hd + pops) % cap
            qlen[f] -= pops
            n_flat[f] += pops
            s_flat[f] += gained
            J = J.copy()
            J[r] = new
            f_all[r] = self._flat[r] + new
            q_all = np.zeros_like(q_all)
            q_all[r] = qlen[f_all[r]]

    def update(self, t, arms, feedback):
        self.pulls_.reshape(-1)[self._flat + arms] += 1.0
        n = len(feedback)
        if not n:
            return
        f = feedback.run * self._K + feedback.arm
        if feedback.single_layer:  # at most one arrival per run: distinct queues
            rank = np.zeros(n, dtype=np.int64)
        else:  # arrivals of one queue enter in the order of their layers (latest pull first)
            order = np.lexsort((feedback.layer, f))
            fs = f[order]
            first = np.r_[True, fs[1:] != fs[:-1]]
            starts = np.flatnonzero(first)
            rank = np.empty(n, dtype=np.int64)
            rank[order] = np.arange(n) - np.repeat(starts, np.diff(np.r_[starts, n]))
        size = self.queue_len_.reshape(-1)[f] + rank
        while size.max() >= self._cap:
            self.grow()
        tail = (self._head.reshape(-1)[f] + size) % self._cap
        self._buf.reshape(-1, self._cap)[f, tail] = feedback.value
        np.add.at(self.queue_len_.reshape(-1), f, 1)

    def kernel_state(self) -> QPMDState:
        """The state the compiled kernel works on (see :class:`QPMDState`)."""
        return QPMDState(self.n_, self.s_, self.pulls_, self._buf, self._head, self.queue_len_, self.J_,
                         per_run(self._par, self._cols.size), bool(self._ucb))

    def grow(self):
        """Double the queue capacity, keeping each queue's order."""
        order = (self._head[..., None] + np.arange(self._cap)) % self._cap
        self._buf = np.concatenate([np.take_along_axis(self._buf, order, axis=2), np.zeros_like(self._buf)], axis=2)
        self._head[:] = 0
        self._cap *= 2

    def snapshot(self):
        return {"n": self.n_.copy(), "mean": self.s_ / np.maximum(self.n_, 1.0),
                "queued": self.queue_len_.copy(), "pulls": self.pulls_.copy()}
