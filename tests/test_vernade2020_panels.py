"""Panels of notebook 03 driven in-process: every control reruns and redraws, extremes, cache."""

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

import delaylab as dl  # noqa: E402
from delaylab.panels.linear import (AUTHORS, NO_DELAY_TERM, EllipsePanel, LinearPanel, delay_law, ellipse,  # noqa: E402
                                    make_policy)
from delaylab.streams import Batch  # noqa: E402
from delaylab.papers import vernade2020 as paper  # noqa: E402


@pytest.fixture(scope="module")
def panel():
    return LinearPanel(horizon=500, runs=5)


def visible(plot, name):
    return plot.fig.data[plot._slot[(0, name)][1]].visible


@pytest.mark.parametrize("attr, value", [("window", 30), ("mean_delay", 300), ("dim", 3), ("n_actions", 4),
                                         ("lam", 0.1), ("delta", 0.02), ("horizon", 750), ("runs", 10),
                                         ("law", "uniform"), ("width", "cheap")])
def test_each_control_reruns_and_redraws(panel, attr, value):
    before = panel.regret.curve("OTFLinUCB")[1].copy()
    w = getattr(panel, attr)
    original = w.value
    w.value = value
    assert not np.array_equal(before, panel.regret.curve("OTFLinUCB")[1])
    w.value = original
    assert np.array_equal(before, panel.regret.curve("OTFLinUCB")[1])  # back to the cached curve
    assert panel.recomputed == []


def test_toggles_and_cache(panel):
    panel.toggles[AUTHORS].value = True
    assert visible(panel.regret, AUTHORS) and panel.recomputed == [AUTHORS]
    panel.toggles[AUTHORS].value = False
    assert not visible(panel.regret, AUTHORS) and panel.recomputed == []


def test_criteo_disables_the_mean_delay(panel):
    panel.law.value = "criteo"
    assert panel.mean_delay.disabled and "Criteo" in panel.cdf.fig.layout.title.text
    panel.law.value = "geometric"
    assert not panel.mean_delay.disabled


def test_status_reports_tau_m(panel):
    tau = delay_law("geometric", round(panel.mean_delay.value)).cdf(panel.window.value)
    assert f"τ_m = P(D ≤ m) = {float(tau):.3f}" in panel.status.value


def test_extreme_values_do_not_fail():
    p = LinearPanel(horizon=500, runs=5)
    for attr, value in [("window", 10), ("mean_delay", 1), ("mean_delay", 1000), ("window", 500), ("dim", 2),
                        ("dim", 8), ("n_actions", 2), ("n_actions", 20), ("lam", 0.01), ("lam", 10.0),
                        ("delta", 0.5), ("delta", 0.01), ("law", "uniform"), ("law", "criteo")]:
        getattr(p, attr).value = value
        assert np.all(np.isfinite(p.regret.curve("OTFLinTS")[1]))


def test_bad_law():
    with pytest.raises(ValueError, match="delay law must be one of"):
        delay_law("lognormal", 10)


def test_ellipse_is_the_confidence_set_boundary():
    v_inv = np.array([[0.5, 0.1], [0.1, 0.2]])
    c = np.array([0.3, 0.2])
    pts = ellipse(c, v_inv, 2.0)
    V = np.linalg.inv(v_inv)
    r = np.sqrt(np.einsum("in,ij,jn->n", pts - c[:, None], V, pts - c[:, None]))
    assert np.allclose(r, 2.0)


def test_ellipse_panel_moves_towards_tau_m_theta():
    e = EllipsePanel(horizon=2000)
    e.time.value = 100
    early = np.array([e.fig.data[3].x[0], e.fig.data[3].y[0]])
    e.time.value = 2000
    late = np.array([e.fig.data[3].x[0], e.fig.data[3].y[0]])
    target = e.tau_m * e.theta
    assert np.linalg.norm(late - target) < np.linalg.norm(late - e.theta)
    assert not np.array_equal(early, late)
    x0 = np.asarray(e.fig.data[0].x).copy()
    e.window.value = 200  # a larger window: τ_m → 1, a new run
    assert e.tau_m > 0.9 and not np.array_equal(x0, np.asarray(e.fig.data[0].x))


