r"""Exponential weights with delayed bandit feedback: DEW (Algorithm 1 of Thune, Cesa-Bianchi,
Seldin 2019) and Exp3 tuned as if there were no delays.

Notation (the paper's, steps 0-based in code): K arms, losses ℓ_s(a) ∈ [0, 1], the pull A_s of
step s is observed at the end of step s + d_s. With L̂_t(a) the sum of the loss estimates that
have *arrived* before step t,

    p_t(a) = exp(−η' L̂_t(a)) / Σ_b exp(−η' L̂_t(b)),
    ℓ̂_s(a) = ℓ_s(a) 1{a = A_s} / p_s(A_s),

where p_s is the distribution *at the time s of the pull* (stored until the loss arrives), and
η' = min(η, 1/(4e d_max)) is the truncated learning rate. All losses arriving at the end of a step
enter L̂ before the next draw (the update multiplies the weights by exp(−η' Σ ℓ̂), so their order
does not matter). Weights are computed as exp(−η'(L̂(a) − min_b L̂(b))), which is the same
distribution and never underflows on long horizons.

Arms are drawn by inverse-CDF sampling from the policy's own uniform stream
(``problem.random("exp-weights")``): a run's draws depend only on the seed and its run index,
and every exponential-weights policy of a comparison reads the same uniforms (common random
numbers).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .._validate import check_int, check_real
from .base import Policy, per_run

E = math.e
STREAM = "exp-weights"


class ExpWeightsState(NamedTuple):
    """What the compiled kernel of exponential weights (:mod:`delaylab.kernels.exp_weights`) reads
    and updates of a DEW or Exp3 policy: its own arrays."""

    #: (B, K) L̂, the arrived loss estimates (updated)
    cum_loss: np.ndarray
    #: (B, K) p_t, the distribution of the last draw (updated)
    p: np.ndarray
    #: (W, B) p_s(A_s) of the pulls whose loss may still arrive, slot s mod W (updated)
    p_pull: np.ndarray
    #: (B,) η' per run (Doubling's base: the policy's own array, which it changes per epoch)
    eta: np.ndarray


def theorem1_eta(n_arms: int, horizon: int, total_delay: float) -> float:
    r"""η = √(ln K / (KTe/2 + D)), the tuning of Theorem 1 (Eq. 1) when T and D are known."""
    K = check_int("n_arms", n_arms, low=2)
    T = check_int("horizon", horizon, low=1)
    D = float(check_real("total_delay", total_delay, low=0.0, ndim=(0,)))
    return math.sqrt(math.log(K) / (K * T * E / 2 + D))


class DEW(Policy):
    r"""Delayed exponential weights (Algorithm 1 of Thune, Cesa-Bianchi, Seldin 2019).

    Plays A_t ~ p_t with p_t ∝ exp(−η' L̂_t) and updates L̂ with every importance-weighted loss
    estimate ℓ̂_s = ℓ_s(A_s)/p_s(A_s) as soon as it arrives (see the module docstring).

    Theorem 1: with d_max ≥ max_t d_t, the regret is at most
    max{ln K/η, 4e d_max ln K} + η(KTe/2 + D), D = Σ_t d_t; with η = √(ln K/(KTe/2 + D))
    (:meth:`theorem1`) and η ≤ 1/(4e d_max) this is 2√((KTe/2 + D) ln K).

    Parameters
    ----------
    eta : float or array
        Learning rate η > 0 (one value per grid cell if an array).
    dmax : float, array or None
        Upper bound d_max ≥ 0 on the delays; the learning rate used is η' = min(η, 1/(4e d_max)).
        ``None``: no truncation (η' = η).
    """

    feedback = ("adversarial",)
    grid_params = ("eta", "dmax")

    def __init__(self, eta=0.1, dmax=None):
        self.eta = eta
        self.dmax = dmax

    @classmethod
    def theorem1(cls, n_arms: int, horizon: int, delays) -> "DEW":
        """DEW tuned as in Theorem 1: η = √(ln K/(KTe/2 + D)), d_max = max_t d_t (T, D known)."""
        d = check_real("delays", delays, low=0.0, ndim=(1,))[:horizon]
        return cls(eta=theorem1_eta(n_arms, horizon, d.sum()), dmax=float(d.max()))

    # ------------------------------------------------------------------ lifecycle
    def reset(self, problem):
        B, K = problem.size, problem.n_arms
        self._eta_p = self._truncated_rate()
        self.cum_loss_ = np.zeros((B, K))  # L̂_t(a): arrived loss estimates
        self.p_ = np.full((B, K), 1.0 / K)  # p_t, the distribution of the last draw
        # p_s(A_s) of the pulls whose loss may still arrive: a ring of span steps, not the horizon
        self._W = max(1, min(problem.horizon, problem.span or problem.horizon))
        self._p_pull = np.zeros((self._W, B))
        self._u = problem.random(STREAM)

    def _truncated_rate(self):
        eta = self.column("eta", low=0.0, low_open=True)
        if self.dmax is None:
            return eta
        dmax = self.column("dmax", low=0.0)
        with np.errstate(divide="ignore"):
            return np.minimum(eta, 1.0 / (4 * E * np.asarray(dmax, dtype=float)))

    # ------------------------------------------------------------------ the algorithm
    def probabilities(self) -> np.ndarray:
        """p_t (B, K) from the arrived estimates, with the learning rate η'."""
        L = self.cum_loss_
        w = L.min(axis=1, keepdims=True) - L  # −(L̂ − min L̂), exactly
        w *= self._eta_p
        np.exp(w, out=w)
        w /= w.sum(axis=1, keepdims=True)
        return w

    def choose(self, t, context=None):
        self.p_ = p = self.probabilities()
        c = p.cumsum(axis=1)
        u = self._u(t)[:, None] * c[:, -1:]
        return (c[:, :-1] <= u).sum(axis=1)

    def update(self, t, arms, feedback):
        self.record_pull(t, arms)
        if len(feedback):
            self._observe(feedback)

    def uniforms(self, t0: int, t1: int) -> np.ndarray:
        """The policy's own uniforms of steps t0 … t1 − 1, (t1 − t0, B): those :meth:`choose`
        draws the arms with."""
        return self._u.rows(t0, t1)

    def kernel_state(self) -> ExpWeightsState:
        """The state the compiled kernel works on (see :class:`ExpWeightsState`)."""
        B = self._cols.size
        eta = self._eta_p
        if isinstance(eta, np.ndarray) and eta.shape == (B, 1) and eta.flags.c_contiguous and eta.flags.writeable:
            eta = eta[:, 0]  # the policy's own per-run rates (Doubling changes them)
        else:
            eta = per_run(eta, B)
        return ExpWeightsState(self.cum_loss_, self.p_, self._p_pull, eta)

    def record_pull(self, t, arms) -> None:
        """Keep p_t(A_t), the probability of each run's pull of step t, until its loss arrives.

        :meth:`update` does it first; a policy built on this one (:class:`~.skipper.Skipper`)
        calls it for the pulls it makes through this base."""
        self._p_pull[t % self._W] = self.p_.reshape(-1)[self._flat + arms]

    def p_at_pull(self, step, run) -> np.ndarray:
        """p_s(A_s): the probability with which the pull of ``step`` in ``run`` was drawn (for the
        pulls whose loss may still arrive)."""
        return self._p_pull[step % self._W, run]

    def observe(self, feedback, keep=None) -> None:
        """Learn from the arrived losses (those selected by the boolean mask ``keep`` if given).

        What a policy built on this one (:class:`~.skipper.Skipper`, :class:`~.skipper.Doubling`)
        calls to pass on the losses it keeps; :meth:`update` learns from all of them. Both go
        through :meth:`_observe`, the update a subclass overrides."""
        self._observe(feedback, keep)

    def _observe(self, feedback, keep=None):
        """L̂(A_s) += ℓ_s(A_s)/p_s(A_s) for the arrivals (those with ``keep`` if given)."""
        est = feedback.value / self.p_at_pull(feedback.step, feedback.run)
        feedback.add_to(self.cum_loss_, mask=keep, weights=est)

    def restart_runs(self, runs: np.ndarray) -> None:
        """Forget everything learned by the given runs (columns), as a fresh instance would
        (the learning rate aside: see :meth:`set_rate`)."""
        self.cum_loss_[runs] = 0.0

    def set_rate(self, eta_prime, runs=None) -> None:
        """Set η', the learning rate used, in place of the one derived from ``eta`` and ``dmax``.

        ``runs=None``: ``eta_prime`` is one value per run, (B,) or (B, 1), for every run; else
        the rates of the given runs (columns) only. For a policy that tunes its base's rate as
        it goes (:class:`~.skipper.Doubling`, per epoch); the compiled kernel reads and writes
        these per-run rates (:meth:`kernel_state`)."""
        B = self._cols.size
        if runs is None:
            self._eta_p = np.array(np.broadcast_to(np.asarray(eta_prime, dtype=float).reshape(-1, 1), (B, 1)),
                                   order="C")
            return
        if not (isinstance(self._eta_p, np.ndarray) and self._eta_p.shape == (B, 1)):
            self._eta_p = np.array(np.broadcast_to(self._eta_p, (B, 1)), dtype=float, order="C")
        self._eta_p[runs, 0] = eta_prime

    def snapshot(self):
        return {"p": self.probabilities(), "eta": np.broadcast_to(self._eta_p, (self._cols.size, 1))[:, 0].copy()}


class Exp3(DEW):
    r"""Exp3 tuned as if there were no delays: η = √(2 ln K/(KT)) (Bubeck and Cesa-Bianchi 2012,
    Theorem 3.1), no truncation; delayed losses are used when they arrive, like DEW.

    The baseline a practitioner would try first: it ignores how long the losses take to come.

    Parameters
    ----------
    eta : float, array or None
        Learning rate η > 0; ``None`` for the delay-free tuning √(2 ln K/(KT)).
    """

    def __init__(self, eta=None):
        self.eta = eta

    @property
    def dmax(self):
        return None

    def _truncated_rate(self):
        if self.eta is None:
            K, T = self.problem_.n_arms, self.problem_.horizon
            return math.sqrt(2 * math.log(K) / (K * T))
        return self.column("eta", low=0.0, low_open=True)
