r"""The Discarding baselines of Vernade, Cappé, Perchet (2017, end of Section 6).

Only pulls at least m steps old are used: by then every conversion that the window lets
through has arrived, so with N_k(t − m) such pulls and S_k(t − m) of their conversions,

    θ̂^m_k = S_k(t − m) / (τ_m N_k(t − m))

is unbiased, and the usual indices apply to the scaled problem (τ_m θ_k)_k:

* Discarding UCB:    U^m_k = θ̂^m_k + sqrt(β_ε(t) / (2 τ_m N_k(t − m)));
* Discarding KL-UCB: U^m_k = max{q ∈ [θ̂^m_k, 1] : τ_m N_k(t − m) d_Pois(θ̂^m_k, q) ≤ β_ε(t)}.

(S_k(t − m) as printed; we count the conversions, seen by now, of the pulls at least m steps old:
our reading, the one that makes θ̂^m unbiased.) Discarding UCB's width has no factor like
D-UCB's sqrt(N/Ñ): asymptotically it is narrower than D-UCB's by sqrt(τ_m).

No index exists before an arm has a pull m steps old: arms without one are played round robin
(the least-pulled first; our reading: the paper only says the indices "can only be computed after
at least m rounds"), which produces the linear-regret phase of the first m steps seen in Figure 2.
Conversions later than m are ignored even on an uncensored setting.

The paper calls these policies asymptotically optimal (end of Section 6, as printed). Our reading
of its analysis: Discarding KL-UCB is near-optimal, within the factor 1/(1 − τ_m θ*) that the
Poisson divergence costs (Lemma 8); Discarding UCB is not (notebook 01, Section 7).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..indices import exploration, klucb_poisson
from .base import per_run
from .delayed import DelayAwareIndex, assumed_laws, check_policy_window, tau_at


class DiscardingState(NamedTuple):
    """What the compiled kernel of Discarding UCB / KL-UCB (:mod:`delaylab.kernels.index`) reads
    and updates: the policy's own arrays."""

    #: (B, K) N_k(t), all pulls (updated)
    pulls: np.ndarray
    #: (B, K) N_k(t − m), the pulls at least m steps old (updated)
    done_pulls: np.ndarray
    #: (B, K) S_k(t − m), their conversions (updated)
    done_successes: np.ndarray
    #: (m + 1, B) int64, the arms of the last m + 1 steps, slot t mod (m + 1) (updated)
    arms: np.ndarray
    #: (m + 1, B) whether those pulls' conversions were revealed (updated)
    converted: np.ndarray
    #: (B, K) τ_m per run and arm
    tau_m: np.ndarray
    #: (B,) ε per run
    eps: np.ndarray
    #: the window m
    m: int


class _Discarding(DelayAwareIndex):
    @property
    def label(self):
        return "Discarding " + self._name

    def reset(self, problem):
        owner = type(self).__name__
        m = check_policy_window(owner, self.window, problem.window, required=True)
        laws = assumed_laws(owner, self.delay, problem.n_arms)
        self._tau_m = tau_at(laws, m, problem.batch)  # τ_m per run and arm
        if np.any(self._tau_m <= 0):
            raise ValueError(f"{owner}: the assumed law gives τ_m = P(D ≤ {m}) = 0; use a larger window")
        self._m = min(m, problem.horizon)  # with m ≥ T no pull ever gets m steps old
        self._eps = self.column("eps", low=0.0)
        B, K = problem.size, problem.n_arms
        self.pulls_ = np.zeros((B, K))  # N_k(t): all pulls
        self.done_pulls_ = np.zeros((B, K))  # N_k(t − m): pulls at least m steps old
        self.done_successes_ = np.zeros((B, K))  # S_k(t − m): their conversions
        self._arms = np.zeros((self._m + 1, B), dtype=np.int64)  # arms of the last m + 1 steps
        self._converted = np.zeros((self._m + 1, B))  # revealed conversion of those pulls

    def update(self, t, arms, feedback):
        m, ring = self._m, self._m + 1
        self.pulls_.reshape(-1)[self._flat + arms] += 1.0
        self._arms[t % ring] = arms
        self._converted[t % ring] = 0.0
        if len(feedback):
            ok = feedback.delay <= m
            self._converted[feedback.step[ok] % ring, feedback.run[ok]] = 1.0
        s = t - m  # the pull of step s is now m steps old: all its feedback is in
        if s >= 0:
            old = self._flat + self._arms[s % ring]
            self.done_pulls_.reshape(-1)[old] += 1.0
            self.done_successes_.reshape(-1)[old] += self._converted[s % ring]

    def kernel_state(self) -> DiscardingState:
        """The state the compiled kernel works on (see :class:`DiscardingState`)."""
        B = self._cols.size
        tau_m = np.array(np.broadcast_to(self._tau_m, (B, self.problem_.n_arms)), dtype=float, order="C")
        return DiscardingState(self.pulls_, self.done_pulls_, self.done_successes_, self._arms, self._converted,
                               tau_m, per_run(self._eps, B), int(self._m))

    def choose(self, t, context=None):
        missing = self.done_pulls_ == 0  # arms without a pull m steps old: no index yet
        if not missing.any():
            return np.argmax(self.index(t), axis=1)
        robin = np.argmin(np.where(missing, self.pulls_, np.inf), axis=1)  # least pulled first
        waiting = missing.any(axis=1)
        if waiting.all():
            return robin
        return np.where(waiting, robin, np.argmax(self.index(t), axis=1))

    def estimates(self):
        n = self._tau_m * self.done_pulls_  # τ_m N_k(t − m)
        theta = np.divide(self.done_successes_, n, out=np.zeros_like(n), where=n > 0)
        return theta, n

    def index(self, t):
        theta, n = self.estimates()
        return self._index(theta, n, exploration(t + 1, self._eps))

    def snapshot(self):
        theta, n = self.estimates()
        return {"theta_hat": theta, "n_tilde": n.copy(), "pulls": self.pulls_.copy()}


class DiscardingUCB(_Discarding):
    r"""Discarding UCB: U^m_k = θ̂^m_k + sqrt(β_ε(t) / (2 τ_m N_k(t − m))) (Section 6).

    Parameters
    ----------
    delay : DelayLaw or list of DelayLaw
        The assumed law (only τ_m is used).
    window : int
        m ≥ 0 (required).
    eps : float or array
        ε ≥ 0 in β_ε(t) = (1 + ε) log t.
    """

    _name = "UCB"

    def _index(self, theta, n, beta):
        index = theta + np.sqrt(beta / (2.0 * np.maximum(n, 1e-300)))
        index[n <= 0] = np.inf
        return index


class DiscardingKLUCB(_Discarding):
    r"""Discarding KL-UCB: max{q ∈ [θ̂^m_k, 1] : τ_m N_k(t − m) d_Pois(θ̂^m_k, q) ≤ β_ε(t)}.

    Parameters as :class:`DiscardingUCB`.
    """

    _name = "KL-UCB"

    def _index(self, theta, n, beta):
        return klucb_poisson(theta, n, beta)
