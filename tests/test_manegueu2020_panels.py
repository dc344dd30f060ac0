"""The live panel of notebook 02 and the paper-2 figure code, driven in-process."""

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

import delaylab as dl  # noqa: E402
from delaylab.panels.arm_delays import ArmDelaysPanel  # noqa: E402
from delaylab.papers import manegueu2020 as paper  # noqa: E402


@pytest.fixture(scope="module")
def panel():
    return ArmDelaysPanel(horizon=800, runs=10)


def visible(plot, name):
    return plot.fig.data[plot._slot[(0, name)][1]].visible


LEARNERS = ["Patient Bandits", paper.NO_BIAS, "D-UCB", "UCB1"]


@pytest.mark.parametrize("attr, value, curves", [
    # uniform random play does not depend on the delays: moving a tail index leaves it as it was
    ("alpha1", 0.6, LEARNERS),
    ("alpha2", 0.6, LEARNERS),
    ("gap", 0.1, [*LEARNERS, dl.UNIFORM]),
    # α_hat enters only Patient Bandits' bias term: its twin without it does not move
    ("alpha_hat", 0.1, ["Patient Bandits"]),
    ("window", 200, ["D-UCB"]),
    ("horizon", 1000, [*LEARNERS, dl.UNIFORM]),
    ("runs", 20, [*LEARNERS, dl.UNIFORM]),
])
def test_each_slider_reruns_what_it_affects(panel, attr, value, curves):
    before = {n: panel.regret.curve(n)[1].copy() for n in [*LEARNERS, dl.UNIFORM]}
    old = getattr(panel, attr).value
    getattr(panel, attr).value = value
    for n, y in before.items():
        assert (not np.array_equal(y, panel.regret.curve(n)[1])) == (n in curves), (attr, n)
    getattr(panel, attr).value = old


def test_the_defaults_isolate_the_bias_term_beside_uniform_play():
    p = ArmDelaysPanel(horizon=500, runs=10)
    shown = [n for n in [*LEARNERS, dl.UNIFORM, "Adapt-Patient Bandits"] if visible(p.regret, n)]
    assert shown == [*LEARNERS, dl.UNIFORM]
    assert dl.UNIFORM not in p.toggles  # the reference cannot be switched off
    pols = p._policies(["Patient Bandits", paper.NO_BIAS])
    a, b = pols["Patient Bandits"][1](), pols[paper.NO_BIAS][1]()
    assert (a.alpha, a.bias, b.alpha, b.bias) == (0.3, 1.0, 0.3, 0.0)  # the same index but for the bias term


def test_cache_and_status(panel):
    panel.alpha_hat.value = 0.2
    assert panel.recomputed == ["Patient Bandits"]
    panel.alpha_hat.value = 0.3  # back to a value already computed
    assert panel.recomputed == []
    panel.toggles["Adapt-Patient Bandits"].value = True
    assert visible(panel.regret, "Adapt-Patient Bandits") and panel.recomputed == ["Adapt-Patient Bandits"]
    panel.toggles["Adapt-Patient Bandits"].value = False
    assert not visible(panel.regret, "Adapt-Patient Bandits")


def test_presets_and_the_told_law(panel):
    panel.preset.value = "fig4"
    assert panel.alphas == (0.7, 0.7) and "arm 2 is better." in panel.status.value
    panel.alpha2.value = 0.5
    assert panel.preset.value == "custom"
    panel.preset.value = "fig5"
    assert panel.alphas == (1.0, 0.3) and "heavier tail" in panel.status.value
    assert panel.assumed_law().label == "Pareto(α=0.7)"
    before = panel.regret.curve("D-UCB")[1].copy()
    panel.assumed.value = "true"
    assert [law.label for law in panel.assumed_law()] == ["Pareto(α=1)", "Pareto(α=0.3)"]
    assert not np.array_equal(before, panel.regret.curve("D-UCB")[1])
    panel.assumed.value = "alpha_hat"
    assert panel.assumed_law().label == f"Pareto(α={panel.alpha_hat.value:g})"
    panel.assumed.value = "pareto07"


def test_side_figures_follow_the_controls(panel):
    tails = panel.tails_fig.data
    assert np.allclose(tails[1].y, (1.0 + np.asarray(tails[1].x)) ** -panel.alpha2.value)
    assert tails[3].x[0] == panel.window.value
    means = panel.means_fig.data
    assert means[3].y[0] == pytest.approx(panel.means[1]) and means[0].visible
    panel.toggles["Patient Bandits"].value = False
    assert not any(d.visible for d in panel.means_fig.data)
    panel.toggles["Patient Bandits"].value = True


