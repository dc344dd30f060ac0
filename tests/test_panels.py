"""Widgets and figures, driven in-process (widget observers fire without a browser)."""

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

from delaylab.panels.conversions import ConversionsPanel  # noqa: E402
from delaylab.panels.reproduce import FigureReproduction  # noqa: E402
from delaylab.viz.plots import CurvePlot  # noqa: E402
from delaylab.viz.style import STYLES, style  # noqa: E402


@pytest.fixture(scope="module")
def panel():
    return ConversionsPanel(horizon=1000, runs=10, mean_delay=100, window=300)


def visible(plot, name):
    return plot.fig.data[plot._slot[(0, name)][1]].visible


@pytest.mark.parametrize("attr, value", [("mean_delay", 200), ("window", 150), ("horizon", 1500), ("runs", 20)])
def test_each_slider_reruns_and_redraws(panel, attr, value):
    before = panel.regret.curve("D-KLUCB")[1].copy()
    getattr(panel, attr).value = value
    after = panel.regret.curve("D-KLUCB")[1]
    assert not np.array_equal(before, after)


def test_conversion_rates_and_presets(panel):
    before = panel.regret.curve("D-UCB")[1].copy()
    panel.thetas[1].value = 0.02
    assert panel.preset.value == "custom"
    assert not np.array_equal(before, panel.regret.curve("D-UCB")[1])
    panel.preset.value = "H"
    assert [s.value for s in panel.thetas] == [0.5, 0.4, 0.3] and panel.means == (0.5, 0.4, 0.3)
    panel.preset.value = "L"


def test_toggles_use_the_cache(panel):
    panel.toggles["KL-UCB"].value = True
    assert visible(panel.regret, "KL-UCB") and panel.recomputed == ["KL-UCB"]
    panel.toggles["KL-UCB"].value = False
    assert not visible(panel.regret, "KL-UCB") and panel.recomputed == []
    assert "recomputed" not in panel.status.value
    assert f"All {panel.runs.value} runs, T = {panel.horizon.value:,}" in panel.status.value


def test_uncensored_mode(panel):
    panel.censored.value = False
    assert visible(panel.regret, "UD-KLUCB") and not visible(panel.regret, "D-KLUCB")
    assert panel.toggles["Discarding KL-UCB"].disabled and not visible(panel.regret, "Discarding KL-UCB")
    assert panel.cdf.fig.data[1].visible is False
    panel.censored.value = True
    assert visible(panel.regret, "Discarding KL-UCB") and panel.cdf.fig.data[1].visible


def test_delay_cdf_marks_tau_m(panel):
    law_tau = 1 - (panel.mean_delay.value / (1 + panel.mean_delay.value)) ** (panel.window.value + 1)
    assert panel.cdf.fig.data[2].x[0] == panel.window.value
    assert panel.cdf.fig.data[2].y[0] == pytest.approx(law_tau)


def test_lower_bound_overlay(panel):
    assert visible(panel.regret, "asymptotic lower bound (Theorems 3–4)")
    panel.show_bound.value = False
    assert not visible(panel.regret, "asymptotic lower bound (Theorems 3–4)")
    panel.show_bound.value = True


def test_extreme_slider_values_do_not_fail():
    p = ConversionsPanel(horizon=500, runs=10)
    for attr, value in [("window", 0), ("mean_delay", 5000), ("window", 5000), ("mean_delay", 10)]:
        getattr(p, attr).value = value
    for s in p.thetas:
        s.value = 0.9  # no gap at all
    assert "no gap" in p.status.value


def test_figure_reproduction_button_reruns_at_paper_scale():
    calls = []

    def compute(runs, progress):
        calls.append(runs)
        for f in (0.5, 1.0):
            progress(f)
        return runs

    plot = CurvePlot(["D-KLUCB"])

    def draw(runs, plot):
        plot.set("D-KLUCB", [1, 2, 3], [0, runs, 2 * runs])

    rep = FigureReproduction(compute, draw, plot, runs=5, paper_runs=50)
    assert calls == [5] and plot.curve("D-KLUCB")[1][1] == 5 and not rep.button.disabled
    rep.button.click()
    assert calls == [5, 50] and plot.curve("D-KLUCB")[1][1] == 50
    assert rep.button.disabled and rep.progress.value == 1.0 and "50 runs" in rep.status.value


def test_one_colour_per_algorithm_and_colour_blind_palette():
    assert style("D-KLUCB") == {"color": "#D55E00", "dash": "solid"}  # vermillion, against D-UCB's blue
    assert style("D-UCB")["color"] != style("D-KLUCB")["color"]
    assert style("UD-KLUCB")["color"] == style("D-KLUCB")["color"]
    assert style("my own policy") == style("my own policy")  # stable fallback
    okabe_ito_tol = {"#000000", "#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7",
                     "#7F7F7F", "#44AA99", "#882255", "#332288",  # + Tol indigo: "your policy"
                     "#636363",  # uniform random play, the reference curve
                     "#C27A00", "#0086A8"}  # Okabe–Ito's orange and sky blue, darkened to 3:1 on white (issue 36)
    assert {c for c, _ in STYLES.values()} <= okabe_ito_tol


