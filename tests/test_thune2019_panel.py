"""Notebook 05: the bounds of Thune et al. (2019), the figures' computations and the live panel."""

import math

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

import delaylab as dl  # noqa: E402
from delaylab.panels.adversarial import NAMES, AdversarialPanel, make_delays, make_losses  # noqa: E402
from delaylab.papers import thune2019 as paper  # noqa: E402
from delaylab.policies.skipper import NO_SKIP  # noqa: E402
from delaylab.settings import sequences as sq  # noqa: E402

E = math.e


# ------------------------------------------------------------------ bounds
def test_bounds_by_hand():
    K, T, D = 2, 100, 300.0
    lnK = math.log(2)
    assert paper.theorem1_bound(K, T, D, 5, 0.01) == pytest.approx(max(lnK / 0.01, 20 * E * lnK) + 0.01 * (100 * E + 300))
    assert paper.corollary4_bound(K, T, D) == pytest.approx(2 * math.sqrt((100 * E + (1 + 4 * E) * 300) * lnK))
    d = np.array([0, 1, 10, 3] + [0] * 96)
    bound, S, Db = paper.theorem3_bound(K, T, d, [2.0, 11.0])
    assert S.tolist() == [2, 0] and Db.tolist() == [1, 14]
    assert bound[0] == pytest.approx(2 + 8 * E * lnK + (100 * E + 1) / (8 * E))
    assert paper.explicit_rate(K, T, d) == pytest.approx(math.sqrt((200 + 14) * lnK))
    # Theorem 1 tuning gives the bound 2√((KTe/2 + D) ln K) when it respects the truncation
    eta = math.sqrt(lnK / (T * E + D))
    assert paper.theorem1_bound(K, T, D, 0, eta) == pytest.approx(2 * math.sqrt((T * E + D) * lnK))


def test_oracle_rate_is_a_minimum_over_beta():
    T, d = 2000, sq.example8_delays(2000, 2)
    best = paper.oracle_rate(2, T, d)
    for beta in [1.0, 10.0, 76.0, 77.0, 500.0, 5000.0]:
        S, Db = (np.sum(d >= beta), d[d < beta].sum())
        assert best <= S + beta * math.log(2) + (2 * T + Db) / beta + 1e-9
    assert best <= paper.explicit_rate(2, T, d)  # "the oracle bound is always as strong"


def test_example8_rates_have_slopes_three_quarters_and_one_half():
    Ts = [2**14, 2**17]
    ex = [paper.explicit_rate(2, T, sq.example8_delays(T, 2)) for T in Ts]
    orc = [paper.oracle_rate(2, T, sq.example8_delays(T, 2)) for T in Ts]
    slope = lambda y: math.log(y[1] / y[0]) / math.log(Ts[1] / Ts[0])  # noqa: E731
    assert abs(slope(ex) - 0.75) < 0.03 and abs(slope(orc) - 0.5) < 0.05


def test_theorem6_and_corollary7_are_ordered():
    T, d = 4096, sq.example8_delays(4096, 2)
    assert paper.theorem6_bound(2, T, d) < paper.corollary7_bound(2, T, d.sum())


def test_tradeoff_study_terms():
    st = paper.tradeoff(betas=[1, 6, 40, 3000], horizon=600, runs=4)
    assert np.all(np.diff(st["skipped"]) <= 0) and np.all(np.diff(st["experienced"]) >= 0)
    assert st["regret"].shape == (4, 4)
    assert st["skipped"][0] == 600  # Pareto delays are ≥ 1: β = 1 skips every round


def test_doubling_run_trace():
    tr = paper.doubling_run(horizon=1024)
    assert tr["epoch"].shape == (1024,) and np.all(np.diff(tr["epoch"]) >= 0)
    # Example 8's delayed rounds (d_t = T − t) exceed every β_m: exactly those are skipped
    assert tr["skipped"][-1] == np.count_nonzero(sq.example8_delays(1024, 2)) == 54
    assert tr["experienced_delay"][-1] == 0
    paper.doubling_figure(tr)


# ------------------------------------------------------------------ panel
@pytest.fixture(scope="module")
def panel():
    return AdversarialPanel(horizon=600, runs=5)


def visible(plot, name):
    return plot.fig.data[plot._slot[(0, name)][1]].visible


EVERY = {*NAMES, dl.UNIFORM}