def test_extreme_values_do_not_fail():
    p = ArmDelaysPanel(horizon=500, runs=10)
    for attr, value in [("alpha1", 0.05), ("alpha2", 0.05), ("alpha_hat", 0.02), ("window", 1), ("window", 1000),
                        ("gap", -0.4), ("gap", 0.35), ("alpha_hat", 1.0), ("alpha1", 2.0)]:
        getattr(p, attr).value = value
        assert all(np.all(np.isfinite(p.regret.curve(n)[1])) for n in [*LEARNERS, dl.UNIFORM])
    p.gap.value = 0.0
    assert "no gap" in p.status.value
    p.toggles["Adapt-Patient Bandits"].value = True
    p.assumed.value = "alpha_hat"  # Pareto(α_hat = 1) told to D-UCB


def test_uniform_play_beside_a_grid_is_the_grid_cells_uniform_play():
    """Figures 2 and 3 draw uniform random play simulated once (per gap), not in every grid cell: the same
    runs as in each cell, since a run's draws depend only on the seed and its index, and uniform play's
    regret not on the delays."""
    g = dl.grid(alpha_hat=[0.1, 0.4])
    env = dl.Conversions(paper.FIG2_MEANS, delays=paper.pareto_arms(paper.FIG2_ALPHAS))
    cells = dl.simulate(env, {dl.UNIFORM: dl.UniformRandom()}, 300, 4, 5, checkpoints=[300], grid=g)
    once = paper.uniform_play(paper.FIG2_MEANS, runs=4, seed=5, horizon=300)
    for i in range(2):
        assert np.array_equal(cells.regret[dl.UNIFORM][i], once.regret[dl.UNIFORM])
    means = np.array([[0.4, 0.45], [0.4, 0.9]])
    g3 = dl.grid(alpha2=[0.2, 0.8], gap=[0.05, 0.5])
    env3 = dl.Conversions(np.stack([np.full(4, 0.4), 0.4 + g3.gap], axis=1), delays=[dl.Pareto(1.0), dl.Pareto(g3.alpha2)])
    cells3 = dl.simulate(env3, {dl.UNIFORM: dl.UniformRandom()}, 300, 4, 5, checkpoints=[300], grid=g3)
    once3 = paper.uniform_play(means, runs=4, seed=5, horizon=300)
    for a in range(2):
        assert np.array_equal(cells3.regret[dl.UNIFORM][a], once3.regret[dl.UNIFORM])


def test_a_figure_and_its_claims_share_one_simulation():
    r1 = paper.figure5_results(runs=3, seed=11)
    assert paper.figure5_results(runs=3, seed=11) is r1 and paper.figure5_results(runs=3, seed=12) is not r1
    assert np.array_equal(r1.final("D-UCB (m = 10)"), paper.figure5(runs=3, seed=11).final("D-UCB (m = 10)"))


def test_figure2_and_3_are_one_batch_each_and_match_separate_runs():
    res = paper.figure2(runs=3, horizon=300, alpha_hat=paper.FIG2_ALPHA_HAT[[0, 10]])
    assert res.regret["Patient Bandits"].shape == (2, 3, 1)
    env = dl.Conversions(paper.FIG2_MEANS, delays=paper.pareto_arms(paper.FIG2_ALPHAS))
    one = dl.simulate(env, dl.PatientBandits(paper.FIG2_ALPHA_HAT[10]), 300, 3, checkpoints=[300])
    assert np.array_equal(res.regret["Patient Bandits"][1], one.regret["Patient Bandits"])
    res3 = paper.figure3(runs=2, horizon=300, gaps=[0.1, 0.3], alpha2=(0.2, 0.8))
    assert res3.regret["Patient Bandits"].shape == (2, 2, 2, 1)
    env3 = dl.Conversions([0.4, 0.7], delays=[dl.Pareto(1.0), dl.Pareto(0.8)])
    one3 = dl.simulate(env3, dl.PatientBandits(0.8), 300, 2, checkpoints=[300])
    assert np.array_equal(res3.regret["Patient Bandits"][1, 1], one3.regret["Patient Bandits"])


def test_expected_observed_mean_by_hand():
    laws = [dl.Fixed(2), dl.Fixed(0)]
    # round robin: arm 0 at steps 0, 2, 4; at t = 5 (decision of step 5) lags 4, 2, 0 → seen 2 of 3
    e = paper.expected_observed_mean([0.9, 0.3], laws, [5])
    assert e[0, 0] == pytest.approx(0.9 * 2 / 3) and e[0, 1] == pytest.approx(0.3)


def test_orders_of_the_bounds():
    assert paper.lower_bound_order(1e4, 0.5) == pytest.approx(100 / 8)
    assert paper.worst_case_order(1e4, 0.2) == pytest.approx(2**0.2 * 1e4**0.8)
