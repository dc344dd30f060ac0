"""Delay-corrected counts Ñ against the defining sum, for every implementation."""

import numpy as np
import pytest

import delaylab as dl
from delaylab.policies.counts import GeometricCount, TabulatedCount
from delaylab.policies.delayed import weight_table
from delaylab.streams import Batch


def direct_n_tilde(arms_hist, laws, window, n_arms):
    """Ñ_k = Σ_{s<t, A_s=k} τ_k(min(t − 1 − s, m)) at the decision after the last pull."""
    t = len(arms_hist)
    out = np.zeros(n_arms)
    for s, a in enumerate(arms_hist):
        lag = t - 1 - s
        if window is not None:
            lag = min(lag, window)
        out[a] += laws[a].cdf(lag)
    return out


def onehot(arms, K):
    o = np.zeros((len(arms), K))
    o[np.arange(len(arms)), arms] = 1
    return o


def test_hand_computed_case():
    # Geometric(mean=1): τ(e) = 1 − 2^-(e+1). Arm 0 pulled at steps 0 and 1: at the decision of
    # step 2 the lags are 1 and 0, so Ñ_0 = τ(1) + τ(0) = 0.75 + 0.5.
    law = dl.Geometric(mean=1.0)
    for counter in (GeometricCount(law.ratio, None, 1, 2),
                    TabulatedCount(weight_table([law, law], None, 10, Batch(np.arange(1))), 1, 2)):
        for t in range(2):
            counter.push(t, np.array([0]), onehot([0], 2))
        assert counter.value()[0] == pytest.approx([1.25, 0.0])


@pytest.mark.parametrize("window", [None, 0, 1, 7, 40])
@pytest.mark.parametrize("mean", [0.5, 3.0, 25.0])
def test_geometric_recursion_equals_the_sum(window, mean):
    law, K, T = dl.Geometric(mean=mean), 3, 120
    arms = np.random.default_rng(0).integers(0, K, size=(T, 4))  # 4 runs
    geo = GeometricCount(law.ratio, window, 4, K)
    tab = TabulatedCount(weight_table([law] * K, window, T, Batch(np.arange(4))), 4, K)
    for t in range(T):
        geo.push(t, arms[t], onehot(arms[t], K))
        tab.push(t, arms[t], onehot(arms[t], K))
        if t % 17 == 0 or t == T - 1:
            for r in range(4):
                ref = direct_n_tilde(arms[: t + 1, r], [law] * K, window, K)
                assert np.allclose(geo.value()[r], ref, atol=1e-10)
                assert np.allclose(tab.value()[r], ref, atol=1e-10)


@pytest.mark.parametrize("window", [None, 0, 5, 30])
def test_tabulated_count_any_law_per_arm(window):
    laws = [dl.Uniform(2, 9), dl.Pareto(alpha=0.7), dl.Poisson(mean=4.0)]
    K, T, B = 3, 90, 3
    arms = np.random.default_rng(1).integers(0, K, size=(T, B))
    tab = TabulatedCount(weight_table(laws, window, T, Batch(np.arange(B))), B, K)
    for t in range(T):
        tab.push(t, arms[t], onehot(arms[t], K))
        for r in range(B):
            assert np.allclose(tab.value()[r], direct_n_tilde(arms[: t + 1, r], laws, window, K), atol=1e-10)


def test_per_cell_laws_give_per_run_weights():
    law = dl.Geometric(mean=[2.0, 20.0])  # two grid cells
    batch = Batch(np.arange(3), n_cells=2)  # columns: cell 0 runs 0-2, cell 1 runs 0-2
    w = weight_table([law, law], 10, 50, batch)
    assert w.shape == (6, 1, 11)
    assert np.allclose(w[0, 0], dl.Geometric(2.0).table(11))
    assert np.allclose(w[5, 0], dl.Geometric(20.0).table(11))