def state_matches_drawing(fig) -> bool:
    """The widget state a new view is drawn from (a Voila page load) equals the Python figure."""
    for py, js in zip(fig.data, fig._widget_data):
        shown = py.visible is not False  # None means visible
        if shown != (js.get("visible", True) is not False):
            return False
        if shown and not np.array_equal(np.asarray(py.y, float), np.asarray(js.get("y", []), float)):
            return False
    return len(fig._widget_data) == len(fig.data)


def test_figure_state_is_synced_for_views_created_later(panel):
    panel.mean_delay.value = 150
    for fig in (panel.regret.fig, panel.cdf.fig):
        assert state_matches_drawing(fig)
    plot = CurvePlot(["D-KLUCB"])
    rep = FigureReproduction(lambda r, p: r, lambda r, pl: pl.set("D-KLUCB", [1, 2], [0, r]), plot, 3, 9)
    assert state_matches_drawing(rep.fig) and rep.fig._widget_data[1]["y"][1] == 3


def test_the_default_comparison_isolates_n_tilde():
    """Issue 33, finding 1: the panel credited the gap between UCB1 and D-UCB to Ñ, while it came
    from UCB1's wider exploration constant. By default each delay-corrected index is drawn beside
    itself without Ñ (the two differ in Ñ alone), with uniform random play; UCB1 only when ticked."""
    from delaylab import UNIFORM
    from delaylab.panels.conversions import SHOWN, TOGGLES, WITHOUT

    p = ConversionsPanel(horizon=500, runs=10)
    shown = [n for n in p.toggles if p.toggles[n].value]
    assert shown == list(SHOWN) and "UCB1" not in shown and "UCB1" in TOGGLES
    for name in ("D-UCB", "D-KLUCB"):
        assert name in shown and name + WITHOUT in shown
        assert visible(p.regret, name) and visible(p.regret, name + WITHOUT)
    assert visible(p.regret, UNIFORM)
    p.censored.value = False  # the uncensored names, and uniform play still drawn
    assert visible(p.regret, "UD-UCB" + WITHOUT) and visible(p.regret, "UD-KLUCB" + WITHOUT) and visible(p.regret, UNIFORM)
    for box in p.toggles.values():  # nothing ticked: uniform random play stays
        box.value = False
    assert visible(p.regret, UNIFORM)


def test_a_pair_with_and_without_n_tilde_is_drawn_alike_but_for_the_dash_and_marker():
    from delaylab.viz.style import symbol

    for name in ("D-UCB", "UD-UCB", "D-KLUCB", "UD-KLUCB"):
        assert style(name + " without Ñ")["color"] == style(name)["color"]
        assert style(name + " without Ñ")["dash"] == "dot" != style(name)["dash"]
        assert symbol(name + " without Ñ") and not symbol(name)


def test_the_notebooks_checks_see_what_the_panel_shows_at_its_defaults():
    """The check cell of notebook 01's Section 4 computes on fixed parameters (paper.comparison); at
    the panel's defaults, the panel shows the same final regrets, run by run."""
    from delaylab import UNIFORM
    from delaylab.papers import vernade2017 as paper

    p = ConversionsPanel()
    assert p.budget.wait(300)
    res = paper.comparison(names=[n for n in p.selected() if n != UNIFORM])
    for name in p.selected():
        assert p.regret.curve(name)[1][-1] == pytest.approx(res.final(name).mean(), rel=1e-12), name


@pytest.mark.parametrize("start", [500, 100])
def test_the_mean_delay_slider_returns_to_its_start_and_reaches_its_double(start):
    """Review nb01-r8, finding 6: with min = 1 and step 0.05 the slider's values were 10^(1 + 0.05k),
    so once moved it could not come back to μ = 500 (the checked defaults), only to 501. The grid now
    runs through the initial value by factors of 2^(1/6): the value, its double (the guide's
    500 → 1000) and its half are on it, as rounded whole steps."""
    s = ConversionsPanel(mean_delay=start, horizon=500, runs=10).mean_delay
    grid = 10 ** (s.min + s.step * np.arange(int((s.max - s.min) / s.step) + 1))
    for mu in (start, 2 * start, start // 2):
        assert round(float(grid[np.argmin(abs(grid - mu))])) == mu
    assert grid[0] <= 10 < grid[1] and s.max == pytest.approx(np.log10(5000)) and s.value == start
