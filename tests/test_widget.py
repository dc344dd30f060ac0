"""delaylab's FigureWidget: plotly's JavaScript travels once per kernel, not once per figure,
and the figure's full state is current after every update.

Here, the kernel side. tests/test_browser.py checks the page: one import of plotly's module per
page, no JavaScript error, and sliders that redraw figures.
"""

import plotly.graph_objects as go

from delaylab.viz.plots import CurvePlot
from delaylab.viz.widget import FigureWidget, _shared_code


def test_figures_refer_to_one_shared_copy_of_plotlys_module():
    a = FigureWidget(go.Scatter(y=[1, 2]))
    b = CurvePlot(["D-UCB"]).fig  # the package's figures are of this class
    assert isinstance(a, go.FigureWidget) and isinstance(b, FigureWidget)
    code = _shared_code()
    assert a._plotly_code == b._plotly_code == f"IPY_MODEL_{code.model_id}"
    assert code.esm == str(go.FigureWidget._esm) and len(code.esm) > 1_000_000
    # each figure's own module is the small loader, not plotly's 5 MB
    state = a.get_state()
    assert len(state["_esm"]) < 5_000 and state["_plotly_code"] == a._plotly_code


def test_closing_the_shared_model_gives_new_figures_a_new_one():
    first = FigureWidget()._plotly_code
    _shared_code().close()
    second = FigureWidget()._plotly_code
    assert second != first and _shared_code().comm is not None


def test_full_state_is_synced_after_every_kind_of_update():
    # plain go.FigureWidget keeps the state it had when created: a view set up late would be stale
    fig = FigureWidget(go.Scatter(y=[1, 2, 3]))
    fig.data[0].y = [5, 6, 7]  # a direct assignment (a restyle message)
    assert list(fig._widget_data[0]["y"]) == [5, 6, 7]
    with fig.batch_update():  # one update message at the end
        fig.data[0].y = [8, 9]
        fig.layout.title = "regret"
    assert list(fig._widget_data[0]["y"]) == [8, 9] and fig._widget_layout["title"] == {"text": "regret"}
    fig.add_scatter(y=[1.5], name="new")
    assert [t.get("name") for t in fig._widget_data] == [None, "new"]
    fig.data = fig.data[1:]  # deleting a trace
    assert [t.get("name") for t in fig._widget_data] == ["new"]


def test_updates_behave_as_in_plotly():
    fig = FigureWidget(go.Scatter(y=[1, 2, 3]))
    with fig.batch_update():
        fig.data[0].y = [3, 2, 1]
    assert fig.data[0].y == (3, 2, 1)
    assert FigureWidget(fig).data[0].y == (3, 2, 1)
