"""Save a figure as a standalone HTML file (plotly.js included, so it opens offline).

In a notebook or a Voila dashboard, :func:`save_button` gives a button that downloads the
current state of a figure through the browser: nothing is written on the server, which matters
for public dashboards. From Python, :func:`save_html` writes the same file to a path.
"""

from __future__ import annotations

import re
from pathlib import Path

import anywidget
import ipywidgets as W
import plotly.graph_objects as go
import traitlets

from .display import Displayable
from .widget import TAKE_MESSAGES_JS, SelfIdentified


def standalone_html(fig: go.Figure, title: str = "delaylab figure") -> str:
    """The figure as one HTML document with plotly.js embedded (about 4.7 MB, works offline)."""
    html = go.Figure(fig).to_html(include_plotlyjs=True, full_html=True,
                                  config={"displaylogo": False, "responsive": True})
    return html.replace("<head>", f"<head><title>{_escape(title)}</title>", 1)


def save_html(fig: go.Figure, path, title: str = "delaylab figure") -> Path:
    """Write :func:`standalone_html` of ``fig`` to ``path`` (folders must exist); returns the path."""
    path = Path(path)
    if path.suffix.lower() not in (".html", ".htm"):
        raise ValueError(f"path must end in .html; got {str(path)!r}")
    path.write_text(standalone_html(fig, title), encoding="utf-8")
    return path


class _Downloader(SelfIdentified, anywidget.AnyWidget):
    """An invisible widget that turns a message from the kernel into a browser download.

    The file travels in a custom message, not a synced trait, so it is never stored in the
    widget state (notebook metadata, Voila page). Its module takes the model's messages in hand
    (:data:`~delaylab.viz.widget.TAKE_MESSAGES_JS`): on a page too busy to set it up within
    anywidget's 2 s, a download is not lost.
    """

    _esm = TAKE_MESSAGES_JS + """
    function render({ model, el }) {
      el.style.display = "none";
      model.on("msg:custom", (msg) => {
        if (!msg || msg.kind !== "download") return;
        const blob = new Blob([msg.content], { type: msg.mime || "text/html" });
        const url = URL.createObjectURL(blob);
        const a = document.createElement("a");
        a.href = url;
        a.download = msg.filename;
        document.body.appendChild(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(url), 30000);
      });
    }
    export default { initialize({ model }) { takeMessages(model).catch(() => {}); }, render };
    """
    sent = traitlets.Int(0).tag(sync=True)  # number of files sent (for tests)

    def download(self, filename: str, content: str, mime: str = "text/html") -> None:
        self.send({"kind": "download", "filename": filename, "content": content, "mime": mime})
        self.sent += 1


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or "figure"


class SaveButton(Displayable):
    """A "save as HTML" button for a figure; ``widget`` is what to display.

    Parameters
    ----------
    fig : plotly Figure or FigureWidget
        The figure (its state at the time of the click is saved).
    filename : str
        Name of the downloaded file (".html" is added if missing).
    title : str
        Title of the HTML page.
    """

    def __init__(self, fig, filename: str, title: str | None = None):
        self.fig = fig
        stem = _slug(filename[:-5] if filename.lower().endswith(".html") else filename)
        self.filename = stem + ".html"
        self.title = title or stem
        self.button = W.Button(description="save figure (HTML)", icon="download",
                               tooltip="download this figure as a standalone HTML file that opens offline",
                               layout=W.Layout(width="auto"))
        self.status = W.HTML()
        self.downloader = _Downloader()
        self.button.on_click(lambda _: self.save())
        self.widget = W.HBox([self.button, self.status, self.downloader],
                             layout=W.Layout(align_items="center"))

    def save(self) -> str:
        """Send the figure to the browser as a download; returns the HTML."""
        html = standalone_html(self.fig, self.title)
        self.downloader.download(self.filename, html)
        self.status.value = (f"<small style='color:#555'>sent {self.filename} "
                             f"({len(html.encode()) / 1e6:.1f} MB, opens offline)</small>")
        return html

def save_button(fig, filename: str, title: str | None = None) -> W.HBox:
    """The widget of a :class:`SaveButton` for ``fig``."""
    return SaveButton(fig, filename, title).widget
