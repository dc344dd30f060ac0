"""plotly.js's basic bundle for the dashboards (delaylab/viz/plotlyjs.py): fetched and checked,
spliced into plotly's widget module, and figures that need another trace type kept off it.

The browser tests draw every figure of every notebook with it (test_browser.py)."""

import base64
import hashlib
import io
import json
import tarfile

import plotly.graph_objects as go
import pytest

from delaylab.viz import plotlyjs, widget
from delaylab.viz.widget import FigureWidget


def _tarball(files: dict) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def _integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


BUNDLE = b"/**\n* plotly.js (basic - minified) v9.8.7\n*/\n(function(root, factory){})(self, () => {});\n"


def test_integrity_is_npms_sha512():
    data = b"plotly"
    plotlyjs.check_integrity(data, _integrity(data))
    with pytest.raises(ValueError, match="SHA-512"):
        plotlyjs.check_integrity(data + b" ", _integrity(data))
    with pytest.raises(ValueError, match="sha512"):
        plotlyjs.check_integrity(data, "sha1-" + base64.b64encode(hashlib.sha1(data).digest()).decode())


def test_extract_takes_the_bundle_of_the_asked_version_only():
    assert plotlyjs.extract(_tarball({"package/plotly-basic.min.js": BUNDLE}), "9.8.7") == BUNDLE
    with pytest.raises(ValueError, match="not plotly.js v9.8.8"):
        plotlyjs.extract(_tarball({"package/plotly-basic.min.js": BUNDLE}), "9.8.8")
    with pytest.raises(ValueError, match="no plotly-basic.min.js"):
        plotlyjs.extract(_tarball({"package/README.md": b"x"}), "9.8.7")


def test_fetch_checks_the_download_and_writes_only_a_good_bundle(tmp_path, monkeypatch):
    monkeypatch.setenv("DELAYLAB_ASSETS", str(tmp_path))
    good = _tarball({"package/plotly-basic.min.js": BUNDLE})
    served = {"meta": {"dist": {"tarball": "https://registry.example/b.tgz", "integrity": _integrity(good)}},
              "tarball": good[:20] + bytes([good[20] ^ 0xFF]) + good[21:]}  # damaged on the way
    asked = []

    def get(url, timeout):
        asked.append(url)
        return json.dumps(served["meta"]).encode() if url.endswith("/9.8.7") else served["tarball"]

    monkeypatch.setattr(plotlyjs, "_get", get)
    with pytest.raises(ValueError, match="SHA-512"):
        plotlyjs.fetch("9.8.7", registry="https://registry.example")
    assert asked == ["https://registry.example/plotly.js-basic-dist-min/9.8.7", "https://registry.example/b.tgz"]
    assert list(tmp_path.iterdir()) == [] and plotlyjs.installed("9.8.7") is None

    served["tarball"] = good
    path = plotlyjs.fetch("9.8.7", registry="https://registry.example")
    assert path == tmp_path / "plotly-basic-9.8.7.min.js" and plotlyjs.installed("9.8.7") == BUNDLE
    asked.clear()
    assert plotlyjs.fetch("9.8.7") == path and asked == []  # there already: nothing downloaded


