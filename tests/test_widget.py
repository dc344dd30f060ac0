"""delaylab's FigureWidget: plotly's JavaScript travels once per kernel, not once per figure.

What the browser does with it (one import per page, figures that take every update) is checked
by tests/test_browser.py; here, the kernel side.
"""

import ipywidgets
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


def test_closing_every_widget_gives_new_figures_a_new_shared_model():
    first = FigureWidget()._plotly_code
    ipywidgets.Widget.close_all()
    second = FigureWidget()._plotly_code
    assert second != first and _shared_code().comm is not None


def test_updates_behave_as_in_plotly():
    fig = FigureWidget(go.Scatter(y=[1, 2, 3]))
    with fig.batch_update():
        fig.data[0].y = [3, 2, 1]
    assert fig.data[0].y == (3, 2, 1)
    assert FigureWidget(fig).data[0].y == (3, 2, 1)