def test_figure_panels_at_small_scale():
    fig = paper.figure1_panel(runs=2, horizon=300)
    assert set(fig.results) == set(paper.FIG1_PANELS)
    for i in range(3):
        assert fig.plot.fig.data[fig.plot._slot[(i, "OTFLinTS")][1]].visible
    for key in paper.FIG1_PANELS:  # the delay term isolated, and uniform random play, in every panel
        assert set(fig.results[key].names) == set(paper.NAMES)
    res = paper.figure3(runs=1, horizon=300, authors=False)
    assert set(res.names) == {"OTFLinUCB", "OTFLinTS", dl.UNIFORM}
    assert paper.figure3(runs=1, horizon=300, authors=False) is res  # the same parameters: remembered


def test_the_default_comparison_differs_in_the_delay_term_alone():
    """The live panel starts with Algorithm 1 with and without its delay term: the same estimate, the
    same 2f, the same runs; only α differs (2f + Σ‖A_s‖ against 2f)."""
    p = LinearPanel(horizon=300, runs=2)
    shown = [n for n, box in p.toggles.items() if box.value]
    assert shown[:2] == ["OTFLinUCB", NO_DELAY_TERM] and visible(p.regret, dl.UNIFORM)
    with_term = make_policy("OTFLinUCB", 100, 0.1, 1.0, "exact")
    without = make_policy(NO_DELAY_TERM, 100, 0.1, 1.0, "exact")
    assert with_term.get_params() == {**without.get_params(), "variant": "paper"}
    env = dl.LinearConversions(paper.theta(), dl.Geometric(100), n_actions=10, window=100)
    a = with_term.start(dl.Problem(10, 300, "linear", 100, 5, Batch(np.arange(2)), 0))
    b = without.start(dl.Problem(10, 300, "linear", 100, 5, Batch(np.arange(2)), 0))
    assert np.array_equal(a.alpha(50), b.alpha(50))  # no action yet in the window: the term is 0
    del env


def test_otf_choices_are_the_runs_simulate_gives():
    """The watched copy of OTFLinUCB plays the runs simulate plays: T·(best − played) is its regret,
    run by run, and T·(best − offered), uniform play's expected regret, is within noise of uniform's."""
    c = paper.otf_choices(horizon=400, runs=3, seed=2)
    env = dl.LinearConversions(paper.theta(), dl.Geometric(100), n_actions=10, window=100)
    res = dl.simulate(env, dl.with_uniform({"OTFLinUCB": dl.OTFLinUCB(window=100)}), 400, 3, 2)
    assert np.allclose(400 * (c.best - c.played), res.final("OTFLinUCB"), rtol=0, atol=1e-9)
    u = res.final(dl.UNIFORM)
    assert abs(u.mean() - 400 * (c.best - c.offered).mean()) < 5 * u.std(ddof=1) / np.sqrt(3) + 1
    assert np.all((0 <= c.wider) & (c.wider <= 1) & (0 <= c.top_estimate) & (c.top_estimate <= 1))


def test_figure2_histogram_is_a_density_of_draws_from_the_fitted_law():
    """Figure 2's histogram is drawn as bars (the dashboards' plotly.js has no histogram trace):
    bins of 0.1 in log10 delay whose heights integrate to 1 and, with 20,000 draws, follow the
    fitted law's probability of each bin within Monte-Carlo error."""
    fig = paper.figure2(samples=20_000, seed=3)
    bars = fig.data[0]
    assert bars.type == "bar" and {t.type for t in fig.data} <= {"scatter", "bar"}
    x, y = np.asarray(bars.x), np.asarray(bars.y)
    assert np.allclose(np.diff(x), 0.1) and np.isclose(y.sum() * 0.1, 1.0)
    edges, _ = paper.criteo_log10_density()
    cdf = paper.criteo(paper.FIG3_SCALE).probs  # the fitted law's CDF at the edges (log10 seconds)
    p = np.interp(x + 0.05, edges, cdf) - np.interp(x - 0.05, edges, cdf)
    sd = np.sqrt(p * (1 - p) / 20_000)
    assert np.all(np.abs(y * 0.1 - p) <= 5 * sd + 1e-12), np.max(np.abs(y * 0.1 - p) / (sd + 1e-12))


def test_the_numbers_under_a_figure_name_the_curves_above_uniform_play():
    res = paper.figure3(runs=2, horizon=400)
    worse = [n for n in res.names if n != dl.UNIFORM and res.final(n).mean() > res.final(dl.UNIFORM).mean()]
    text = paper.summary_figure3(res)
    assert f"uniform random play {res.final(dl.UNIFORM).mean():.0f}" in text
    assert (f"(above uniform random play: {', '.join(worse)})" in text) if worse else "above uniform" not in text