@pytest.mark.parametrize("attr, value, changed", [
    ("eta", 0.001, {"Skipper", NO_SKIP}),  # DEW's η' = 1/(4e·d_max) < 0.001 does not move
    ("beta", 5.0, {"Skipper"}),  # the twin's rate min(η, 1/(4eβ)) stays η = 0.001: its runs are the same
    ("delay", 3, EVERY - {dl.UNIFORM}),  # the Bernoulli losses, hence uniform play, do not depend on the delays
    ("gap", 0.9, EVERY),
])
def test_sliders_rerun_only_what_depends_on_them(panel, attr, value, changed):
    before = {n: panel.regret.curve(n)[1].copy() for n in EVERY}
    getattr(panel, attr).value = value
    assert set(panel.recomputed) == changed
    for n, y in before.items():
        assert (not np.array_equal(y, panel.regret.curve(n)[1])) == (n in changed), n


def test_toggles_use_the_cache(panel):
    panel.toggles["Exp3"].value = False
    assert not visible(panel.regret, "Exp3") and panel.recomputed == []
    panel.toggles["Exp3"].value = True
    assert visible(panel.regret, "Exp3") and panel.recomputed == []


def test_beta_marker_and_terms(panel):
    panel.beta.value = 20.0
    assert list(panel.terms.data[4].x) == [20.0, 20.0]
    b = np.asarray(panel.terms.data[0].x)
    assert np.all(np.diff(np.asarray(panel.terms.data[0].y)) <= 0)  # |S_β| decreases with β
    assert b[0] == 1.0


def test_patterns_disable_the_sliders_they_ignore(panel):
    panel.pattern.value = "example8"
    assert panel.delay.disabled and panel.n_huge.disabled
    assert "d_max = 599" in panel.status.value
    panel.pattern.value = "fixed"
    assert not panel.delay.disabled and panel.n_huge.disabled
    panel.pattern.value = "spikes"
    assert not panel.n_huge.disabled


def test_corollary4_button_sets_beta_and_eta(panel):
    panel.use_corollary4()
    d = make_delays("spikes", 600, panel.delay.value, panel.n_huge.value)
    b = math.sqrt((E * 600 + (1 + 4 * E) * d.sum()) / (16 * E * E * math.log(2)))
    assert panel.beta.value == pytest.approx(b, rel=0.07)  # the slider rounds to its steps
    assert panel.eta.value == pytest.approx(1 / (4 * E * panel.beta.value), rel=0.07)


def test_extreme_values_do_not_fail():
    p = AdversarialPanel(horizon=500, runs=5)
    for attr, value in [("beta", 1.0), ("beta", 1e4), ("eta", 1.0), ("eta", 1e-3), ("delay", 0), ("delay", 200),
                        ("n_huge", 0), ("n_huge", 50), ("gap", 0.05), ("gap", 1.0)]:
        getattr(p, attr).value = value
    for pattern in ["fixed", "geometric", "pareto", "example8"]:
        p.pattern.value = pattern
        for losses in ["switching", "slow", "bernoulli"]:
            p.losses.value = losses
        assert all(np.all(np.isfinite(p.regret.curve(n)[1])) for n in EVERY)


def test_bad_pattern_or_losses():
    with pytest.raises(ValueError, match="pattern must be one of"):
        make_delays("sometimes", 100, 1, 1)
    with pytest.raises(ValueError, match="losses must be one of"):
        make_losses("random", 100, 0.5, np.zeros(100))


def test_status_says_when_eta_changes_nothing():
    p = AdversarialPanel(horizon=600, runs=4)  # spikes, β = 30
    dmax = int(make_delays("spikes", 600, p.delay.value, p.n_huge.value).max())
    assert f"d_max = {dmax}" in p.status.value
    caps = {"DEW": 1 / (4 * E * dmax), "Skipper": 1 / (4 * E * 30)}
    p.eta.value = 0.05  # above both caps
    assert f"changes nothing until η < {caps['Skipper']:.2e}" in p.status.value
    p.eta.value = 0.002  # below Skipper's cap: Skipper depends on it
    assert "changes nothing" not in p.status.value
    p.toggles["Skipper"].value = False  # its twin learns at the same rate: it still depends on η
    assert "changes nothing" not in p.status.value
    p.toggles[NO_SKIP].value = False  # DEW alone: still above its cap
    assert f"changes nothing until η < {caps['DEW']:.2e}" in p.status.value
    p.toggles["DEW"].value = False
    assert "all hidden" in p.status.value