def test_fetch_failure_is_said_and_leaves_the_full_module(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DELAYLAB_ASSETS", str(tmp_path))

    def offline(url, timeout):
        raise OSError("Network is unreachable")

    monkeypatch.setattr(plotlyjs, "_get", offline)
    assert plotlyjs.main() == 1
    assert "Network is unreachable" in capsys.readouterr().err
    assert widget.dashboard_module() == (widget.plotly_module_name(), widget.plotly_module(), None)


def test_the_installed_bundle_replaces_plotly_js_in_plotlys_widget_module():
    assert plotlyjs.installed() is not None, "`python3 tasks.py` fetches it at set-up: python -m delaylab.viz.plotlyjs"
    basic = plotlyjs.installed().decode()
    full = widget.plotly_module().decode()
    spliced = plotlyjs.splice(full, basic)
    assert spliced.count(basic) == 1
    # plotly.js's trace types beyond the basic ones are gone with the full plotly.js ...
    for gone in ('"lib/scattermap.js"', '"lib/scatter3d.js"', '"lib/heatmap.js"', '"lib/histogram.js"'):
        assert gone in full and gone not in spliced
    # ... and plotly's widget code around it is untouched
    start = spliced.index(basic)
    end = start + len(basic)
    head, tail = spliced[:start], spliced[end:]
    assert head.endswith("((exports,module)=>{\n") and tail.startswith("\n});")
    assert full.startswith(head[:head.rindex("var ")]) and full.endswith(tail[len("\n});"):])
    assert len(spliced) < len(full) / 3

    name, module, traces = widget.dashboard_module()
    assert (name, module, traces) == (widget.basic_module_name(), spliced.encode(), plotlyjs.TRACES)
    assert name != widget.plotly_module_name()


def test_splice_refuses_what_it_does_not_recognise():
    full = widget.plotly_module().decode()
    basic = plotlyjs.installed().decode()
    with pytest.raises(plotlyjs.SpliceError, match="does not embed plotly.js 0.0.1"):
        plotlyjs.splice(full, basic.replace(plotlyjs.version(), "0.0.1", 1), "0.0.1")
    with pytest.raises(plotlyjs.SpliceError, match="not plotly.js"):
        plotlyjs.splice(full, "/* some other file */")
    with pytest.raises(plotlyjs.SpliceError, match="0 places where plotly.js starts"):
        plotlyjs.splice(full.replace('.moduleName=', '.name='), basic)
    with pytest.raises(plotlyjs.SpliceError, match="2 places where plotly.js ends"):
        end = "return window.Plotly="
        at = full.index(end)
        plotlyjs.splice(full + ";" + full[at:full.index(";", at) + 1], basic)


def test_a_failed_splice_serves_the_full_module_with_a_warning(monkeypatch):
    monkeypatch.setattr(plotlyjs, "installed", lambda ver=None: b"/* not plotly.js */")
    with pytest.warns(UserWarning, match="basic bundle not used"):
        assert widget.dashboard_module() == (widget.plotly_module_name(), widget.plotly_module(), None)


@pytest.fixture
def basic_url(monkeypatch):
    assert widget.basic_module_name() is not None
    url = "/delaylab/static/" + widget.basic_module_name()
    monkeypatch.setenv("DELAYLAB_PLOTLY_MODULE_URL", url)
    return url


def test_figures_of_basic_traces_use_the_basic_module(basic_url):
    for data in (go.Scatter(y=[1]), [go.Bar(y=[1]), {"type": "pie"}], go.Figure(go.Scatter()), {"data": [{}]}, None):
        fig = FigureWidget(data)
        assert fig._plotly_url == basic_url and fig._plotly_code == "", data
    assert widget.served_module() == (basic_url, plotlyjs.TRACES)


def test_a_figure_with_another_trace_type_loads_plotlys_full_module(basic_url):
    for data in (go.Histogram(x=[1]), go.Figure([go.Scatter(), go.Heatmap(z=[[1]])]), {"data": [{"type": "box"}]}):
        fig = FigureWidget(data)
        assert fig._plotly_url == "" and fig._plotly_code.startswith("IPY_MODEL_"), data


def test_adding_a_trace_the_page_cannot_draw_is_refused_before_the_figure_changes(basic_url):
    fig = FigureWidget(go.Scatter(y=[1, 2]))
    with pytest.raises(ValueError, match=r"trace type 'histogram'.*draws only bar, pie, scatter"):
        fig.add_trace(go.Histogram(x=[1]))
    with pytest.raises(ValueError, match="'box', 'heatmap'"):
        fig.add_traces([go.Bar(), go.Heatmap(z=[[1]]), {"type": "box"}])
    assert [t.type for t in fig.data] == ["scatter"] and len(fig._widget_data) <= 1
    fig.add_bar(y=[3])
    assert [t.type for t in fig.data] == ["scatter", "bar"]


def test_under_the_full_module_or_jupyterlab_every_trace_type_is_accepted(monkeypatch):
    monkeypatch.setenv("DELAYLAB_PLOTLY_MODULE_URL", "/delaylab/static/" + widget.plotly_module_name())
    fig = FigureWidget(go.Histogram(x=[1]))
    fig.add_trace(go.Heatmap(z=[[1]]))
    assert fig._plotly_url.endswith(widget.plotly_module_name())
    monkeypatch.delenv("DELAYLAB_PLOTLY_MODULE_URL")
    fig = FigureWidget(go.Histogram(x=[1]))
    fig.add_trace(go.Heatmap(z=[[1]]))
    assert fig._plotly_url == "" and widget.served_module() == ("", None)
