"""The live panel of notebook 04 (aggregated anonymous feedback), driven in-process."""

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

from delaylab.panels.anonymous import AnonymousPanel, make_law, true_bound  # noqa: E402
from delaylab.papers import pikeburke2018 as paper  # noqa: E402
from delaylab.policies.odaaf import odaaf_b_binding_bound  # noqa: E402


@pytest.fixture(scope="module")
def panel():
    return AnonymousPanel(horizon=3000, runs=4)


def visible(plot, name):
    return plot.fig.data[plot._slot[(0, name)][1]].visible


@pytest.mark.parametrize("attr, value", [("mean_delay", 4.0), ("gap", 0.2), ("horizon", 4000), ("runs", 6),
                                         ("law", "poisson")])
def test_each_control_reruns_and_redraws(panel, attr, value):
    names = ("ODAAF", "QPM-D")
    before = [panel.regret.curve(n)[1].copy() for n in names]
    getattr(panel, attr).value = value
    after = [panel.regret.curve(n)[1] for n in names]
    assert not all(np.array_equal(b, a) for b, a in zip(before, after))


def test_beliefs_follow_the_law_and_recompute_only_their_variant(panel):
    panel.law.value = "uniform"
    panel.mean_delay.value = 10.0
    assert panel.bound.value == 20 and panel.variance.value == pytest.approx(36.5)
    before = {n: panel.regret.curve(n)[1].copy() for n in ("ODAAF", "ODAAF-B", "QPM-D")}
    panel.bound.value = 3000  # d̃_m = n_m^ODAAF / m binds: ODAAF-B plays ODAAF's longer phases
    assert panel.recomputed == ["ODAAF-B"]
    assert not np.array_equal(before["ODAAF-B"], panel.regret.curve("ODAAF-B")[1])
    assert np.array_equal(before["QPM-D"], panel.regret.curve("QPM-D")[1])
    panel.law.value = "geometric"
    assert panel.bound.value == true_bound(make_law("geometric", 10.0)) and panel.variance.value == 110.0


def test_a_bound_below_the_mean_hides_odaaf_b(panel):
    panel.bound.value = 0
    assert not visible(panel.regret, "ODAAF-B") and "is not a bound" in panel.status.value
    panel.law.value = "uniform"  # resets d to the truth
    assert visible(panel.regret, "ODAAF-B") and "not a bound" not in panel.status.value


def test_summary_reports_eliminations():
    p = AnonymousPanel(horizon=6000, runs=4, gap=0.4)
    assert "100% of runs" in p.summary.value


def test_extreme_values_do_not_fail():
    p = AnonymousPanel(horizon=2000, runs=4)
    for attr, value in [("mean_delay", 50.0), ("gap", 0.05), ("variance", 0.0), ("mean_delay", 0.5),
                        ("law", "halfnormal"), ("bound", 3000), ("gap", 0.45)]:
        getattr(p, attr).value = value
        assert np.all(np.isfinite(p.regret.curve("QPM-D")[1]))


def test_make_law_and_bounds():
    assert make_law("uniform", 7.5).mean == 7.5 and true_bound(make_law("uniform", 7.5)) == 15
    assert abs(make_law("halfnormal", 10.0).mean - 10.0) < 0.05
    assert make_law("geometric", 10.0).var == pytest.approx(110.0)
    with pytest.raises(ValueError, match="law must be one of"):
        make_law("pareto", 3.0)


def test_ratio_plot_and_figure2_curves_on_a_small_run():
    res = paper.figure2(runs=2, horizon=3000)
    curves = paper.figure2_curves(res)
    assert len(curves) == 12 and all(c[3][-1] == 3000 for c in curves)
    plot = paper.RatioPlot()
    with plot.updating():
        paper.draw_figure2(res, plot)
    x, y = plot.curve(1, "ODAAF-V", "geometric")
    assert len(x) == len(y) > 100


def test_status_gives_the_bound_above_which_d_matters():
    p = AnonymousPanel(horizon=4000, runs=4)
    threshold = odaaf_b_binding_bound(4000, float(p.delay_law.mean))
    assert f"depend on d only for d > {threshold:,.0f}" in p.status.value
    p.bound.value = int(threshold) + 1
    assert "depend on d only" not in p.status.value
