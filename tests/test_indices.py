"""Index formulas against hand-computed values and against bisection."""

import math

import numpy as np
import pytest

from delaylab.indices import (delayed_ucb_index, exploration, kl_bernoulli, kl_poisson,
                              klucb_bernoulli, klucb_poisson, ucb1_index)


def bisect(f, lo, hi, iters=200):
    """Largest q in [lo, hi] with f(q) ≤ 0, for f increasing on [lo, hi] (vectorised)."""
    lo, hi = np.array(lo, float), np.array(hi, float)
    for _ in range(iters):
        mid = (lo + hi) / 2
        ok = f(mid) <= 0
        lo, hi = np.where(ok, mid, lo), np.where(ok, hi, mid)
    return lo


def test_divergences_by_hand():
    assert kl_bernoulli(0.5, 0.25) == pytest.approx(0.5 * math.log(2) + 0.5 * math.log(0.5 / 0.75))
    assert kl_bernoulli(0.0, 0.5) == pytest.approx(math.log(2))
    assert kl_bernoulli(0.3, 0.3) == 0.0
    assert kl_poisson(1.0, 2.0) == pytest.approx(math.log(0.5) + 1.0)
    assert kl_poisson(0.0, 0.7) == pytest.approx(0.7)


def test_exploration_function():
    assert exploration(1) == 0.0
    assert exploration(math.e**2) == pytest.approx(2.0)
    assert exploration(100, eps=0.5) == pytest.approx(1.5 * math.log(100))
    assert np.allclose(exploration(np.array([1, 10]), 0.0), [0, math.log(10)])


def test_ucb_indices_by_hand():
    # UCB1: 0.5 + sqrt(2 log 100 / 10)
    assert ucb1_index(0.5, 10, 100) == pytest.approx(0.5 + math.sqrt(2 * math.log(100) / 10))
    # D-UCB: θ̂ + sqrt(N/Ñ) sqrt(β/(2Ñ)) with θ̂ = 0.1, N = 100, Ñ = 50, β = log 1000
    beta = math.log(1000)
    assert delayed_ucb_index(0.1, 100, 50, beta) == pytest.approx(0.1 + math.sqrt(2) * math.sqrt(beta / 100))
    # without delays (Ñ = N) it is the plain UCB index with β/2
    assert delayed_ucb_index(0.2, 40, 40, beta) == pytest.approx(0.2 + math.sqrt(beta / 80))
    assert delayed_ucb_index(0.0, 3, 0.0, beta) == np.inf


P = np.concatenate([[0.0, 1e-8, 1e-4], np.linspace(0.001, 0.999, 40), [1.0]])
C = np.logspace(-10, 4, 60)


def test_klucb_poisson_against_bisection():
    p, c = np.meshgrid(P, C, indexing="ij")
    q = klucb_poisson(p, 1.0, c, upper=np.inf)
    ref = bisect(lambda x: kl_poisson(p, x) - c, p, p + c + np.sqrt(c * c + 2 * p * c) + 1e-300)
    assert np.all(q >= p)
    assert np.max(np.abs(q - ref) / np.maximum(ref, 1e-300)) < 1e-10
    # the constraint is active: n d_Pois(p, q) = β
    pos = p > 0
    assert np.allclose(kl_poisson(p[pos], q[pos]), c[pos], rtol=1e-8)


def test_klucb_poisson_by_hand_and_edges():
    # p = 0: d_Pois(0, q) = q, so q = β/n
    assert klucb_poisson(0.0, 20.0, 2.0) == pytest.approx(0.1)
    # capped at 1 (Section 5.3: q ∈ [θ̂, 1])
    assert klucb_poisson(0.5, 1.0, 50.0) == 1.0
    # θ̂ > 1 (possible since Ñ < N): the index is θ̂ itself
    assert klucb_poisson(1.2, 10.0, 1.0) == 1.2
    assert klucb_poisson(0.3, 0.0, 1.0) == np.inf
    # a value computed by hand: p = 0.1, n = 100, β = log 1000 → solve 100 d_Pois(0.1, q) = β
    q = klucb_poisson(0.1, 100.0, math.log(1000))
    assert 100 * kl_poisson(0.1, q) == pytest.approx(math.log(1000), rel=1e-10)
    # by hand: 0.1 log(0.1/0.2675) + 0.2675 − 0.1 = 0.06911 ≈ log(1000)/100 = 0.06908
    assert q == pytest.approx(0.2675, abs=5e-4)


def test_klucb_bernoulli_against_bisection():
    p, c = np.meshgrid(P, np.logspace(-10, 3, 60), indexing="ij")
    q = klucb_bernoulli(p, 1.0, c)
    ref = bisect(lambda x: kl_bernoulli(p, np.minimum(x, 1 - 1e-17)) - c, p, np.ones_like(p))
    assert np.all((q >= p) & (q <= 1))
    assert np.max(np.abs(q - ref)) < 1e-10
    # p = 0: d(0, q) = −log(1 − q), so q = 1 − e^{−β/n}
    assert klucb_bernoulli(0.0, 4.0, 2.0) == pytest.approx(1 - math.exp(-0.5))
    assert klucb_bernoulli(0.4, 0.0, 1.0) == np.inf
    assert klucb_bernoulli(1.0, 5.0, 1.0) == 1.0


def test_poisson_index_is_above_bernoulli_index():
    """d_Pois ≤ d (Lemma 8): the Poisson confidence bound is the wider one."""
    p = np.linspace(0.01, 0.5, 20)
    assert np.all(klucb_poisson(p, 50.0, 3.0) >= klucb_bernoulli(p, 50.0, 3.0) - 1e-12)
