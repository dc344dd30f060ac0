r"""Index policies without delay correction: the baselines a practitioner would try first.

Both play each arm once, then the arm with the largest index (ties: the lowest arm), and
estimate arm k by x̄_k = S_k / n_k where

* with **conversions** feedback, S_k counts the conversions revealed so far and n_k = N_k the
  pulls: a pull without news is taken as a zero, so x̄_k is biased low while feedback is on
  its way (more for the arm played most recently);
* with **labelled** feedback (every reward revealed), S_k sums the revealed rewards and n_k
  counts them: pending pulls are simply ignored until their reward arrives.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..indices import exploration, klucb_bernoulli, ucb1_index
from .base import Policy, per_run


class BlindIndexState(NamedTuple):
    """What the compiled kernel of UCB1 and KL-UCB (:mod:`delaylab.kernels.index`) reads and
    updates: the policy's own arrays, (B, K) per run and arm."""

    #: N_k, the pulls (updated)
    pulls: np.ndarray
    #: S_k, the revealed conversions or rewards (updated)
    successes: np.ndarray
    #: the number of revealed rewards (updated with labelled feedback)
    revealed: np.ndarray
    #: whether the feedback is labelled (n_k = revealed rewards) or conversions (n_k = N_k)
    labelled: bool
    #: (B,) the exploration parameter per run: c (UCB1) or ε (KL-UCB)
    par: np.ndarray


class IndexPolicy(Policy):
    """Play each arm once (the first K steps), then argmax of :meth:`index`."""

    def choose(self, t, context=None):
        K = self.problem_.n_arms
        if t < K:
            return np.full(self.problem_.size, t, dtype=np.int64)
        return np.argmax(self.index(t), axis=1)

    def index(self, t: int) -> np.ndarray:  # pragma: no cover - abstract
        """Index of every arm for the decision of step t (0-based), shape (B, K)."""
        raise NotImplementedError


class _BlindIndex(IndexPolicy):
    feedback = ("conversions", "labelled")

    def reset(self, problem):
        B, K = problem.size, problem.n_arms
        self.pulls_ = np.zeros((B, K))  # N_k
        self.successes_ = np.zeros((B, K))  # S_k: revealed conversions / rewards
        self.revealed_ = np.zeros((B, K))  # number of revealed rewards (labelled feedback)
        self._labelled = problem.feedback == "labelled"
        self._start_index()

    def _start_index(self):
        pass

    def update(self, t, arms, feedback):
        self.pulls_.reshape(-1)[self._flat + arms] += 1.0
        if len(feedback):
            feedback.add_to(self.successes_)
            if self._labelled:
                feedback.add_to(self.revealed_, weights=np.ones(len(feedback)))

    def kernel_state(self) -> BlindIndexState:
        """The state the compiled kernel works on (see :class:`BlindIndexState`)."""
        return BlindIndexState(self.pulls_, self.successes_, self.revealed_, bool(self._labelled),
                               per_run(self._exploration(), self._cols.size))

    def _exploration(self):  # pragma: no cover - abstract
        """The exploration parameter, a scalar or (B, 1)."""
        raise NotImplementedError

    def counts(self) -> np.ndarray:
        """n_k: pulls (conversions) or revealed rewards (labelled)."""
        return self.revealed_ if self._labelled else self.pulls_

    def mean(self) -> np.ndarray:
        """x̄_k = S_k / n_k (0 while n_k = 0, when S_k = 0 too)."""
        return self.successes_ / np.maximum(self.counts(), 1.0)

    def snapshot(self):
        return {"mean": self.mean(), "pulls": self.pulls_.copy()}


class UCB1(_BlindIndex):
    r"""UCB1 (Auer, Cesa-Bianchi, Fischer 2002) with no delay correction.

    Index x̄_k + sqrt(c log t / n_k), with c = 2 as in the original paper; note that the
    delay-corrected D-UCB of Vernade et al. (2017) uses the narrower sqrt(β(t) / (2Ñ)) with
    β(t) = log t, i.e. c = 1/2 when nothing is delayed.

    Parameters
    ----------
    c : float or array
        Exploration constant (> 0); one value per grid cell if an array.
    """

    grid_params = ("c",)

    def __init__(self, c=2.0):
        self.c = c

    def _start_index(self):
        self._c = self.column("c", low=0.0, low_open=True)

    def _exploration(self):
        return self._c

    def index(self, t):
        n = self.counts()
        idx = ucb1_index(self.mean(), np.maximum(n, 1e-300), t + 1, self._c)
        idx[n <= 0] = np.inf
        return idx


class KLUCB(_BlindIndex):
    r"""KL-UCB (Garivier and Cappé 2011) with no delay correction.

    Index max{q ∈ [x̄_k, 1] : n_k d(x̄_k, q) ≤ β_ε(t)}, d the Bernoulli KL divergence and
    β_ε(t) = (1 + ε) log t, the exploration function of Vernade et al. (2017).

    Parameters
    ----------
    eps : float or array
        ε ≥ 0. Default 0 (β(t) = log t), as for D-KLUCB: Vernade et al. (2017) do not state the
        exploration function of their experiments (their analysis takes ε > 0).
    """

    grid_params = ("eps",)

    def __init__(self, eps=0.0):
        self.eps = eps

    @property
    def label(self):
        return "KL-UCB"

    def _start_index(self):
        self._eps = self.column("eps", low=0.0, high=1e6)  # beyond, log(log t)·eps overflows

    def _exploration(self):
        return self._eps

    def index(self, t):
        return klucb_bernoulli(self.mean(), self.counts(), exploration(t + 1, self._eps))
