"""delaylab's FigureWidget: plotly's JavaScript travels once per kernel, not once per figure,
and the figure's full state is current after every update.

Here, the kernel side. tests/test_browser.py checks the page: one import of plotly's module per
page, no JavaScript error, and sliders that redraw figures.
"""

import plotly.graph_objects as go

from delaylab.viz.plots import CurvePlot
from delaylab.viz import plotlyjs
from delaylab.viz.widget import FigureWidget, _shared_code, basic_module


def test_figures_refer_to_one_shared_copy_of_plotlys_module():
    a = FigureWidget(go.Scatter(y=[1, 2]))
    b = CurvePlot(["D-UCB"]).fig  # the package's figures are of this class
    assert isinstance(a, go.FigureWidget) and isinstance(b, FigureWidget)
    basic = basic_module() is not None  # set-up fetches plotly.js's basic bundle
    code = _shared_code(basic=basic)
    assert a._plotly_code == b._plotly_code == f"IPY_MODEL_{code.model_id}"
    assert code.esm == (basic_module() if basic else str(go.FigureWidget._esm)) and len(code.esm) > 1_000_000
    # each figure's own module is the small loader (with the theme follower), not plotly's 5 MB
    state = a.get_state()
    assert len(state["_esm"]) < 25_000 and state["_plotly_code"] == a._plotly_code


def test_closing_the_shared_model_gives_new_figures_a_new_one():
    basic = basic_module() is not None
    first = FigureWidget()._plotly_code
    _shared_code(basic=basic).close()
    second = FigureWidget()._plotly_code
    assert second != first and _shared_code(basic=basic).comm is not None


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


def test_under_the_dashboards_server_figures_load_the_module_by_its_url_and_no_shared_model(monkeypatch):
    from delaylab.viz import widget

    url = "/base/delaylab/static/" + widget.plotly_module_name()
    monkeypatch.setenv("DELAYLAB_PLOTLY_MODULE_URL", url)
    monkeypatch.setattr(widget, "_CODE", None)
    fig = FigureWidget(go.Scatter(y=[1, 2]))
    state = fig.get_state()
    assert state["_plotly_url"] == url and state["_plotly_code"] == ""
    assert widget._CODE is None  # plotly's 5 MB never leave the kernel


def test_module_url_is_used_only_for_this_plotlys_module_and_otherwise_the_shared_model(monkeypatch):
    from delaylab.viz import widget

    name = widget.plotly_module_name()
    assert name.startswith("plotly-widget.") and name.endswith(".js")
    other = name.replace(name[14:18], "ffff" if name[14:18] != "ffff" else "0000")  # another content's hash
    for env in ("/delaylab/static/" + other, "", None):
        if env is None:
            monkeypatch.delenv("DELAYLAB_PLOTLY_MODULE_URL", raising=False)  # JupyterLab, plain Voila
        else:
            monkeypatch.setenv("DELAYLAB_PLOTLY_MODULE_URL", env)
        fig = FigureWidget(go.Heatmap(z=[[1]]))  # (a trace of plotly's full module)
        assert fig._plotly_url == "" and fig._plotly_code == f"IPY_MODEL_{_shared_code().model_id}", env


def test_module_name_is_the_hash_of_the_modules_content():
    import hashlib

    from delaylab.viz import widget

    assert widget.plotly_module() == str(go.FigureWidget._esm).encode()
    assert hashlib.sha256(widget.plotly_module()).hexdigest().startswith(widget.plotly_module_name()[14:-3])


def test_the_page_model_is_created_with_the_whole_figure(monkeypatch):
    # a page may drop the messages that follow a model's creation (anywidget's 2 s limit,
    # tests/test_browser_late_figure.py): the figure must not need them to be drawn as made
    import comm

    opened = []
    create = comm.create_comm
    monkeypatch.setattr(comm, "create_comm", lambda **kw: opened.append(kw["data"]["state"]) or create(**kw))
    fig = FigureWidget(go.Scatter(y=[1, 2, 3]), layout=dict(title="regret"))
    (state,) = [st for st in opened if "_widget_data" in st]  # (not the shared module's model, if made now)
    assert list(state["_widget_data"][0]["y"]) == [1, 2, 3] and state["_widget_layout"]["title"] == {"text": "regret"}
    assert state["_description"] == fig._description != "" and state["_self_id"] == fig.model_id


def test_a_page_behind_the_latest_revision_is_sent_the_whole_figure(monkeypatch):
    fig = FigureWidget(go.Scatter(y=[1, 2, 3]))
    sent = []
    monkeypatch.setattr(fig, "send_state", lambda key=None: sent.append(("state", tuple(key))))
    monkeypatch.setattr(fig, "send", lambda content, buffers=None: sent.append(("custom", content["kind"])))
    made = fig._revision  # what the page's model is created with
    fig._page_message(fig, {"kind": "delaylab-sync", "revision": made}, [])
    assert sent == []  # the page holds the latest: nothing to send
    fig.data[0].y = [4, 5, 6]
    assert fig._revision == made + 1
    del sent[:]  # (the update's own messages)
    fig._page_message(fig, {"kind": "delaylab-sync", "revision": made}, [])
    assert sent == [("state", ("_widget_data", "_widget_layout", "_description", "_revision")),
                    ("custom", "delaylab-synced")]


def test_through_the_kernel_the_basic_bundle_draws_the_figures_it_can():
    # JupyterLab: a figure of scatter, bar or pie traces refers to the shared model carrying
    # plotly.js's basic bundle (a quarter of the full module's evaluation in the page)
    import pytest

    if basic_module() is None:
        pytest.skip("set-up fetches plotly.js's basic bundle: python -m delaylab.viz.plotlyjs")
    full, basic = _shared_code(), _shared_code(basic=True)
    assert len(basic.esm) < len(full.esm) / 3 and "plotly.js" in basic.esm
    fig = FigureWidget(go.Figure([go.Scatter(y=[1, 2]), go.Bar(y=[1]), go.Pie(values=[1, 2])]))
    assert fig._plotly_code == f"IPY_MODEL_{basic.model_id}"
    assert FigureWidget(go.Heatmap(z=[[1]]))._plotly_code == f"IPY_MODEL_{full.model_id}"
    # a trace the basic bundle cannot draw is refused before the figure changes, as on the dashboards
    with pytest.raises(ValueError, match="heatmap"):
        fig.add_trace(go.Heatmap(z=[[1]]))
    assert len(fig.data) == 3
    assert set(plotlyjs.TRACES) == {"scatter", "bar", "pie"}
