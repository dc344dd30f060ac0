r"""Delay laws estimated online: the heuristics of Vernade et al. (2017, Appendix D).

The delay law is shared by all arms, so every observed conversion also tells about the delays,
at no exploration cost. Pass one of these objects as ``delay=`` to
:class:`~delaylab.DelayedUCB` or :class:`~delaylab.DelayedKLUCB` instead of a known law.

* :class:`OnlineGeometric` (uncensored model): geometric delays whose mean is estimated by the
  stochastic approximation μ̂ ← (1 − α_n) μ̂ + α_n D_n, α_n = n^{−γ}, 1/2 ≤ γ ≤ 1, applied to
  each observed delay D_n; λ̂ = μ̂ / (1 + μ̂) is then plugged into the recursion of Eq. (6).
* :class:`OnlineCDF` (censored model): the empirical CDF of the observed delays,
  δ_s / n_d (δ_s: number of observed delays ≤ s, n_d: number observed). All observed delays
  are ≤ m, so it estimates τ_s / τ_m: Ñ is estimated up to the factor τ_m, and θ̂ estimates
  τ_m θ (the paper notes this bias; it scales every arm alike).

Readings we had to choose (the appendix is terse), stated here and in the notebook:

* α_n uses n, the number of delays observed so far by the run (so α_1 = 1 and μ̂ starts at the
  first observed delay); "α_t = 1/t^γ" could also be read with the round t.
* Before any observation, μ̂ = ``initial_mean`` (default 0: no delay assumed) and the empirical
  CDF is taken as 1 (no evidence of delays yet). Nothing is observed then, so θ̂ = 0 whatever
  the weights and only the exploration term drives the choices.
* The recursion of Eq. (6) is applied with the current λ̂ at each step (O(1), as the paper
  intends), rather than recomputing Σ λ̂^{t−s} over all past pulls whenever λ̂ changes.
* Several conversions revealed at the same step update μ̂ one after the other, the latest pull
  first.
"""

from __future__ import annotations

import numpy as np

from .._validate import check_real
from .counts import GeometricCount, TabulatedCount


class OnlineGeometric:
    """Estimate a geometric delay law online (uncensored model, Appendix D).

    Parameters
    ----------
    gamma : float
        Exponent of the step sizes α_n = n^{−γ}, in [1/2, 1] (1: running mean).
    initial_mean : float
        μ̂ before any delay is observed (≥ 0).
    """

    label = "estimated geometric law"

    def __init__(self, gamma=1.0, initial_mean=0.0):
        self.gamma = gamma
        self.initial_mean = initial_mean

    def __repr__(self):
        return f"OnlineGeometric(gamma={self.gamma!r}, initial_mean={self.initial_mean!r})"

    def counter(self, window, batch_size, n_arms):
        if window is not None:
            raise ValueError(
                "OnlineGeometric estimates the mean delay from all observed delays, which the "
                "censored model truncates; with a window use delaylab.OnlineCDF()"
            )
        gamma = float(check_real("gamma", self.gamma, low=0.5, high=1.0, ndim=(0,)))
        mu0 = float(check_real("initial_mean", self.initial_mean, low=0.0, ndim=(0,)))
        return _OnlineGeometricCount(gamma, mu0, batch_size, n_arms)


class OnlineCDF:
    """Estimate the delay CDF online by the empirical CDF of observed delays (Appendix D)."""

    label = "estimated CDF"

    def __repr__(self):
        return "OnlineCDF()"

    def counter(self, window, batch_size, n_arms):
        if window is None:
            raise ValueError(
                "OnlineCDF needs a window m: it estimates τ_s/τ_m from the delays observed "
                "within the window (Appendix D, censored model)"
            )
        return _OnlineCDFCount(window, batch_size, n_arms)


class _OnlineGeometricCount(GeometricCount):
    """The recursion of Eq. (6) with λ̂ = μ̂/(1 + μ̂), μ̂ estimated online, refreshed at each step."""

    def __init__(self, gamma, mu0, batch_size, n_arms):
        super().__init__(mu0 / (1.0 + mu0), None, batch_size, n_arms)
        self.gamma = gamma
        self.mu = np.full(batch_size, mu0)  # μ̂ per run
        self.n = np.zeros(batch_size)  # delays observed per run

    def push(self, t, arms, onehot):
        self.lam[:] = (self.mu / (1.0 + self.mu))[:, None]
        self.matures[:] = 1.0 / (1.0 + self.mu)[:, None]  # 1 − λ̂
        super().push(t, arms, onehot)

    def observe(self, arrivals, mask=None) -> None:
        delays = arrivals.delay
        for idx in arrivals.layers():
            if mask is not None:
                idx = idx[mask[idx]]
            r = arrivals.run[idx]
            self.n[r] += 1.0
            alpha = self.n[r] ** (-self.gamma)
            self.mu[r] = (1.0 - alpha) * self.mu[r] + alpha * delays[idx]

    def estimate(self) -> dict:
        return {"mean_delay": self.mu.copy()}


class _OnlineCDFCount(TabulatedCount):
    """Ñ / τ_m estimated with the empirical CDF of observed delays as weights."""

    def __init__(self, window, batch_size, n_arms):
        self.m = window
        self.hist = np.zeros((batch_size, window + 1))  # counts of observed delays 0 … m
        self.n_d = np.zeros(batch_size)
        super().__init__(np.ones((batch_size, 1, window + 1)), batch_size, n_arms)
        self._dirty = False

    def observe(self, arrivals, mask=None) -> None:
        r, d = arrivals.run, arrivals.delay
        if mask is not None:
            r, d = r[mask], d[mask]
        if not r.size:
            return
        size = self.hist.size
        self.hist += np.bincount(r * (self.m + 1) + d, minlength=size).reshape(self.hist.shape)
        self.n_d += np.bincount(r, minlength=self.n_d.size)
        self._dirty = True

    def cdf(self) -> np.ndarray:
        """δ_s / n_d, s = 0 … m, per run (1 before any observation)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            f = np.cumsum(self.hist, axis=1) / self.n_d[:, None]
        return np.where(self.n_d[:, None] > 0, f, 1.0)

    def value(self):
        if self._dirty:
            self.set_weights(self.cdf()[:, None, :])
            self._dirty = False
        return super().value()

    def estimate(self) -> dict:
        return {"cdf": self.cdf()}
