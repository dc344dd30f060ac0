r"""Asymptotic regret lower bounds of Vernade, Cappé, Perchet (2017), as slopes per log T.

Both theorems bound the number of pulls of each suboptimal arm k of any uniformly efficient
algorithm, E[N_k(T)] ≳ log T / d_k. Multiplied by the gaps Δ_k = θ* − θ_k they give the slope
of the pseudo-regret Σ_t Δ_{A_t} (what delaylab plots) against log T:

* Theorem 4 (uncensored): d_k = d(θ_k, θ*), the classical Lai & Robbins bound — delays that are
  eventually observed do not raise the lower bound (a lower bound only: the paper's upper bounds
  under delays match it up to a constant factor);
* Theorem 3 (censored at m): d_k = d(τ_m θ_k, τ_m θ*) — the lower bound of the scaled bandit
  (τ_m θ_k)_k, raised by small windows or long delays.

The paper states Theorem 3 for its R(T), which it does not define; its proof (Appendix B) bounds L(T)
of Eq. 3, which counts only the conversions seen. Each term carries a factor τ_m, as printed:
that version is ``censored_slope(..., paper_regret=True)``. These are asymptotic statements
(T → ∞): at finite horizons the curves may well lie below c·log T.
"""

from __future__ import annotations

import numpy as np

from .indices import kl_bernoulli


def _suboptimal(means):
    theta = np.asarray(means, dtype=float)
    best = theta.max()
    k = theta < best
    return theta[k], best


def lai_robbins_slope(means) -> float:
    r"""Σ_{k: θ_k < θ*} (θ* − θ_k) / d(θ_k, θ*)  (Theorem 4, uncensored delays)."""
    th, best = _suboptimal(means)
    return float(np.sum((best - th) / kl_bernoulli(th, best)))


def censored_slope(means, tau_m: float, paper_regret: bool = False) -> float:
    r"""Σ_{k: θ_k < θ*} (θ* − θ_k) / d(τ_m θ_k, τ_m θ*)  (Theorem 3, window m, τ_m = P(D ≤ m)).

    With ``paper_regret=True`` each term is multiplied by τ_m, as printed in the paper for its
    R(T) (its L(T), Appendix B).
    """
    th, best = _suboptimal(means)
    slope = np.sum((best - th) / kl_bernoulli(tau_m * th, tau_m * best))
    return float(slope * (tau_m if paper_regret else 1.0))
