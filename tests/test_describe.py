"""Figures' text alternatives (delaylab.viz.describe) and the FigureWidget's accessible name."""

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from delaylab.viz.describe import describe, number, plain
from delaylab.viz.plots import CurvePlot, palette_figure
from delaylab.viz.widget import FigureWidget


def test_numbers_and_text_as_a_reader_says_them():
    assert [number(v) for v in (0, 1234.5, 12_345_678, 0.04123, 41.26, -3.0, float("inf"))] == \
        ["0", "1,230", "12,300,000", "0.0412", "41.3", "−3", "∞"]
    assert plain("Delays: Geometric(μ=500)<br><sup>1 − τ_m = 13.5% never seen</sup>") == \
        "Delays: Geometric(μ=500) — 1 − τ_m = 13.5% never seen"


def test_curves_with_bands_are_ranked_at_their_end_and_a_bound_is_only_named():
    plot = CurvePlot(["UCB1", "D-KLUCB"], extra=["lower bound"], title="Cumulative regret", xaxis="step t")
    with plot.updating():
        plot.set("UCB1", [1, 2, 3], [1, 5, 131], [0, 4, 120], [2, 6, 140])
        plot.set("D-KLUCB", [1, 2, 3], [1, 2, 41], [0, 1, 38], [2, 3, 44])
        plot.set("lower bound", [1, 2, 3], [0, 1, 2])  # lowest of all, but not an estimate
    text = describe(plot.fig)
    assert text == ("Figure: Cumulative regret. x: step t from 1 to 3; y: cumulative regret from 0 to 131. "
                    "Series: UCB1 ends at 131 (x = 3); D-KLUCB ends at 41 (x = 3); lower bound ends at 2 (x = 3). "
                    "At step t = 3, lowest: D-KLUCB (41); highest: UCB1 (131, 3.2 times as much).")


def test_subplots_points_bars_pies_and_empty_figures():
    fig = make_subplots(rows=1, cols=2, subplot_titles=["left", "right"])
    fig.add_trace(go.Scatter(x=[0.5], y=[0.25], mode="markers", name="estimate"), row=1, col=1)
    fig.add_trace(go.Bar(x=["arm 1", "arm 2"], y=[0.6, 0.8], name="means"), row=1, col=2)
    text = describe(fig)
    assert "Panel 1, left:" in text and "estimate at (0.5, 0.25)" in text
    assert "Panel 2, right:" in text and "bars means: arm 1: 0.6, arm 2: 0.8" in text
    assert "shares" not in describe(go.Figure(go.Pie(labels=["a", "b"], values=[1, 3], name="p")))
    assert "a 25%, b 75%" in describe(go.Figure(go.Pie(labels=["a", "b"], values=[1, 3], name="p")))
    assert describe(go.Figure()) == "Figure. Nothing is drawn yet."
    hidden = go.Figure(go.Scatter(y=[1, 2], name="gone", visible=False))
    assert "gone" not in describe(hidden)


def test_a_closed_curve_and_a_path_are_not_said_to_end_somewhere():
    fig = go.Figure([go.Scatter(x=[0, 1, 0, -1, 0], y=[1, 0, -1, 0, 1], name="ellipse", fill="toself"),
                     go.Scatter(x=[0, 0.5, 0.2], y=[0, 0.1, 0.3], name="path")])
    text = describe(fig)
    assert "ellipse: a closed curve over x −1 to 1, y −1 to 1" in text
    assert "path: a path ending at (0.2, 0.3)" in text


def test_an_odd_figure_gets_a_sentence_not_an_exception():
    assert describe({"data": [{"type": "scatter", "y": "not numbers", "name": "x"}], "layout": {}}).startswith("Figure")
    assert describe({"data": None, "layout": {"title": {"text": 3}}}) == "Figure: 3. Nothing is drawn yet."


def test_figure_widget_syncs_its_description_after_every_update():
    fig = FigureWidget(go.Scatter(x=[1, 2], y=[3, 4], name="D-UCB"))
    assert fig._description == describe(fig) and "D-UCB ends at 4 (x = 2)" in fig._description
    assert "_description" in fig.get_state()  # a synced trait: the page's accessible name
    with fig.batch_update():
        fig.data[0].y = [3, 9]
    assert "D-UCB ends at 9" in fig._description
    fig.data[0].name = "D-KLUCB"  # a direct assignment too
    assert "D-KLUCB ends at 9" in fig._description


def test_every_figure_of_the_palette_is_described_by_name():
    text = describe(palette_figure())
    assert text.startswith("Figure: One colour and line style per algorithm") and "D-KLUCB" in text
