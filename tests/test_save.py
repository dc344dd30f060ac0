"""Saving figures as standalone HTML files."""

import plotly.graph_objects as go
import pytest

from delaylab.viz.save import SaveButton, save_html, standalone_html


def figure():
    return go.FigureWidget(go.Scatter(x=[1, 2, 3], y=[4.5, 6.25, 7.125], name="D-KLUCB"))


def test_standalone_html_embeds_plotly_js_and_the_data():
    html = standalone_html(figure(), "my <figure>")
    assert html.lstrip().lower().startswith(("<!doctype html>", "<html>")) and html.rstrip().endswith("</html>")
    assert "<title>my &lt;figure&gt;</title>" in html
    assert "<script src=" not in html  # no script loaded from the network
    assert len(html) > 1_000_000  # plotly.js itself is embedded
    assert "6.25" in html and "D-KLUCB" in html


def test_save_html_writes_the_file_and_checks_the_suffix(tmp_path):
    path = save_html(figure(), tmp_path / "fig.html")
    assert "7.125" in path.read_text()
    with pytest.raises(ValueError, match="must end in .html"):
        save_html(figure(), tmp_path / "fig.png")


def test_button_sends_the_current_state_of_the_figure():
    fig = figure()
    button = SaveButton(fig, "regret curves")
    assert button.filename == "regret-curves.html"
    with fig.batch_update():
        fig.data[0].y = [1.5, 2.5, 3.875]
    sent = []
    button.downloader.send = sent.append  # no browser here: capture the message
    button.button.click()
    assert button.downloader.sent == 1 and len(sent) == 1
    msg = sent[0]
    assert msg["kind"] == "download" and msg["filename"] == "regret-curves.html"
    assert "3.875" in msg["content"] and "7.125" not in msg["content"]
    assert "MB" in button.status.value
