r"""Optimistic indices and divergences, written as in the papers.

Symbols (Vernade, Cappé, Perchet 2017, Sections 5–6), for arm k at decision t:

* N_k(t): number of past pulls of k;
* Ñ_k(t): delay-corrected count, each past pull weighted by the probability that its
  conversion (if any) has been observed by now;
* θ̂_k(t) = S_k(t) / Ñ_k(t): conditionally unbiased estimate of the conversion rate (Eq. 5);
* β_ε(t) = (1 + ε) log t: exploration function. The analysis (Section 6, Theorems 9 and 11)
  takes ε > 0; the paper does not say which exploration function its experiments used
  (Section 7, Appendix D). delaylab's default is ε = 0, β(t) = log t: our choice.

All functions are vectorised: arguments broadcast with numpy rules.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "exploration",
    "kl_bernoulli",
    "kl_poisson",
    "ucb1_index",
    "delayed_ucb_index",
    "klucb_bernoulli",
    "klucb_poisson",
]


def exploration(t, eps=0.0):
    r"""β_ε(t) = (1 + ε) log t, for the 1-based decision number t ≥ 1 (Section 6)."""
    if isinstance(t, (int, np.integer)) and isinstance(eps, (int, float)):
        return (1.0 + eps) * math.log(max(int(t), 1))
    return (1.0 + eps) * np.log(np.maximum(t, 1))


def _xlogx_ratio(p, q):
    """p log(p / q) with the convention 0 log 0 = 0."""
    p = np.asarray(p, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(p > 0, p * np.log(p / q), 0.0)


def kl_bernoulli(p, q):
    r"""d(p, q) = p log(p/q) + (1 − p) log((1 − p)/(1 − q)): KL divergence of Bernoulli laws."""
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    return _xlogx_ratio(p, q) + _xlogx_ratio(1 - p, 1 - q)


def kl_poisson(p, q):
    r"""d_Pois(p, q) = p log(p/q) + q − p: KL divergence of Poisson laws (Lemma 7)."""
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    return _xlogx_ratio(p, q) + q - p


def ucb1_index(mean, n, t, c=2.0):
    r"""UCB1 (Auer, Cesa-Bianchi, Fischer 2002): x̄ + sqrt(c log t / n), with c = 2 there (n > 0)."""
    return mean + np.sqrt(c * exploration(t) / n)


def delayed_ucb_index(theta_hat, n, n_tilde, beta):
    r"""D-UCB index (Section 5.2): U_k(t) = θ̂_k + sqrt(N_k / Ñ_k) · sqrt(β / (2 Ñ_k)).

    The usual UCB width is inflated by sqrt(N/Ñ) ≥ 1: the longer feedback takes to come, the
    larger the uncertainty. An arm with Ñ_k = 0 gets +inf.
    """
    n_tilde = np.asarray(n_tilde, dtype=float)
    safe = np.maximum(n_tilde, 1e-300)
    index = theta_hat + np.sqrt(n / safe) * np.sqrt(beta / (2.0 * safe))
    return np.where(n_tilde > 0, index, np.inf)


def klucb_poisson(p, n, beta, upper=1.0):
    r"""max{q ∈ [p, upper] : n · d_Pois(p, q) ≤ β}  (D-KLUCB, Section 5.3).

    Solved in x = q/p: the constraint reads x − log x = y with y = 1 + β/(n p). Newton's
    method started at the upper bound y + sqrt(y² − 1) (from log x ≤ (x − 1/x)/2) decreases
    monotonically to the root; 3 steps give a relative error below 1e-10 over p ∈ [1e-8, 1],
    β/n ∈ [1e-10, 1e4] (checked in the tests against bisection). For p = 0 the solution is
    q = β/n. Where p ≥ ``upper`` the index is p itself (the set [p, upper] is empty or a
    point); n = 0 gives +inf.
    """
    p = np.asarray(p, dtype=float)
    n = np.asarray(n, dtype=float)
    # q ≥ p + β/n, so β/n ≥ upper already gives the cap: clipping β/n keeps y moderate
    c = np.minimum(beta / np.where(n > 0, n, 1.0), 2.0 * upper)
    positive = p > 0
    ps = np.where(positive, p, 1.0)
    y = 1.0 + np.maximum(c / ps, 1e-15)
    x = y + np.sqrt((y - 1.0) * (y + 1.0))
    for _ in range(3):  # Newton on h(x) = x − log x − y, from above
        h = x - np.log(x)
        h -= y
        h *= x
        h /= x - 1.0
        x -= h
    q = np.where(positive, ps * x, c)
    np.minimum(q, upper, out=q)
    q[n <= 0] = np.inf
    return np.where(p >= upper, p, q)


def klucb_bernoulli(p, n, beta):
    r"""max{q ∈ [p, 1] : n · d(p, q) ≤ β}  (KL-UCB, Garivier and Cappé 2011).

    Newton's method in z = −log(1 − q), where the map z ↦ d(p, 1 − e^{−z}) is convex and
    increasing, with slope (q − p)/q, and becomes linear as q → 1 (no log singularity). It
    starts from an upper bound of the root, the smallest of p + c + sqrt(c² + 2pc) (from
    d(p, q) ≥ d_Pois(p, q) ≥ (q − p)²/(2q), Lemma 8 of Vernade et al. 2017),
    p + sqrt(2c(1 − p)) (from d(p, q) ≥ (q − p)²/(2(1 − p))) and (c + H(p))/(1 − p) in z, with
    c = β/n and H the binary entropy; the iterates then decrease monotonically to the root. 4 steps give an absolute error below 1e-10 over p ∈ [0, 1],
    β/n ∈ [1e-12, 1e3] (checked in the tests against bisection). n = 0 gives +inf.
    """
    p = np.clip(np.asarray(p, dtype=float), 0.0, 1.0)
    n = np.asarray(n, dtype=float)
    c = np.maximum(beta / np.where(n > 0, n, 1.0), 1e-15)
    pc = np.where(p < 1.0, p, 0.5)  # p = 1 (index 1) is set at the end
    neg_entropy = _xlogx_ratio(pc, 1.0) + (1.0 - pc) * np.log1p(-pc)  # −H(p)
    q0 = np.minimum(pc + c + np.sqrt(c * (c + 2.0 * pc)), pc + np.sqrt(2.0 * c * (1.0 - pc)))
    z = np.minimum(-np.log1p(-np.minimum(q0, 1.0 - 1e-16)), (c - neg_entropy) / (1.0 - pc))
    for _ in range(4):  # Newton on g(z) = d(p, 1 − e^{−z}) − c, from above
        q = -np.expm1(-z)
        g = neg_entropy - pc * np.log(q) + (1.0 - pc) * z - c
        z -= g * q / (q - pc)
    q = np.clip(-np.expm1(-z), p, 1.0)
    q = np.where(p >= 1.0, 1.0, q)
    return np.where(n > 0, q, np.inf)
